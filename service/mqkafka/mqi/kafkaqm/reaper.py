"""Deleting what nobody will close: queues of crashed applications, and everything temporary
when the queue manager starts (seed 004).

- A connection's heartbeats stopped (a crash, or an exit without MQDISC): its temporary
  dynamic queues are deleted, or marked logically deleted while others still use them,
  and its heartbeat is removed. Done by :func:`reap`, in every client's keeper thread, the
  broker service's (``mqk serve``) included, so a crashed creator's queue goes even when no
  other application is connected: within :func:`reap_bound` of its last heartbeat.
- A logically deleted queue nobody uses any more (its last user may have crashed before
  closing it) is deleted, also by :func:`reap`.
- The queue manager starts: every temporary dynamic queue and every logically deleted
  queue is deleted and no connection survives (:func:`start_queue_manager`).

Several clients may reap the same connection at once: every step is idempotent (a tombstone
twice, a topic already gone), so they agree without coordinating.
"""

from __future__ import annotations

import logging
from collections.abc import Collection

from mqkafka.mqi.kafkaqm import ackledger
from mqkafka.mqi.kafkaqm.queuestate import Effects, assemble
from mqkafka.mqi.kafkaqm.replica import StateReplica
from mqkafka.mqi.rules.lifecycle import ConnectionEnded, QMgrStarted, step

log = logging.getLogger(__name__)


def reap(
    replica: StateReplica, effects: Effects, *, me: str = "", ours: Collection[str] = ()
) -> list[str]:
    """One pass; returns the names of the queues deleted or marked. ``me`` and ``ours`` (the
    connections whose heartbeats the caller sends) are never reaped by it."""
    touched: list[str] = []
    for connection in replica.connections.expired():
        if connection == me or connection in ours:
            continue
        log.info("connection %s stopped sending heartbeats: ending it", connection)
        for definition in replica.catalogue.created_by_connection(connection):
            if not definition.is_temporary_dynamic:
                continue
            state = assemble(
                definition,
                own={},
                others=replica.connections.uses(definition.name, exclude=connection),
                own_connection=connection,
            )
            outcome = step(state, ConnectionEnded(connection, clean=False))
            effects.carry_out(definition, outcome.effects)
            touched.append(definition.name)
        ackledger.keep_for_ended(replica, effects.admin, connection)  # before its tombstone
        replica.write(replica.settings.connections_topic, connection.encode(), None)
    for definition in replica.catalogue.definitions():
        if definition.logically_deleted and not replica.connections.uses(definition.name):
            # Nobody alive holds it: as after a restart, nothing is left to wait for.
            state = assemble(definition, own={}, others=[], own_connection="")
            effects.carry_out(definition, step(state, QMgrStarted()).effects)
            touched.append(definition.name)
    return touched


def reap_bound(heartbeat_interval: float, liveness_timeout: float) -> float:
    """How long after a connection's last heartbeat a reaping client with these settings has
    deleted its temporary dynamic queues (Kafka's own delays aside): 2 heartbeat intervals
    after the connection counts as ended. It counts as ended once the reaper's "now" is
    ``liveness_timeout`` past that beat; "now" is the newest heartbeat read back, which trails
    the reaper's own beat by up to one interval (a beat is not yet read back when the same
    keeper round reaps); and the reaper runs once per interval, after its beat."""
    return liveness_timeout + 2 * heartbeat_interval


def start_queue_manager(replica: StateReplica, effects: Effects) -> list[str]:
    """Seed 004: temporary dynamic queues "are deleted when the queue manager is started".

    Run by the service at start-up, before it serves anything: every connection is over
    (their heartbeats are removed), temporary dynamic and logically deleted queues go.
    """
    replica.sync()
    for connection in list(replica.connections):
        replica.write(replica.settings.connections_topic, connection.encode(), None)
    deleted: list[str] = []
    for definition in replica.catalogue.definitions():
        outcome = step(assemble(definition, own={}, others=[], own_connection=""), QMgrStarted())
        if outcome.effects:
            effects.carry_out(definition, outcome.effects)
            deleted.append(definition.name)
    return deleted


__all__ = ["reap", "reap_bound", "start_queue_manager"]
