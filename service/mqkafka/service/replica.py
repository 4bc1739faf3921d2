"""Every worker's copy of the shared state, kept in step with the compacted state topics.

Subscriptions, retained publications and publisher registrations are written (in the same
transaction as the replies and deliveries that depend on them) to ``mqk-subscriptions``,
``mqk-retained`` and ``mqk-publishers``. Every worker reads all partitions of those topics
with ``read_committed`` and applies what it reads to its ``EngineState``.

``catch_up()`` is the consistency barrier: it asks the cluster for the last stable offset of
every state partition and reads up to it. The dispatcher calls it before each batch, so a
publication put after a RegSub (or DeregSub) reply arrived is matched against a state that
includes that subscription (or its removal): the reply only became visible when the
transaction holding the subscription record committed, which is before the publication's
batch asked for the offsets.

A worker's own records come back here too; they equal what it already applied and are
skipped. Tombstones name their key in the record key (``mqkafka.state.codec`` parses it).
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

from confluent_kafka import Consumer, IsolationLevel, KafkaException, TopicPartition
from confluent_kafka.admin import OffsetSpec

from mqkafka.engine.effects import (
    DeleteRetained,
    DeregisterPublisher,
    RegisterPublisher,
    RemoveSubscription,
    Retain,
    StoreSubscription,
)
from mqkafka.engine.state import EngineState
from mqkafka.mq.errors import MQError
from mqkafka.service.config import (
    PUBLISHERS_TOPIC,
    RETAINED_TOPIC,
    SUBSCRIPTIONS_TOPIC,
    ServiceConfig,
)
from mqkafka.state import codec

log = logging.getLogger(__name__)

OFFSET_BEGINNING = -2


class StateReplica:
    def __init__(
        self,
        config: ServiceConfig,
        state: EngineState,
        admin: Any,
        offsets: dict[tuple[str, int], int] | None = None,
    ) -> None:
        self.state = state
        self._admin = admin
        self.subscriptions_topic = config.topic(SUBSCRIPTIONS_TOPIC)
        self.retained_topic = config.topic(RETAINED_TOPIC)
        self.publishers_topic = config.topic(PUBLISHERS_TOPIC)
        self._consumer = Consumer(
            {
                "bootstrap.servers": config.bootstrap,
                "group.id": f"mqk-replica-{uuid.uuid4().hex}",  # never commits: assign only
                "enable.auto.commit": False,
                "isolation.level": "read_committed",
                "fetch.wait.max.ms": 5,
                "queued.min.messages": 50000,
            }
        )
        self._partitions = self._discover()
        self.positions: dict[tuple[str, int], int] = {
            tp: (offsets or {}).get(tp, OFFSET_BEGINNING) for tp in self._partitions
        }
        self._consumer.assign(
            [TopicPartition(t, p, self.positions[(t, p)]) for t, p in self._partitions]
        )
        self.applied = 0
        self.catch_ups = 0

    def _discover(self) -> list[tuple[str, int]]:
        topics = (self.subscriptions_topic, self.retained_topic, self.publishers_topic)
        metadata = self._admin.list_topics(timeout=30)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(
            t not in metadata.topics or metadata.topics[t].error is not None for t in topics
        ):
            time.sleep(0.2)  # created a moment ago: metadata still on its way
            metadata = self._admin.list_topics(timeout=30)
        partitions: list[tuple[str, int]] = []
        for topic in topics:
            found = metadata.topics.get(topic)
            if found is None or found.error is not None:
                raise RuntimeError(f"state topic {topic} is missing: run 'mqk topics apply'")
            partitions.extend((topic, p) for p in sorted(found.partitions))
        return partitions

    # --- the barrier -------------------------------------------------------------------
    def end_offsets(self) -> dict[tuple[str, int], int]:
        """The last stable offset of every state partition (read_committed), in one request."""
        request = {TopicPartition(t, p): OffsetSpec.latest() for t, p in self._partitions}
        for attempt in range(20):
            try:
                futures = self._admin.list_offsets(
                    request, isolation_level=IsolationLevel.READ_COMMITTED, request_timeout=10
                )
                return {(tp.topic, tp.partition): f.result().offset for tp, f in futures.items()}
            except KafkaException as error:  # leadership moving: ask again shortly
                if attempt == 19:
                    raise
                log.debug("list_offsets: %s", error)
                time.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    def catch_up(self, timeout: float = 60.0) -> int:
        """Read every state partition up to its current last stable offset.

        Progress is the consumer's own position, which (unlike "last record + 1") also steps
        over the transaction markers that end every committed batch of state records.
        """
        ends = self.end_offsets()
        behind = {tp for tp, end in ends.items() if self._at(tp) < end}
        applied = 0
        deadline = time.monotonic() + timeout
        while behind:
            if time.monotonic() > deadline:
                raise TimeoutError(f"state replica could not catch up on {sorted(behind)}")
            for message in self._consumer.consume(20000, 0.05):
                error = message.error()
                if error is not None:
                    if error.code() != -191:  # _PARTITION_EOF
                        log.warning("state replica: %s", error)
                    continue
                self.apply_record(message.topic(), message.key(), message.value())
                applied += 1
            for position in self._consumer.position([TopicPartition(t, p) for t, p in behind]):
                if position.offset >= 0:
                    self.positions[(position.topic, position.partition)] = position.offset
            behind = {tp for tp in behind if self._at(tp) < ends[tp]}
        self.catch_ups += 1
        return applied

    def _at(self, tp: tuple[str, int]) -> int:
        """Where reading stands; "from the beginning" counts as 0 (an empty log is read)."""
        return max(self.positions.get(tp, 0), 0)

    # --- applying records --------------------------------------------------------------
    def apply_record(self, topic: str, key: bytes | None, value: bytes | None) -> None:
        if key is None:
            return
        try:
            if topic == self.subscriptions_topic:
                self._apply_subscription(key, value)
            elif topic == self.retained_topic:
                self._apply_retained(key, value)
            elif topic == self.publishers_topic:
                self._apply_publisher(key, value)
        except MQError as error:
            # A record this version cannot read must not stop the broker: skip it, loudly.
            log.error("state record on %s skipped: %s", topic, error)
            return
        self.applied += 1

    def _apply_subscription(self, key: bytes, value: bytes | None) -> None:
        if value is None:
            sub_key = codec.parse_subscription_key(key)
            if self.state.subscription(sub_key) is not None:
                self.state.apply([RemoveSubscription(sub_key)])
            return
        sub = codec.decode_subscription(value)
        if self.state.subscription(sub.key) != sub:
            self.state.apply([StoreSubscription(sub)])

    def _apply_retained(self, key: bytes, value: bytes | None) -> None:
        if value is None:
            namespace, topic = codec.parse_retained_key(key)
            if self.state.retained.get(namespace, topic) is not None:
                self.state.apply([DeleteRetained(namespace, topic)])
            return
        publication = codec.decode_retained(value)
        current = self.state.retained.get(publication.namespace, publication.topic.text)
        if current != publication:
            self.state.apply([Retain(publication)])

    def _apply_publisher(self, key: bytes, value: bytes | None) -> None:
        if value is None:
            pub_key = codec.parse_publisher_key(key)
            if self.state.publisher(pub_key) is not None:
                self.state.apply([DeregisterPublisher(pub_key)])
            return
        publisher = codec.decode_publisher(value)
        if self.state.publisher(publisher.key) != publisher:
            self.state.apply([RegisterPublisher(publisher)])

    def close(self) -> None:
        self._consumer.close()
