"""A queue record as MQGET and browse see it: headers read once, the MD filled on delivery.

Works on any object shaped like a confluent-kafka ``Message`` (``headers()``, ``value()``,
``partition()``, ``offset()``, ``timestamp()``), so it is tested without a broker.

Filling the caller's MD is on the MQGET hot path: well-formed ``mqmd.*`` headers (what every
MQ client here writes) are decoded straight into MD values; anything unusual (a duplicate
header, a non-decimal number, an id of the wrong length) goes through the wire contract's
strict reader, and a record whose headers are no MQMD at all reads as the default one.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any

from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import FIELD_NAMES, ID_FIELDS, INT_FIELDS, MQMD_DEFAULT, TEXT_FIELDS
from mqkafka.mqi.rules.matching import Ids, Position, token_of
from mqkafka.mqi.rules.propwire import PROPERTY_PREFIX
from mqkafka.mqi.rules.redelivery import (
    BACKOUT_HEADER,
    ORIGIN_HEADER,
    backout_count,
    origin_of,
    remaining_expiry,
)
from mqkafka.mqi.rules.structs import MD
from mqkafka.wire.headers import mqmd_from_headers

log = logging.getLogger(__name__)

_ZERO = bytes(24)
_PREFIX = "mqmd."
_KIND = {name: 0 if name in INT_FIELDS else 1 if name in TEXT_FIELDS else 2 for name in FIELD_NAMES}
_DECIMAL = re.compile(rb"-?[0-9]{1,10}")
_INT32 = (-(2**31), 2**31 - 1)
# Numeric header values already read (Persistence b"0", Encoding b"546" ...): a handful of
# texts recur in nearly every record, so a dict answers before the regular expression.
_NUMBERS: dict[bytes, int] = {}
_NUMBERS_KEPT = 4096


# MD values of MQMD_DEFAULT (text as bytes, as MD stores it)
def _md_form(values: dict[str, object]) -> dict[str, object]:
    return {k: v.encode() if isinstance(v, str) else v for k, v in values.items()}


_DEFAULT_VALUES: dict[str, object] = _md_form(MQMD_DEFAULT.as_dict())


class Rec:
    """One record of a queue topic. ``delivery`` is the share-group delivery count (None for
    a browsed record, which was not delivered)."""

    __slots__ = (
        "_doubled",
        "_fields",
        "_ids",
        "delivery",
        "local_backouts",
        "msg",
        "offset",
        "partition",
    )

    def __init__(self, msg: Any, delivery: int | None = None) -> None:
        self.msg = msg
        self.partition: int = msg.partition()
        self.offset: int = msg.offset()
        self.delivery = delivery
        self.local_backouts = 0  # backed out and kept in this getter's read-ahead
        self._ids: Ids | None = None
        self._fields: dict[str, bytes | None] | None = None
        self._doubled = False  # some header name appears twice

    @property
    def position(self) -> Position:
        return self.partition, self.offset

    @property
    def token(self) -> bytes:
        return token_of((self.partition, self.offset))

    def headers(self) -> list[tuple[str, bytes]]:
        return list(self.msg.headers() or ())

    def fields(self) -> dict[str, bytes | None]:
        """Header name -> value (the first of each name), read once."""
        if self._fields is None:
            headers = self.msg.headers() or ()
            found: dict[str, bytes | None] = dict(reversed(headers))  # the first of each wins
            self._doubled = len(found) != len(headers)
            self._fields = found
        return self._fields

    @property
    def has_properties(self) -> bool:
        """Whether message property headers may be among the headers (``mqprop.*``; a name
        merely containing it is a false alarm, which costs only the slower path)."""
        return PROPERTY_PREFIX in "\n".join(self.fields())

    def value(self) -> bytes:
        data = self.msg.value()
        return b"" if data is None else bytes(data)

    def _int(self, header: str, default: int) -> int:
        raw = self.fields().get(header)
        if raw is None:
            return default
        try:
            return int(raw)
        except ValueError:
            return default

    def ids(self) -> Ids:
        if self._ids is None:
            found = self.fields()
            self._ids = Ids(
                found.get("mqmd.MsgId") or _ZERO,
                found.get("mqmd.CorrelId") or _ZERO,
                found.get("mqmd.GroupId") or _ZERO,
                self._int("mqmd.MsgSeqNumber", 1),
                self._int("mqmd.Offset", 0),
            )
        return self._ids

    def md_values(self) -> dict[str, object]:
        """The stored descriptor's fields in MD form."""
        found = self.fields()
        values = None if self._doubled else _fast_values(found)
        if values is not None:
            return values
        try:
            stored, _ = mqmd_from_headers(self.msg.headers())
        except MQError as error:
            log.warning("record %s has no valid MQMD headers: %s", self.position, error)
            stored = MQMD_DEFAULT
        return _md_form(stored.as_dict())

    def origin(self) -> Position | None:
        """For a requeued copy, the position of the record it replaced."""
        raw = self.fields().get(ORIGIN_HEADER)
        return origin_of(raw) if raw is not None else None

    def carried_backout(self) -> int:
        return self._int(BACKOUT_HEADER, 0)

    def persistent(self) -> bool:
        return self.fields().get("mqmd.Persistence") == b"1"

    def put_ms(self) -> int:
        _, stamp = self.msg.timestamp()
        return int(stamp)

    def expired(self, now_ms: int | None = None) -> bool:
        raw = self.fields().get("mqmd.Expiry")
        if raw is None or raw == b"-1":  # MQEI_UNLIMITED, nearly every message: no parse
            return False
        expiry = self._int("mqmd.Expiry", -1)
        if expiry <= 0:
            return False
        now = int(time.time() * 1000) if now_ms is None else now_ms
        return remaining_expiry(expiry, self.put_ms(), now) is None


# header -> (MD field, kind: 0 number, 1 text, 2 id; longest text or exact id length), so the
# hot loop below looks each header up once
_FIELD_OF: dict[str, tuple[str, int, int]] = {
    _PREFIX + name: (name, kind, TEXT_FIELDS.get(name, 0) or ID_FIELDS.get(name, 0))
    for name, kind in _KIND.items()
}


def _fast_values(headers: dict[str, bytes | None]) -> dict[str, object] | None:
    """MD values straight from well-formed headers; None to leave them to the strict reader."""
    values = dict(_DEFAULT_VALUES)
    field_of = _FIELD_OF.get
    for header, raw in headers.items():
        field = field_of(header)
        if field is None:
            continue
        if raw is None:
            return None
        name, kind, length = field
        if kind == 0:
            number = _NUMBERS.get(raw)
            if number is None:
                if not _DECIMAL.fullmatch(raw):
                    return None
                number = int(raw)
                if not _INT32[0] <= number <= _INT32[1]:
                    return None
                if len(_NUMBERS) < _NUMBERS_KEPT:
                    _NUMBERS[bytes(raw)] = number
            values[name] = number
        elif kind == 1:
            if len(raw) > length or b"\0" in raw:
                return None
            values[name] = raw.ljust(8) if name == "Format" else raw
        elif len(raw) != length:
            return None
        else:
            values[name] = raw
    return values


def fill_md(md: MD, rec: Rec) -> None:
    """Write the delivered message's descriptor into the caller's MD (MQGET output).

    BackoutCount and Expiry are computed for this delivery (see ``redelivery``).
    """
    values = rec.md_values()
    values["BackoutCount"] = backout_count(rec.delivery, rec.carried_backout()) + rec.local_backouts
    expiry = values["Expiry"]
    if isinstance(expiry, int) and expiry > 0:
        left = remaining_expiry(expiry, rec.put_ms(), int(time.time() * 1000))
        values["Expiry"] = left if left is not None else 1
    md.__dict__.update(values)  # valid by construction: checked above or by the MQMD reader


__all__ = ["Rec", "fill_md"]
