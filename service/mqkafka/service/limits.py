"""How large a record each topic takes, asked of the cluster (issue 19: no message stops the
service).

A record larger than its topic's ``max.message.bytes``, or than the producer's own
``message.max.bytes``, is refused: at ``produce()`` or when the transaction commits, and the
same record is refused again on every retry of its batch. So every record the service writes
is measured first, against the smaller of the two limits:

* librdkafka refuses a record whose framing bound (36 bytes), key, value and headers (each
  header its name, its value and two varints) exceed ``message.max.bytes``;
* the broker refuses a record batch larger than the topic's ``max.message.bytes``; a batch
  of one record is the record plus the batch header (61 bytes). The measure is uncompressed,
  as MQ's MAXMSGL counts the message: a record that would only fit compressed is refused.

The per-record check is one dict lookup and one length compare: ``rooms`` holds, per topic,
the longest value that fits beside ``HEADROOM`` bytes of key and headers, more than any
record the service makes from the MQMD alone carries. A longer value, a topic not yet asked
about, or headers beyond the MQMD (forwarded from the publisher) take the exact measure,
``fits``.

Limits are asked with ``describe_configs``, for every topic known at once, when first needed
and again every ``refresh_seconds`` or after ``expire()`` (a transaction aborted: a limit may
have changed under it). A topic the cluster does not describe is taken at the size queue
topics are made with (the catalogue's ``[defaults.queue_config]`` ``max.message.bytes``, 5 MiB
shipped; Kafka's default where the catalogue sets none): the topics the service writes that
it cannot describe are queues, and a 1 MB guess dead-lettered their 1-4 MB copies.
The batch waits ``timeout`` at most for an answer, for all topics together; one that comes
later is taken before a later batch, without waiting. While the cluster does not answer, the
limits known are kept, that is said once (a debug line while Kafka is away: the loop says the
outage), and they are asked again after ``retry_seconds``, not before every batch.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from mqkafka.kafka.clients import MAX_RECORD_BYTES
from mqkafka.kafka.provision import queue_topic_config

log = logging.getLogger(__name__)

# librdkafka's bound on a v2 record's framing (RD_KAFKAP_MESSAGE_V2_MAX_OVERHEAD)
RECORD_OVERHEAD = 36
HEADER_OVERHEAD = 10  # a header's name and value lengths: two varints of at most 5 bytes
BATCH_OVERHEAD = 61  # a v2 record batch's own header, counted against max.message.bytes
PRODUCER_MAX_MESSAGE_BYTES = MAX_RECORD_BYTES  # every producer's default message.max.bytes
KAFKA_MAX_MESSAGE_BYTES = 1_048_588  # the broker's default max.message.bytes
# Key and headers of any record made from an MQMD: its 24 fields at their longest are under
# 1,900 bytes, a dead letter's mqk.* headers ~1,100 more, the key 24.
HEADROOM = 4096
RETRY_SECONDS = 30.0  # after an ask the cluster did not answer, limits are asked again after this
# Seconds the cluster may take to answer an ask: the batch waits for it only ``timeout`` (5 s),
# later batches take a later answer (under load one took longer than 5 s).
REQUEST_TIMEOUT = 60.0

Header = tuple[str, bytes | None]


def assumed_topic_bytes(queue_config: Mapping[str, str] | None = None) -> int:
    """The ``max.message.bytes`` taken for a topic the cluster does not describe: the one
    queue topics are made with (``queue_config``, the catalogue's by default), else Kafka's."""
    config = queue_topic_config() if queue_config is None else queue_config
    value = config.get("max.message.bytes")
    return int(value) if value is not None else KAFKA_MAX_MESSAGE_BYTES


def wire_size(value: bytes | None, key: bytes | None, headers: Sequence[Header] | None) -> int:
    """An upper bound of a record's size as both limits count it (never less than theirs)."""
    size = RECORD_OVERHEAD + len(value or b"") + len(key or b"")
    for name, header in headers or ():
        size += len(name.encode()) + len(header or b"") + HEADER_OVERHEAD
    return size


def headers_size(headers: Iterable[Header]) -> int:
    """What ``headers`` add to a record's ``wire_size``."""
    return sum(len(name.encode()) + len(value or b"") + HEADER_OVERHEAD for name, value in headers)


class TopicLimits:
    """Per topic: the largest record it takes (``limit``) and the per-record fast bound
    (``rooms``). ``admin`` is a confluent-kafka AdminClient (only ``describe_configs``);
    ``assumed``: the ``max.message.bytes`` of a topic it does not describe
    (:func:`assumed_topic_bytes` when not given)."""

    def __init__(
        self,
        admin: Any,
        *,
        producer_max: int = PRODUCER_MAX_MESSAGE_BYTES,
        refresh_seconds: float = 300.0,
        retry_seconds: float = RETRY_SECONDS,
        timeout: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        assumed: int | None = None,
    ) -> None:
        self._admin = admin
        self._assumed = assumed_topic_bytes() if assumed is None else assumed
        self.producer_max = producer_max
        self.refresh_seconds = refresh_seconds
        self.retry_seconds = retry_seconds
        self._timeout = timeout
        self._clock = clock
        self.rooms: dict[str, int] = {}  # topic → longest value with HEADROOM beside it
        self._limits: dict[str, int] = {}  # topic → largest wire_size it takes
        self._asked_at = clock()
        self.generation = 0  # moves whenever a known limit changes
        self._unanswered = False  # no answer lately: no wait for the next, none hurried
        self._said = False  # said once while the cluster does not answer, not per ask
        # answers on their way: per topic, when it was asked and its answer to come
        self._pending: dict[str, tuple[float, Future[Any]]] = {}

    def limit(self, topic: str) -> int:
        limit = self._limits.get(topic)
        if limit is None:
            if topic in self._pending:  # asked ahead (prefetch): its answer is on its way
                self._collect(wait=0.0 if self._unanswered else self._timeout)
            if topic not in self._limits:  # asked alone; Kafka's default if no answer in time
                self._ask([topic])
            limit = self._limits[topic]
        return limit

    def learn(self, topics: Iterable[str]) -> None:
        """These topics' limits in one ask (one wait of ``timeout`` at most), unless known or
        on their way: a first publication to 1,000 queues asked 1,000 times, in turn."""
        wanted = [t for t in dict.fromkeys(topics) if t not in self._limits]
        if any(t in self._pending for t in wanted):
            self._collect(wait=0.0 if self._unanswered else self._timeout)
        new = [t for t in wanted if t not in self._limits and t not in self._pending]
        if new:
            self._ask(new)

    def prefetch(self, topics: Iterable[str]) -> None:
        """Ask now and take the answers when a record needs them, without waiting here: the
        service asks for every queue as it starts, so a first publication to many queues
        finds their limits answered."""
        new = [t for t in dict.fromkeys(topics) if t not in self._limits and t not in self._pending]
        if not new or self._unanswered:
            return
        from mqkafka.kafka.clients import ConfigResource

        sent_at = self._clock()
        try:
            futures = self._admin.describe_configs(
                [ConfigResource(ConfigResource.Type.TOPIC, topic) for topic in new],
                request_timeout=REQUEST_TIMEOUT,
            )
        except Exception:  # asked again when a record needs it
            return
        self._pending.update((r.name, (sent_at, f)) for r, f in futures.items())

    def fits(self, topic: str, value: bytes | None, key: bytes | None, headers: Any) -> bool:
        """The exact measure (see the module doc)."""
        return wire_size(value, key, headers) <= self.limit(topic)

    def expire(self) -> None:
        """Ask again before the next batch (``refresh_if_due``), unless an ask is on its way or
        went unanswered lately (every abort of an outage would wait ``timeout`` again)."""
        if not self._pending and not self._unanswered:
            self._asked_at = float("-inf")

    def refresh_if_due(self) -> None:
        """Before a batch: answers come since are taken; every known topic is asked again
        when due. Never raises, and waits ``timeout`` at most."""
        if self._pending:
            self._collect(wait=0.0)
        elif self._limits and self._clock() - self._asked_at >= self.refresh_seconds:
            self._asked_at = self._clock()
            self._ask(list(self._limits))

    def _ask(self, topics: list[str]) -> None:
        from mqkafka.kafka.clients import ConfigResource

        sent_at = self._clock()
        try:
            futures = self._admin.describe_configs(
                [ConfigResource(ConfigResource.Type.TOPIC, topic) for topic in topics],
                request_timeout=REQUEST_TIMEOUT,
            )
        except Exception as error:  # the request could not be made: keep what is known
            self._unanswered_ask(error)
        else:
            self._pending.update((r.name, (sent_at, f)) for r, f in futures.items())
            # no wait while the cluster is known not to answer: a later batch takes the answer
            self._collect(wait=0.0 if self._unanswered else self._timeout)
        # a topic first met is taken at Kafka's default until its answer comes
        self._apply([topic for topic in topics if topic not in self._limits], {})

    def _collect(self, wait: float) -> None:
        """Takes the answers come within ``wait`` seconds, one wait for all topics (a wait per
        topic made the batch wait ``timeout`` times the topics)."""
        from mqkafka.kafka.clients import is_away

        deadline = self._clock() + wait
        found: dict[str, int] = {}
        unanswered: BaseException | None = None
        for topic, (sent_at, future) in list(self._pending.items()):
            try:
                entry = future.result(max(0.0, deadline - self._clock()))["max.message.bytes"]
                found[topic] = int(entry.value)
            except TimeoutError:
                if self._clock() - sent_at < REQUEST_TIMEOUT:
                    continue  # not yet: taken before a later batch
                unanswered = unanswered or TimeoutError(f"no answer in {REQUEST_TIMEOUT:.0f}s")
            except Exception as error:
                failure = error.args[0] if error.args else None
                if is_away(failure):  # no answer from the cluster, not this topic's own
                    unanswered = unanswered or error
                else:  # this topic only: not there (yet), not allowed
                    log.debug("max.message.bytes of %s unknown: %s", topic, error)
            del self._pending[topic]
        if unanswered is not None:
            self._unanswered_ask(unanswered)
        elif wait > 0 and self._pending:  # slow (under load): taken when it comes
            log.debug("topic limits not answered in %.0fs: taken when they come", wait)
            self._unanswered_ask(None)
        elif found:
            self._unanswered = self._said = False
        self._apply(list(found), found)

    def _unanswered_ask(self, error: BaseException | None) -> None:
        """No answer in the batch's wait, or (``error``) none at all: the latter said once
        until the cluster answers again. Answers on their way are still taken; the limits are
        asked again ``retry_seconds`` after, without a wait (``expire`` does not hurry that)."""
        from mqkafka.kafka.clients import say_away
        from mqkafka.kafka.txrecovery import kafka_away

        if error is not None and not self._said:
            said = (
                "could not ask the cluster for topic limits (%s): the known ones are kept until "
                "it answers"
            )
            if kafka_away():
                log.debug(said, error)
            else:  # often an outage's first line: librdkafka's next ones on it are held back
                say_away(log, said, error)
            self._said = True
        self._unanswered = True
        retry_at = self._clock() - self.refresh_seconds + self.retry_seconds
        self._asked_at = min(self._asked_at, retry_at)  # not put off by a later failure

    def _apply(self, topics: list[str], found: dict[str, int]) -> None:
        """Each of ``topics`` at its answered limit (``found``), or, if never known, at
        the size queue topics are made with (``assumed``)."""
        changed = False
        for topic in topics:
            if topic in found:
                limit = min(self.producer_max, found[topic] - BATCH_OVERHEAD)
            elif topic in self._limits:
                continue
            else:
                limit = min(self.producer_max, self._assumed - BATCH_OVERHEAD)
            old = self._limits.get(topic)
            if old != limit:
                changed = changed or old is not None
                self._limits[topic] = limit
                self.rooms[topic] = limit - HEADROOM
        if changed:
            self.generation += 1


class FixedLimits(TopicLimits):
    """One limit for every topic, never asked of a cluster (tests, benchmarks)."""

    def __init__(self, limit: int = PRODUCER_MAX_MESSAGE_BYTES) -> None:
        super().__init__(None, producer_max=limit, refresh_seconds=float("inf"), assumed=limit)

    def prefetch(self, topics: Iterable[str]) -> None:
        self._ask(list(topics))

    def _ask(self, topics: list[str]) -> None:
        for topic in topics:
            self._limits[topic] = self.producer_max
            self.rooms[topic] = self.producer_max - HEADROOM

    def set(self, topic: str, limit: int) -> None:
        """Change one topic's limit, as an operator's ``max.message.bytes`` would."""
        self._limits[topic] = limit
        self.rooms[topic] = limit - HEADROOM
        self.generation += 1
