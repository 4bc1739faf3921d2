"""Every worker's copy of the shared state, kept in step with the compacted state topics.

Every registered state kind (``mqkafka.state.kinds``: subscriptions, retained publications,
publisher registrations) is written, in the same transaction as the replies and deliveries
that depend on it, to its compacted topic (``mqk-subscriptions``, ``mqk-retained``,
``mqk-publishers``). Every worker reads all partitions of those topics with
``read_committed`` and applies what it reads to its ``EngineState``, through the kind.

``catch_up()`` is the consistency barrier: it asks the cluster for the last stable offset of
every state partition and reads up to it. The dispatcher calls it before each batch, so a
publication put after a RegSub (or DeregSub) reply arrived is matched against a state that
includes that subscription (or its removal): the reply only became visible when the
transaction holding the subscription record committed, which is before the publication's
batch asked for the offsets.

A worker's own records come back here too; they equal what it already applied and are
skipped. Tombstones name their key in the record key (the kind parses it).
"""

from __future__ import annotations

import logging
from typing import Any

from mqkafka.engine.state import EngineState
from mqkafka.kafka.compacted import CompactedReader, Partition
from mqkafka.mq.errors import MQError
from mqkafka.service.config import ServiceConfig
from mqkafka.state.kinds import STATE_KINDS, AnyKind, StateKinds

log = logging.getLogger(__name__)

# Seconds the barrier before a batch may take (asking for the end offsets and reading to
# them); then a retriable error hands the batch to the loop, which waits for Kafka and says
# so, rather than the barrier blocking it (it retried 20 x 10 s, silently, before).
CATCH_UP_WAIT = 10.0


class StateRecords:
    """Applies consumed state-topic records to an engine state, each through its kind (no
    Kafka here: ``EngineStateReplica`` feeds it)."""

    def __init__(self, state: Any, topics: dict[str, AnyKind]) -> None:
        self.state = state
        self.topics = topics  # namespace-prefixed topic -> its kind
        self.applied = 0

    def apply_record(self, topic: str, key: bytes | None, value: bytes | None) -> None:
        kind = self.topics.get(topic)
        if key is None or kind is None:
            return
        try:
            kind.apply_record(self.state, key, value)
        except MQError as error:
            # A record this version cannot read must not stop the broker: skip it, loudly.
            log.error("state record on %s skipped: %s", topic, error)
            return
        self.applied += 1


class EngineStateReplica:
    """The engine state of one worker, fed by the shared compacted-topic reader."""

    def __init__(
        self,
        config: ServiceConfig,
        state: EngineState,
        admin: Any,
        offsets: dict[Partition, int] | None = None,
        kinds: StateKinds = STATE_KINDS,
    ) -> None:
        self.state = state
        self._records = StateRecords(state, kinds.topics(config.namespace))
        self._reader = CompactedReader(
            config.client, tuple(self._records.topics), admin=admin, positions=offsets
        )
        self.catch_ups = 0

    @property
    def applied(self) -> int:
        return self._records.applied

    @property
    def positions(self) -> dict[Partition, int]:
        return self._reader.positions

    # --- the barrier -------------------------------------------------------------------
    def end_offsets(self) -> dict[Partition, int]:
        """The last stable offset of every state partition (read_committed), in one request."""
        return self._reader.end_offsets(timeout=CATCH_UP_WAIT)

    def catch_up(self, timeout: float = CATCH_UP_WAIT) -> int:
        """Read every state partition up to its current last stable offset."""
        applied = self._reader.catch_up(self._apply, timeout)
        self.catch_ups += 1
        return applied

    def _apply(
        self, topic: str, _partition: int, key: bytes, value: bytes | None, _ts: int
    ) -> None:
        self._records.apply_record(topic, key, value)

    def apply_record(self, topic: str, key: bytes | None, value: bytes | None) -> None:
        self._records.apply_record(topic, key, value)

    def close(self) -> None:
        self._reader.close()
