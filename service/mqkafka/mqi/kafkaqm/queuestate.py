"""The lifecycle machine's view of one queue, assembled from what a client can see, and the
effects it decides carried out on Kafka.

The pure machine (:mod:`mqkafka.mqi.rules.lifecycle`) needs the queue's handles, its depth and the
uncommitted work against it, across every application. A client knows its own exactly and
everyone else's from their heartbeats (:mod:`mqkafka.mqi.kafkaqm.heartbeat`); another connection's
handles are stood in for by placeholder handles with negative ids, one per open handle.

| effect | on Kafka |
|---|---|
| PURGE | delete the queue topic's records |
| MARK_LOGICALLY_DELETED | rewrite the catalogue record with ``logically_deleted`` |
| DELETE_PHYSICALLY | tombstone the catalogue record, then delete the topic |
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from mqkafka.mqi.kafkaqm.admin import QueueAdmin
from mqkafka.mqi.kafkaqm.heartbeat import QueueUse
from mqkafka.mqi.kafkaqm.replica import StateReplica
from mqkafka.mqi.kafkaqm.settings import Settings
from mqkafka.mqi.rules.catalogue import QueueDefinition
from mqkafka.mqi.rules.lifecycle import OpenHandle, QueueEffect, QueueState, Work

log = logging.getLogger(__name__)


def assemble(
    definition: QueueDefinition,
    *,
    own: Mapping[int, OpenHandle],
    others: Sequence[tuple[str, QueueUse]],
    own_connection: str,
    own_work: tuple[int, int] = (0, 0),
    depth: int = 0,
) -> QueueState:
    handles: dict[int, OpenHandle] = dict(own)
    work: dict[str, Work] = {}
    placeholder = -1
    for connection, use in others:
        for _ in range(use.handles):
            handles[placeholder] = OpenHandle(connection, 0, "")
            placeholder -= 1
        if use.has_work:
            work[connection] = Work(use.puts, use.gets)
    if any(own_work):
        work[own_connection] = Work(*own_work)
    return QueueState(
        definition,
        handles=handles,
        depth=depth,
        work=work,
        logically_deleted=definition.logically_deleted,
    )


class Effects:
    """Carries out the lifecycle's effects for one client."""

    def __init__(self, settings: Settings, admin: QueueAdmin, replica: StateReplica) -> None:
        self.settings = settings
        self.admin = admin
        self.replica = replica

    def carry_out(self, definition: QueueDefinition, effects: Iterable[QueueEffect]) -> None:
        topic = self.settings.topic_of(definition.name)
        for effect in effects:
            if effect is QueueEffect.PURGE:
                self.admin.purge(topic)
            elif effect is QueueEffect.MARK_LOGICALLY_DELETED:
                self.replica.define(replace(definition, logically_deleted=True))
            elif effect is QueueEffect.DELETE_PHYSICALLY:
                log.info("deleting queue %s", definition.name)
                self.replica.undefine(definition.name)
                self.admin.delete_topic(topic)


__all__ = ["Effects", "assemble"]
