"""The one reader of the compacted state topics: the service's state replica, the MQI's
catalogue replica and the CLI's listings all read through it.

It assigns every partition of its topics (no group membership, never commits), starts each
where the caller says (the beginning, or where a kept RocksDB store left off), and reads
``read_committed``. :meth:`CompactedReader.catch_up` is the consistency barrier: it asks the
cluster for each partition's last stable offset and reads up to it. Progress is the consumer's
own position, which, unlike "last record + 1", also steps over the transaction markers that end
every committed batch of state records.

A consumer that reads nothing while Kafka answers the end offsets (librdkafka 2.16 can leave a
client with no broker to ask after an outage, for good) is replaced after
``readstall.REPLACE_AFTER`` seconds of it, at the positions read: :meth:`CompactedReader.watch`,
which the MQI's state copy, reading on a thread of its own, uses too.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.failures import failure_of
from mqkafka.kafka.groups import reader_group
from mqkafka.kafka.readstall import ReadStall
from mqkafka.kafka.txcalls import close_in_background

log = logging.getLogger(__name__)

Partition = tuple[str, int]
# topic, partition, key, value (None: a tombstone), timestamp in ms
ApplyRecord = Callable[[str, int, bytes, bytes | None, int], None]
PARTITION_EOF = -191
END_OFFSETS_WAIT = 30.0  # seconds end_offsets asks, in all, unless told otherwise
REQUEST_WAIT = 10.0  # seconds one list_offsets request may take
ANSWER_MARGIN = 5.0  # seconds past its request timeout its answer is waited for
SAY_AFTER = 10.0  # seconds of asking for end offsets before it is said (one line per 30 s)


class MissingTopic(clients.KafkaEdgeError):
    """A state topic the reader was asked for does not exist."""


class CompactedReader:
    def __init__(
        self,
        config: ClientConfig,
        topics: Iterable[str],
        *,
        admin: Any | None = None,
        positions: Mapping[Partition, int] | None = None,
        role: Mapping[str, Any] | None = None,
        wait_for_topics: float = 10.0,
    ) -> None:
        self.topics = tuple(topics)
        self._config = config
        self._fresh_admin = False  # the next end_offsets asks through a new admin client
        self._outages = clients.outages()  # outages seen as this reader last asked Kafka
        self._admin = admin if admin is not None else clients.admin(config)
        self._settings: dict[str, Any] = {
            "group.id": reader_group("reader"),  # assign only: never commits
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
            "fetch.wait.max.ms": 5,
            "queued.min.messages": 50000,
            **(role or {}),
        }
        self._consumer = clients.consumer(config, self._settings)
        self.progress = 0  # bumped whenever a position moves: what the stall clock watches
        self._stall = ReadStall()
        self.renewals = 0  # consumers replaced so far
        self.partitions = self._discover(wait_for_topics)
        start = positions or {}
        self.positions: dict[Partition, int] = {
            tp: start.get(tp, clients.OFFSET_BEGINNING) for tp in self.partitions
        }
        self._assign()

    def _assign(self) -> None:
        self._consumer.assign(
            [clients.TopicPartition(t, p, self.positions[(t, p)]) for t, p in self.partitions]
        )

    def _discover(self, wait: float) -> list[Partition]:
        metadata = self._admin.list_topics(timeout=30)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and any(
            t not in metadata.topics or metadata.topics[t].error is not None for t in self.topics
        ):
            time.sleep(0.2)  # created a moment ago: metadata still on its way
            metadata = self._admin.list_topics(timeout=30)
        partitions: list[Partition] = []
        for topic in self.topics:
            found = metadata.topics.get(topic)
            if found is None or found.error is not None:
                raise MissingTopic(f"state topic {topic} does not exist (run 'mqk topics apply')")
            partitions.extend((topic, p) for p in sorted(found.partitions))
        return partitions

    def end_offsets(
        self, attempts: int = 0, timeout: float = END_OFFSETS_WAIT
    ) -> dict[Partition, int]:
        """The last stable offset of every partition (read_committed), in one request.

        Asked again while leadership moves or Kafka is away, for ``timeout`` seconds in all
        (and at most ``attempts`` times, if given, not counting answers that a partition's
        leader is being chosen: a topic just made); then the last error is raised (a retriable
        one: the transactional loop waits for Kafka and says so). A wait longer than
        ``SAY_AFTER`` is said, in one line per 30 s with the other waits for Kafka."""
        request = {
            clients.TopicPartition(t, p): clients.OffsetSpec.latest() for t, p in self.partitions
        }
        began = time.monotonic()
        deadline = began + timeout
        attempt = counted = 0
        # An admin client keeps the leader epochs it learned before a broker restarted and is
        # answered FENCED_LEADER_EPOCH (after seconds: the service's first batch after an
        # outage waited ~5 s for it): while this process's clients find Kafka away, and at
        # the first call after an outage, each call asks through a new one.
        outages = clients.outages()
        away = clients.kafka_away_since() is not None
        self._fresh_admin = self._fresh_admin or away or outages != self._outages
        self._outages = outages
        while True:
            if self._fresh_admin:
                self._admin = clients.admin(self._config)
                self._fresh_admin = clients.kafka_away_since() is not None
            try:
                wait = max(1.0, min(REQUEST_WAIT, deadline - time.monotonic()))
                futures = self._admin.list_offsets(
                    request,
                    isolation_level=clients.IsolationLevel.READ_COMMITTED,
                    request_timeout=wait,
                )
                return _answers(futures, wait + ANSWER_MARGIN)
            except clients.KafkaException as error:  # leadership moving: ask again shortly
                attempt += 1
                failure = failure_of(error)
                counted += not clients.leadership_moving(failure)
                now = time.monotonic()
                if now >= deadline or (attempts and counted >= attempts):
                    raise
                self._say_wait(now - began, failure, error)
                self._fresh_admin = True  # the next try asks the cluster afresh
                time.sleep(min(0.05 * attempt, 1.0, max(0.0, deadline - time.monotonic())))

    def _say_wait(self, waited: float, failure: object, error: Exception) -> None:
        said = failure.str() if isinstance(failure, clients.KafkaError) else str(error)
        if waited < SAY_AFTER:
            log.debug("list_offsets: %s", said)
            return
        clients.say_away(log, "no end offsets of %s from Kafka for %.0fs (%s): asking again",
                         ", ".join(self.topics), waited, said)  # fmt: skip

    def at(self, tp: Partition) -> int:
        """Where reading stands; "from the beginning" counts as 0 (an empty log is read)."""
        return max(self.positions.get(tp, 0), 0)

    def poll(self, apply: ApplyRecord, timeout: float = 0.05, max_records: int = 20000) -> int:
        """Apply what arrives within ``timeout``; returns the number of records applied."""
        applied = 0
        for message in self._consumer.consume(max_records, timeout):
            error = message.error()
            if error is not None:
                if error.code() != PARTITION_EOF and not clients.is_away(error):
                    log.warning("reading %s: %s", message.topic(), error.str())
                continue
            key = message.key()
            if key is not None:
                apply(
                    message.topic(), message.partition(), key, message.value(),
                    message.timestamp()[1],
                )  # fmt: skip
                applied += 1
        return applied

    def advance(self, partitions: Iterable[Partition] | None = None) -> None:
        """Take the consumer's positions (past markers) as where reading stands."""
        wanted = [clients.TopicPartition(t, p) for t, p in (partitions or self.partitions)]
        positions = self.positions
        for position in self._consumer.position(wanted):
            offset = position.offset
            if offset >= 0:
                tp = (position.topic, position.partition)
                if positions.get(tp) != offset:
                    positions[tp] = offset
                    self.progress += 1

    def catch_up(self, apply: ApplyRecord, timeout: float = 60.0) -> int:
        """Read every partition up to its current last stable offset, within ``timeout``
        seconds (asking for the offsets included); a retriable KafkaException after that."""
        deadline = time.monotonic() + timeout
        self._stall.pause()  # the time between calls is not held against the consumer
        try:
            ends = self.end_offsets(timeout=timeout)
        except clients.KafkaException:
            self._stall.clear()  # Kafka does not answer: nothing to hold against the consumer
            raise
        behind = {tp for tp, end in ends.items() if self.at(tp) < end}
        applied = 0
        while behind:
            now = time.monotonic()
            self.watch(now)
            if now > deadline:  # Kafka away: a retriable error to the loop
                raise clients.KafkaException(
                    clients.KafkaError(
                        clients.KafkaError._TIMED_OUT,
                        f"could not read {sorted(behind)} to its end in time",
                    )
                )
            applied += self.poll(apply)
            self.advance(behind)
            behind = {tp for tp in behind if self.at(tp) < ends[tp]}
        self._stall.clear()
        return applied

    @property
    def stalled_for(self) -> float:
        """Seconds behind, nothing read, Kafka answering (over calls)."""
        return self._stall.seconds

    def watch(self, now: float, *, answering: bool = True, progress: int | None = None) -> bool:
        """A look at a reader that knows it is behind (``answering``: Kafka told it so, or
        answered something else, lately), its progress ``progress`` (a number that changes
        as the partitions it waits for are read; by default, as any position moves). Once
        no position has moved for
        ``readstall.REPLACE_AFTER`` seconds of such looks, a new consumer takes the old
        one's place where its records stop (the consumer's positions are its own: read
        without a broker), so nothing is applied twice or missed; the old one is closed on a
        thread of its own (a client with no broker may take long to close). Whether it was
        replaced. Called by the thread that polls."""
        if not self._stall.look(
            self.progress if progress is None else progress, now, answering=answering
        ):
            return False
        log.warning(
            "the reader of %s has read nothing for %.0fs with Kafka answering: a new consumer "
            "takes its place",
            ", ".join(self.topics),
            self._stall.seconds,
        )
        self.advance()
        old, self._consumer = self._consumer, clients.consumer(self._config, self._settings)
        self._assign()
        close_in_background(old, wait=0)
        self._stall.clear()
        self.renewals += 1
        return True

    def settled(self) -> None:
        """Not behind, or Kafka not answering: the stall clock starts again from nothing."""
        self._stall.clear()

    def close(self) -> None:
        self._consumer.close()


def read_compacted(config: ClientConfig, topic: str, timeout: float = 60.0) -> dict[bytes, bytes]:
    """A compacted topic folded into its latest value per key (tombstones drop the key)."""
    latest: dict[bytes, bytes] = {}

    def fold(_topic: str, _partition: int, key: bytes, value: bytes | None, _ts: int) -> None:
        if value is None:
            latest.pop(key, None)
        else:
            latest[key] = value

    reader = CompactedReader(config, [topic], wait_for_topics=0)
    try:
        reader.catch_up(fold, timeout)
    finally:
        reader.close()
    return latest


__all__ = [
    "ApplyRecord",
    "CompactedReader",
    "MissingTopic",
    "Partition",
    "read_compacted",
]


def _answers(futures: Mapping[Any, Future[Any]], wait: float) -> dict[Partition, int]:
    """The offsets a list_offsets request answered. Its futures are waited for a bounded time:
    an admin client made while the process found Kafka away once left them unanswered for
    good, and an MQCLOSE holding its connection's lock hung with it (a clean-clone run)."""
    try:
        return {
            (tp.topic, tp.partition): f.result(timeout=wait).offset for tp, f in futures.items()
        }
    except FutureTimeout:
        error = clients.KafkaError(clients.KafkaError._TIMED_OUT, "list_offsets: no answer")
        raise clients.KafkaException(error) from None
