"""A queue record as MQGET and browse see it: ids read lazily, the MD filled on delivery.

Works on any object shaped like a confluent-kafka ``Message`` (``headers()``, ``value()``,
``partition()``, ``offset()``, ``timestamp()``), so it is tested without a broker.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import FIELD_NAMES, MQMD, MQMD_DEFAULT, TEXT_FIELDS
from mqkafka.mqi.matching import Ids, Position, token_of
from mqkafka.mqi.redelivery import (
    BACKOUT_HEADER,
    ORIGIN_HEADER,
    backout_count,
    origin_of,
    remaining_expiry,
)
from mqkafka.mqi.structs import MD
from mqkafka.wire.headers import mqmd_from_headers

log = logging.getLogger(__name__)

_ZERO = bytes(24)
_ID_HEADERS = {
    "mqmd.MsgId": "msg_id",
    "mqmd.CorrelId": "correl_id",
    "mqmd.GroupId": "group_id",
    "mqmd.MsgSeqNumber": "seq",
    "mqmd.Offset": "offset",
}
_TEXT = frozenset(TEXT_FIELDS)


class Rec:
    """One record of a queue topic. ``delivery`` is the share-group delivery count (None for
    a browsed record, which was not delivered)."""

    __slots__ = ("_ids", "delivery", "local_backouts", "msg", "offset", "partition")

    def __init__(self, msg: Any, delivery: int | None = None) -> None:
        self.msg = msg
        self.partition: int = msg.partition()
        self.offset: int = msg.offset()
        self.delivery = delivery
        self.local_backouts = 0  # backed out and kept in this getter's read-ahead
        self._ids: Ids | None = None

    @property
    def position(self) -> Position:
        return self.partition, self.offset

    @property
    def token(self) -> bytes:
        return token_of((self.partition, self.offset))

    def headers(self) -> list[tuple[str, bytes]]:
        return list(self.msg.headers() or ())

    def value(self) -> bytes:
        data = self.msg.value()
        return b"" if data is None else bytes(data)

    def ids(self) -> Ids:
        if self._ids is None:
            found: dict[str, Any] = {}
            for name, raw in self.msg.headers() or ():
                field = _ID_HEADERS.get(name)
                if field is not None and raw is not None:
                    found[field] = (
                        raw if field.endswith("id") else _int(raw, 0 if field == "offset" else 1)
                    )
            self._ids = Ids(
                found.get("msg_id", _ZERO),
                found.get("correl_id", _ZERO),
                found.get("group_id", _ZERO),
                found.get("seq", 1),
                found.get("offset", 0),
            )
        return self._ids

    def mqmd(self) -> MQMD:
        """The stored descriptor; a record whose headers are no MQMD (written by something
        other than an MQ client) reads as the default descriptor rather than failing."""
        try:
            md, _ = mqmd_from_headers(self.msg.headers())
        except MQError as error:
            log.warning("record %s has no valid MQMD headers: %s", self.position, error)
            return MQMD_DEFAULT
        return md

    def origin(self) -> Position | None:
        """For a requeued copy, the position of the record it replaced."""
        for name, raw in self.msg.headers() or ():
            if name == ORIGIN_HEADER:
                return origin_of(raw)
        return None

    def carried_backout(self) -> int:
        for name, raw in self.msg.headers() or ():
            if name == BACKOUT_HEADER and raw is not None:
                return _int(raw, 0)
        return 0

    def put_ms(self) -> int:
        _, stamp = self.msg.timestamp()
        return int(stamp)

    def expired(self, now_ms: int | None = None) -> bool:
        md_expiry = self._expiry()
        if md_expiry <= 0:
            return False
        now = int(time.time() * 1000) if now_ms is None else now_ms
        return remaining_expiry(md_expiry, self.put_ms(), now) is None

    def _expiry(self) -> int:
        for name, raw in self.msg.headers() or ():
            if name == "mqmd.Expiry" and raw is not None:
                return _int(raw, -1)
        return -1


def _int(raw: bytes, default: int) -> int:
    try:
        return int(raw)
    except ValueError:
        return default


def fill_md(md: MD, rec: Rec) -> None:
    """Write the delivered message's descriptor into the caller's MD (MQGET output).

    BackoutCount and Expiry are computed for this delivery (see ``redelivery``).
    """
    stored = rec.mqmd()
    values: dict[str, object] = {}
    for name in FIELD_NAMES:
        value = getattr(stored, name)
        values[name] = value.encode() if name in _TEXT else value
    values["BackoutCount"] = backout_count(rec.delivery, rec.carried_backout()) + rec.local_backouts
    if stored.Expiry > 0:
        left = remaining_expiry(stored.Expiry, rec.put_ms(), int(time.time() * 1000))
        values["Expiry"] = left if left is not None else 1
    md.__dict__.update(values)  # valid by construction: every value came from a checked MQMD


__all__ = ["Rec", "fill_md"]
