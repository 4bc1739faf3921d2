"""A connection's acknowledgement ledger (:mod:`.ackedspans`): written at MQCLOSE of an input
handle, left in place by MQDISC, swept by the browses that find it passed.

A getter's browse-barrier answer names what it acknowledged above the share group's start
only while it gets from the queue and is connected; once it closed the handle nobody asks
it, and after MQDISC its tombstone takes its answers away. While an older record stays in
flight or available (held under syncpoint elsewhere, backed out, released), the start stays
below what it got out of order, and a browse that may not read Kafka's share state would
count those from the lag as the oldest records instead. So at MQCLOSE the connection writes
what it acknowledged at or above the start (one share-offsets request, only for a queue it
got something from) in a record of its own, ``acked/<connection id>`` in the heartbeat topic,
which its MQDISC does not remove; a connection that crashed has what its newest answers
named kept in one by whoever reaps it (:mod:`.reaper`). A browse that finds a ledger line
for its queue asks the start once and removes the line once the start has passed every
span, or the line is of another topic (a queue deleted and defined again): only lines of
connections no longer alive, whose owner will not write them again.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from typing import TYPE_CHECKING

from mqkafka.mq.errors import MQError
from mqkafka.mqi.kafkaqm.ackedspans import (
    LEDGER_PREFIX,
    NONE,
    LedgerEntry,
    acked_above,
    encode_ledger,
)

if TYPE_CHECKING:
    from mqkafka.mqi.kafkaqm.admin import QueueAdmin
    from mqkafka.mqi.kafkaqm.connection import Connection
    from mqkafka.mqi.kafkaqm.replica import StateReplica

log = logging.getLogger("mqkafka.mqi.kafkaqm.connection")  # the operator's lines: the MQI's

_WRITTEN: weakref.WeakKeyDictionary[Connection, dict[str, LedgerEntry]] = (
    weakref.WeakKeyDictionary()
)
_LOCK = threading.Lock()
# A browse call asks the start for the ledgers at most this often per queue while the same
# lines stand (a line of a connection still alive stays, and each BROWSE_NEXT is a call):
# the topic id it answered is kept meanwhile.
SWEEP_EVERY = 5.0
_SWEPT: dict[tuple[str, str], tuple[float, frozenset[str], str | None]] = {}


def note(conn: Connection, queue: str, topic: str, group: str, partitions: int) -> None:
    """MQCLOSE of an input handle on ``queue``: the connection's ledger line for it, written
    (or taken out when nothing lies above the start any more)."""
    consumed = conn.consumed.get(topic)
    if consumed is None:
        return  # got nothing from it
    try:
        starts = conn.admin.share_start(topic, group, partitions)
        topic_id = conn.admin.share_state.topic_id(group)
        floors, above = consumed.snapshot()
        spans = acked_above(floors, above, starts) if topic_id else NONE
        with _LOCK:
            mine = _WRITTEN.setdefault(conn, {})
            if spans and topic_id:
                mine[queue] = LedgerEntry(topic_id.hex(), spans)
            elif mine.pop(queue, None) is None:
                return
            value = encode_ledger(mine) if mine else None
        key = (LEDGER_PREFIX + conn.id).encode()
        conn.replica.write(conn.settings.connections_topic, key, value, wait=False)
        conn.replica.flush()
    except MQError as error:  # the close goes on; a browse may count it from the lag
        log.warning("MQCLOSE of %s: its acknowledgements were not noted: %s", queue, error)


def keep_for_ended(replica: StateReplica, admin: QueueAdmin, connection: str) -> None:
    """A connection found ended without MQDISC (its heartbeats stopped: a crash), before its
    tombstone takes its answers away: what its newest answers named acknowledged above the
    start, still above it, goes in a ledger record for it (what it acknowledged after that
    answer is not known to anybody: the lag counts it as before)."""
    table = replica.connections
    answered = table.answered_acked(connection)
    if not answered:
        return
    key = LEDGER_PREFIX + connection
    ledger = table.ledger(key)  # lines its MQCLOSEs wrote
    for queue, entry in answered.items():
        topic = replica.settings.topic_of(queue)
        group = replica.settings.share_group_of(topic)
        partitions = 1 + max(p for p, _, _ in entry.spans.spans())
        starts = admin.share_start(topic, group, partitions)
        known = ledger.get(queue)
        if known is not None and known.topic_id == entry.topic_id:
            entry = LedgerEntry(entry.topic_id, entry.spans.union(known.spans))
        if not entry.passed(starts):
            ledger[queue] = entry
    if ledger:
        try:
            replica.write(replica.settings.connections_topic, key.encode(), encode_ledger(ledger))
        except MQError as error:
            log.warning("connection %s: its acknowledgements were not kept: %s", connection, error)


def sweep(conn: Connection, queue: str) -> str | None:
    """Before a browse of ``queue`` reads the answers' and ledgers' lines: the topic id of
    the queue (hex; None when no line names it or Kafka did not say), and the passed lines
    of connections no longer alive taken out."""
    table = conn.replica.connections
    named = table.lines_of(queue)
    if not named:
        return None
    lines = table.ledgers(queue)
    topic = conn.settings.topic_of(queue)
    group = conn.settings.share_group_of(topic)
    cached = (conn.settings.connections_topic, topic)
    with _LOCK:
        seen = _SWEPT.get(cached)
    if (
        seen is not None
        and seen[1] == frozenset(lines)
        and time.monotonic() - seen[0] < SWEEP_EVERY
    ):
        return seen[2]
    partitions = 1 + max(p for e in named for p, _, _ in e.spans.spans())
    starts = conn.admin.share_start(topic, group, partitions)
    found = conn.admin.share_state.topic_id(group)
    here = found.hex() if found else None
    for key, entry in lines.items():
        if table.alive(key.removeprefix(LEDGER_PREFIX)):
            continue  # its owner writes it
        other = here is not None and entry.topic_id != here
        if not (other or entry.passed(starts)):
            continue
        rest = {q: e for q, e in table.ledger(key).items() if q != queue}
        try:
            value = encode_ledger(rest) if rest else None
            conn.replica.write(conn.settings.connections_topic, key.encode(), value, wait=False)
        except MQError as error:
            log.debug("ledger %s not swept: %s", key, error)
    with _LOCK:
        _SWEPT[cached] = (time.monotonic(), frozenset(lines), here)
    return here


__all__ = ["keep_for_ended", "note", "sweep"]
