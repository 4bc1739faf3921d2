"""Every client's copy of the queue manager's shared state, read from two compacted topics.

``mqk-queues`` (the catalogue: queue definitions) and ``mqk-connections`` (heartbeats) are
tailed by one background thread into a :class:`Catalogue` and a :class:`ConnectionTable`.

- :meth:`StateReplica.sync` is the barrier MQOPEN and MQCLOSE use before deciding anything:
  it waits until everything written to both topics up to now has been applied, so a queue
  another client created a moment ago, or a handle it just opened, is seen.
- :meth:`StateReplica.write` writes a record and waits until this replica has applied it:
  a client always sees its own definitions (read your writes).

The hot path (MQPUT/MQGET asking "was my queue deleted?") reads the tables without waiting;
a deletion by another client reaches it within a poll interval (about 50 ms). MQPUT to a
permanent dynamic queue (any connection may delete it) first waits for the catalogue alone
(:meth:`StateReplica.sync_catalogue`): one list-offsets request.

A consumer that reads nothing while Kafka answers (librdkafka 2.16 can leave one with no
broker after an outage, for good) is replaced as the service's state reader's is
(``kafka.readstall``, ``CompactedReader.watch``). The tailing thread knows it is behind from
what Kafka told this replica, asking nothing more of it: the offsets of the records it wrote
(every connection's heartbeat, each ``heartbeat_interval``) and the end offsets its barriers
asked.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from mqkafka.kafka import clients
from mqkafka.kafka.compacted import ApplyRecord, CompactedReader, MissingTopic, Partition
from mqkafka.kafka.provision import (
    ProvisionError,
    apply_catalogue,
    load_catalogue,
    with_state_topics,
)
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm.admin import QueueAdmin, broken
from mqkafka.mqi.kafkaqm.browsebarrier import request_seen
from mqkafka.mqi.kafkaqm.cataloguereader import apply_catalogue_record
from mqkafka.mqi.kafkaqm.heartbeat import ConnectionTable
from mqkafka.mqi.kafkaqm.settings import Settings
from mqkafka.mqi.rules.catalogue import Catalogue, CatalogueRecord, QueueDefinition
from mqkafka.state.kinds import MQI_CHANGELOGS

MQI_TOPICS = frozenset(c.topic for c in MQI_CHANGELOGS)  # the state registry's MQI topics

# A poll waits its whole timeout unless 1000 records come, and sync() waits for the poll
# that applies the records it waits for: 10 ms, not 100 ms, per MQOPEN/MQCLOSE/MQCMIT barrier.
POLL = 0.01
# Seconds after Kafka last answered this replica (a record written, a barrier's end offsets)
# during which its being behind with nothing read counts against its consumer: a few
# heartbeats, so that an outage's time does not.
ANSWERED_WITHIN = 10.0

log = logging.getLogger(__name__)


def ensure_state_topics(admin: QueueAdmin, settings: Settings) -> None:
    """The MQI's state topics (the state registry's ``MQI_CHANGELOGS``) as
    topics/catalogue.toml declares them: created where missing (unless ``create_topics`` is
    off), refused if not compacted."""
    mine = [s for s in with_state_topics(load_catalogue(), MQI_CHANGELOGS) if s.name in MQI_TOPICS]
    try:
        apply_catalogue(
            admin.client,
            prefix=settings.namespace,
            specs=mine,
            create=settings.create_topics,
            timeout=settings.admin_timeout,
        )
    except ProvisionError as error:
        raise MQError(RC.Q_MGR_NOT_AVAILABLE, str(error)) from None
    except clients.KafkaException as error:
        raise broken(error, "creating the queue manager's topics") from None


class StateReplica:
    """The tailing thread, its two tables, and the writer of both topics."""

    def __init__(self, settings: Settings, admin: QueueAdmin) -> None:
        self.settings = settings
        self.admin = admin
        self.catalogue = Catalogue()
        self.connections = ConnectionTable(settings.liveness_timeout)
        self.connections.on_request = request_seen  # a browse elsewhere asks our getters
        self._topics = (settings.catalogue_topic, settings.connections_topic)
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._error: BaseException | None = None
        # what Kafka said stands in the topics and this replica has not read yet, when it last
        # answered, and whether it failed to since: written by any thread, under _said
        self._said = threading.Lock()
        self._wanted: dict[Partition, int] = {}
        self._answered = -1e9
        self._refused = False
        try:
            self._reader = CompactedReader(
                settings.client,
                self._topics,
                admin=admin.client,
                role={"fetch.wait.max.ms": 50, "fetch.error.backoff.ms": 20},
            )
        except MissingTopic as error:
            raise MQError(RC.Q_MGR_NOT_AVAILABLE, str(error)) from None
        self._producer = clients.producer(
            settings.client, {"acks": "all", "enable.idempotence": True, "linger.ms": 0}
        )
        self._thread = threading.Thread(target=self._run, name="mqk-mqi-replica", daemon=True)
        self._thread.start()

    # ---- the tailing thread ----

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                arrived: list[tuple[str, int, bytes, bytes | None, int]] = []
                self._reader.poll(_collect(arrived), POLL, 1000)
                with self._cond:
                    for record in arrived:
                        self._apply(*record)
                    # positions step over transaction markers too: what sync() waits for
                    self._reader.advance()
                    if self._wanted:
                        self._watch_reading()
                    self._cond.notify_all()
        except BaseException as error:  # surfaced to the application by sync()/write()
            self._error = error
            with self._cond:
                self._cond.notify_all()
        finally:
            self._reader.close()

    def _watch_reading(self) -> None:
        """Behind what Kafka said stands in the topics: the reader's stall clock is looked
        at (it counts while Kafka answered within ``ANSWERED_WITHIN``), and its consumer
        replaced when nothing has been read for ``readstall.REPLACE_AFTER`` seconds so."""
        reader = self._reader
        with self._said:
            self._wanted = {tp: end for tp, end in self._wanted.items() if reader.at(tp) < end}
            behind, answered, refused = bool(self._wanted), self._answered, self._refused
            self._refused = False
            # the partitions waited for, read (a consumer some of whose partitions fetch and
            # others not is stuck as well)
            progress = sum(reader.at(tp) for tp in self._wanted)
        if refused or not behind:  # as the service's reader: a refusal clears the count
            reader.settled()
            return
        now = time.monotonic()
        reader.watch(now, answering=now - answered < ANSWERED_WITHIN, progress=progress)

    def _kafka_said(self, ends: Mapping[Partition, int]) -> None:
        """Kafka answered: its records stand up to ``ends`` (exclusive), for this replica to
        read."""
        with self._said:
            self._answered = time.monotonic()
            for tp, end in ends.items():
                if end > self._wanted.get(tp, 0):
                    self._wanted[tp] = end

    def _kafka_refused(self) -> None:
        with self._said:
            self._answered, self._refused = -1e9, True

    def _apply(self, topic: str, _partition: int, key: bytes, value: bytes | None, ts: int) -> None:
        if topic == self.settings.catalogue_topic:
            apply_catalogue_record(self.catalogue, key, value)
            return
        self.connections.apply(key.decode("utf-8", "replace"), value, ts / 1000.0)

    # ---- barriers ----

    def _check(self) -> None:
        if self._error is not None:
            raise MQError(RC.CONNECTION_BROKEN, f"state replica stopped: {self._error}")

    def sync(self, timeout: float = 30.0) -> None:
        """Wait until every record written so far to both topics has been applied."""
        targets = self._end_offsets()
        self._wait(targets, timeout)

    def sync_catalogue(self, timeout: float = 30.0) -> None:
        """Wait until every queue definition written so far has been applied (not the
        heartbeats, written all the time): what MQPUT to a queue another connection may
        delete asks first, so that a delete that has returned is seen (issue 35)."""
        targets = self._end_offsets()
        topic = self.settings.catalogue_topic
        self._wait({k: v for k, v in targets.items() if k[0] == topic}, timeout)

    def _end_offsets(self) -> dict[Partition, int]:
        try:
            targets = self._reader.end_offsets(attempts=3)
        except clients.KafkaException as error:
            self._kafka_refused()
            raise broken(error, "reading the catalogue") from None
        self._kafka_said(targets)
        return targets

    def _wait(self, targets: dict[tuple[str, int], int], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while any(self._reader.at(k) < v for k, v in targets.items() if v > 0):
                self._check()
                left = deadline - time.monotonic()
                if left <= 0:
                    raise MQError(RC.CONNECTION_BROKEN, "the catalogue did not catch up in time")
                self._cond.wait(min(left, 0.5))
            self._check()

    def wait_until(self, done: Callable[[], bool], timeout: float) -> bool:
        """Wait up to ``timeout`` seconds, looking again after each batch this replica
        applies, until ``done()`` holds (the browse barrier's answers); whether it did."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not done():
                self._check()
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.5))
        return True

    def write(self, topic: str, key: bytes, value: bytes | None, *, wait: bool = True) -> None:
        """Write one record; with ``wait``, return once this replica has applied it."""
        self._check()
        delivered: list[object] = []

        def on_delivery(error: object, message: Any) -> None:
            delivered.append(error if error is not None else message)
            if error is not None:
                self._kafka_refused()
            else:
                self._kafka_said({(message.topic(), message.partition()): message.offset() + 1})

        self._producer.produce(topic, key=key, value=value, on_delivery=on_delivery)
        if not wait:
            self._producer.poll(0)
            return
        self._producer.flush(30)
        if not delivered or not hasattr(delivered[0], "offset"):
            raise MQError(RC.CONNECTION_BROKEN, f"could not write to {topic}: {delivered}")
        message = delivered[0]
        self._wait(
            {(topic, message.partition()): message.offset() + 1},  # type: ignore[attr-defined]
            30.0,
        )

    # ---- the catalogue ----

    def define(self, definition: QueueDefinition) -> None:
        record = CatalogueRecord.put(definition)
        self.write(self.settings.catalogue_topic, record.key, record.value)

    def undefine(self, name: str) -> None:
        record = CatalogueRecord.delete(name)
        self.write(self.settings.catalogue_topic, record.key, None)

    def lookup(self, name: str) -> QueueDefinition | None:
        return self.catalogue.get(name)

    def flush(self, timeout: float = 30.0) -> None:
        self._producer.flush(timeout)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        self._producer.flush(10)


def _collect(into: list[tuple[str, int, bytes, bytes | None, int]]) -> ApplyRecord:
    def collect(topic: str, partition: int, key: bytes, value: bytes | None, ts: int) -> None:
        into.append((topic, partition, key, value, ts))

    return collect


OnTick = Callable[[], None]

__all__ = ["StateReplica", "ensure_state_topics"]
