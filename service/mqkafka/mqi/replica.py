"""Every client's copy of the queue manager's shared state, read from two compacted topics.

``mqk-queues`` (the catalogue: queue definitions) and ``mqk-connections`` (heartbeats) are
tailed by one background thread into a :class:`Catalogue` and a :class:`ConnectionTable`.

- :meth:`StateReplica.sync` is the barrier MQOPEN and MQCLOSE use before deciding anything:
  it waits until everything written to both topics up to now has been applied, so a queue
  another client created a moment ago, or a handle it just opened, is seen.
- :meth:`StateReplica.write` writes a record and waits until this replica has applied it:
  a client always sees its own definitions (read your writes).

The hot path (MQPUT/MQGET asking "was my queue deleted?") reads the tables without waiting;
a deletion by another client reaches it within a poll interval (about 50 ms).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Producer, TopicPartition

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.admin import QueueAdmin, broken
from mqkafka.mqi.catalogue import Catalogue, CatalogueRecord, QueueDefinition
from mqkafka.mqi.heartbeat import ConnectionTable
from mqkafka.mqi.settings import Settings

log = logging.getLogger(__name__)

COMPACTED = {"cleanup.policy": "compact", "min.cleanable.dirty.ratio": "0.1"}
STATE_TOPIC_CONFIG = {
    # catalogue: definitions keyed by queue name (as topics/catalogue.toml's state topics)
    "catalogue": {**COMPACTED, "segment.ms": "3600000"},
    # heartbeats: broker time, so liveness never compares two machines' clocks; segments
    # roll every minute so compaction keeps what a connecting client replays small
    "connections": {
        **COMPACTED,
        "message.timestamp.type": "LogAppendTime",
        "segment.ms": "60000",
        "delete.retention.ms": "60000",
    },
}


def ensure_state_topics(admin: QueueAdmin, settings: Settings) -> None:
    """Create the two state topics where missing (the same entries as topics/catalogue.toml)."""
    for topic, kind in (
        (settings.catalogue_topic, "catalogue"),
        (settings.connections_topic, "connections"),
    ):
        if admin.partitions_of(topic) is None:
            admin.create_topic(topic, 1, STATE_TOPIC_CONFIG[kind])


class StateReplica:
    """The tailing thread, its two tables, and the writer of both topics."""

    def __init__(self, settings: Settings, admin: QueueAdmin) -> None:
        self.settings = settings
        self.admin = admin
        self.catalogue = Catalogue()
        self.connections = ConnectionTable(settings.liveness_timeout)
        self._topics = (settings.catalogue_topic, settings.connections_topic)
        self._applied: dict[tuple[str, int], int] = {}
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._error: BaseException | None = None
        base = {"bootstrap.servers": settings.bootstrap_servers}
        self._consumer = Consumer(
            {
                **base,
                "group.id": f"mqk-mqi-replica-{uuid.uuid4().hex}",  # assign only, never commits
                "enable.auto.commit": False,
                "fetch.wait.max.ms": 50,
                "fetch.error.backoff.ms": 20,
                "isolation.level": "read_committed",
            }
        )
        self._partitions: list[TopicPartition] = []
        for topic in self._topics:
            count = admin.partitions_of(topic)
            deadline = time.monotonic() + 10
            while count is None and time.monotonic() < deadline:
                time.sleep(0.2)  # created a moment ago: metadata still on its way
                count = admin.partitions_of(topic)
            if count is None:
                raise MQError(RC.Q_MGR_NOT_AVAILABLE, f"state topic {topic} does not exist")
            self._partitions += [TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(count)]
        self._consumer.assign(self._partitions)
        # Watermarks are asked by callers' threads; the tailing consumer stays the thread's own.
        self._marks = Consumer({**base, "group.id": f"mqk-mqi-marks-{uuid.uuid4().hex}"})
        self._marks_lock = threading.Lock()
        self._producer = Producer(
            {**base, "acks": "all", "enable.idempotence": True, "linger.ms": 0}
        )
        self._thread = threading.Thread(target=self._run, name="mqk-mqi-replica", daemon=True)
        self._thread.start()

    # ---- the tailing thread ----

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                records = self._consumer.consume(1000, 0.1)
                if not records:
                    continue
                with self._cond:
                    for record in records:
                        if record.error() is not None:
                            continue
                        self._apply(record)
                        key = (record.topic(), record.partition())
                        self._applied[key] = record.offset() + 1
                    self._cond.notify_all()
        except BaseException as error:  # surfaced to the application by sync()/write()
            self._error = error
            with self._cond:
                self._cond.notify_all()
        finally:
            self._consumer.close()

    def _apply(self, record: object) -> None:
        topic = record.topic()  # type: ignore[attr-defined]
        raw_key = record.key()  # type: ignore[attr-defined]
        value = record.value()  # type: ignore[attr-defined]
        if raw_key is None:
            return
        if topic == self.settings.catalogue_topic:
            try:
                self.catalogue.apply(CatalogueRecord(raw_key, value))
            except MQError as error:
                log.warning("skipping a damaged catalogue record %r: %s", raw_key, error)
            return
        _, stamp = record.timestamp()  # type: ignore[attr-defined]
        self.connections.apply(raw_key.decode("utf-8", "replace"), value, stamp / 1000.0)

    # ---- barriers ----

    def _check(self) -> None:
        if self._error is not None:
            raise MQError(RC.CONNECTION_BROKEN, f"state replica stopped: {self._error}")

    def sync(self, timeout: float = 30.0) -> None:
        """Wait until every record written so far to both topics has been applied."""
        targets: dict[tuple[str, int], int] = {}
        with self._marks_lock:
            for tp in self._partitions:
                try:
                    _, high = self._marks.get_watermark_offsets(
                        TopicPartition(tp.topic, tp.partition), timeout=timeout, cached=False
                    )
                except KafkaException as error:
                    raise broken(error, "reading the catalogue") from None
                targets[(tp.topic, tp.partition)] = high
        self._wait(targets, timeout)

    def _wait(self, targets: dict[tuple[str, int], int], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while any(self._applied.get(k, 0) < v for k, v in targets.items() if v > 0):
                self._check()
                left = deadline - time.monotonic()
                if left <= 0:
                    raise MQError(RC.CONNECTION_BROKEN, "the catalogue did not catch up in time")
                self._cond.wait(min(left, 0.5))
            self._check()

    def write(self, topic: str, key: bytes, value: bytes | None, *, wait: bool = True) -> None:
        """Write one record; with ``wait``, return once this replica has applied it."""
        self._check()
        delivered: list[object] = []

        def on_delivery(error: object, message: object) -> None:
            delivered.append(error if error is not None else message)

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
        with self._marks_lock:
            self._marks.close()


OnTick = Callable[[], None]

__all__ = ["StateReplica", "ensure_state_topics"]
