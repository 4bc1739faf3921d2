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
from typing import Any

from mqkafka.engine.effects import (
    DeleteRetained,
    DeregisterPublisher,
    RegisterPublisher,
    RemoveSubscription,
    Retain,
    StoreSubscription,
)
from mqkafka.engine.state import EngineState
from mqkafka.kafka.compacted import CompactedReader, Partition
from mqkafka.mq.errors import MQError
from mqkafka.service.config import (
    PUBLISHERS_TOPIC,
    RETAINED_TOPIC,
    SUBSCRIPTIONS_TOPIC,
    ServiceConfig,
)
from mqkafka.state import codec

log = logging.getLogger(__name__)


class EngineStateReplica:
    """The engine state of one worker, fed by the shared compacted-topic reader."""

    def __init__(
        self,
        config: ServiceConfig,
        state: EngineState,
        admin: Any,
        offsets: dict[Partition, int] | None = None,
    ) -> None:
        self.state = state
        self.subscriptions_topic = config.topic(SUBSCRIPTIONS_TOPIC)
        self.retained_topic = config.topic(RETAINED_TOPIC)
        self.publishers_topic = config.topic(PUBLISHERS_TOPIC)
        self._reader = CompactedReader(
            config.client,
            (self.subscriptions_topic, self.retained_topic, self.publishers_topic),
            admin=admin,
            positions=offsets,
        )
        self.applied = 0
        self.catch_ups = 0

    @property
    def positions(self) -> dict[Partition, int]:
        return self._reader.positions

    # --- the barrier -------------------------------------------------------------------
    def end_offsets(self) -> dict[Partition, int]:
        """The last stable offset of every state partition (read_committed), in one request."""
        return self._reader.end_offsets()

    def catch_up(self, timeout: float = 60.0) -> int:
        """Read every state partition up to its current last stable offset."""
        applied = self._reader.catch_up(self._apply, timeout)
        self.catch_ups += 1
        return applied

    def _apply(
        self, topic: str, _partition: int, key: bytes, value: bytes | None, _ts: int
    ) -> None:
        self.apply_record(topic, key, value)

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
        self._reader.close()
