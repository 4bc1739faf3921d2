"""The MQMD as Kafka record headers (wire contract §2).

One header ``mqmd.<Field>`` per field that differs from ``MQMD_DEFAULT``; absent means default.

| field kind | header value |
|---|---|
| MsgId, CorrelId, GroupId (24), AccountingToken (32) | the raw bytes |
| text fields (Format, ReplyToQ, ...) | UTF-8, trailing blanks removed |
| integer fields (MsgType, Expiry, ...) | ASCII decimal, optional leading ``-`` |

Readers keep headers they do not know (including unknown ``mqmd.*`` names) for forwarding;
a known header given twice, or with a value that does not decode, is MQRC_MD_ERROR.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import FIELD_NAMES, ID_FIELDS, INT_FIELDS, MQMD, MQMD_DEFAULT, TEXT_FIELDS
from mqkafka.mq.reasons import RC

HEADER_PREFIX: Final = "mqmd."

KafkaHeader = tuple[str, bytes | None]
"""A record header as confluent-kafka gives it (a header value may be null)."""

_DECIMAL: Final = re.compile(rb"-?[0-9]{1,10}")
_HEADER_OF: Final = {name: HEADER_PREFIX + name for name in FIELD_NAMES}
_FIELD_OF: Final = {header: name for name, header in _HEADER_OF.items()}
_INT_SET: Final = frozenset(INT_FIELDS)
_DEFAULTS: Final = MQMD_DEFAULT.as_dict()


def mqmd_to_headers(md: MQMD) -> list[tuple[str, bytes]]:
    """The headers that carry ``md``: one per non-default field, in MQMD field order."""
    headers: list[tuple[str, bytes]] = []
    for name in FIELD_NAMES:
        value = getattr(md, name)
        if value == _DEFAULTS[name]:
            continue
        if name in _INT_SET:
            encoded = str(value).encode("ascii")
        elif name in TEXT_FIELDS:
            encoded = value.rstrip(" ").encode("utf-8")
        else:
            encoded = value
        headers.append((_HEADER_OF[name], encoded))
    return headers


def mqmd_from_headers(
    headers: Iterable[KafkaHeader] | None,
) -> tuple[MQMD, list[KafkaHeader]]:
    """The MQMD the headers describe, and the headers that are not MQMD fields (in order)."""
    values: dict[str, object] = {}
    others: list[KafkaHeader] = []
    for header, raw in headers or ():
        name = _FIELD_OF.get(header)
        if name is None:
            others.append((header, raw))
            continue
        if name in values:
            raise _bad(header, "appears twice")
        if raw is None:
            raise _bad(header, "has a null value")
        values[name] = _decode(header, name, bytes(raw))
    if not values:
        return MQMD_DEFAULT, others
    try:
        return MQMD(**values), others  # type: ignore[arg-type]
    except MQError as error:
        header = _HEADER_OF.get(error.parm or "", "mqmd")
        raise _bad(header, error.detail) from None


def _decode(header: str, name: str, raw: bytes) -> object:
    if name in _INT_SET:
        if not _DECIMAL.fullmatch(raw):
            raise _bad(header, f"{raw[:40]!r} is not a decimal integer")
        return int(raw)
    if name in ID_FIELDS:
        if len(raw) != ID_FIELDS[name]:
            raise _bad(header, f"must be {ID_FIELDS[name]} bytes, not {len(raw)}")
        return raw
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _bad(header, "is not UTF-8") from None


def _bad(header: str, problem: str) -> MQError:
    return MQError(RC.MD_ERROR, f"header {header} {problem}", parm=header)
