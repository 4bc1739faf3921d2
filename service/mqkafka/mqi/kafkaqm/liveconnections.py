"""The MQI connections of this process, and what they know was got.

Weakly held: a collected connection is not kept. A depth asked here settles every live
connection's unsent puts and acknowledgements first (``Connection.settle_acks``), and a
browse hides what any of them got, acknowledged or under syncpoint and not yet committed.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING

from mqkafka.mqi.kafkaqm.logreader import Consumed
from mqkafka.mqi.rules.matching import Position

if TYPE_CHECKING:
    from mqkafka.mqi.kafkaqm.connection import Connection

_LIVE: weakref.WeakSet[Connection] = weakref.WeakSet()
_LOCK = threading.Lock()  # a set must not change while another thread copies it


def add(connection: Connection) -> None:
    with _LOCK:
        _LIVE.add(connection)


def discard(connection: Connection) -> None:
    with _LOCK:
        _LIVE.discard(connection)


def snapshot() -> list[Connection]:
    with _LOCK:
        return list(_LIVE)


def consumed_in_process(topic: str) -> list[Consumed]:
    """What each connection of this process knows was got from ``topic`` (a browse hides
    those, and counts them among the messages Kafka says others got)."""
    return [c.consumed[topic] for c in snapshot() if topic in c.consumed]


def got_in_process(topic: str, position: Position) -> bool:
    """Whether a connection of this process got the record at ``position`` of ``topic``:
    acknowledged, or under syncpoint and not yet committed (a browse never shows it)."""
    for connection in snapshot():
        known = connection.consumed.get(topic)
        if known is not None and position in known:
            return True
        if any(
            h.getter.topic == topic and h.taken.rec.position == position
            for h in list(connection.uow.gets)
        ):
            return True
    return False


__all__ = ["add", "consumed_in_process", "discard", "got_in_process", "snapshot"]
