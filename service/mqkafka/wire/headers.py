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

import operator
import re
from collections.abc import Callable, Iterable
from typing import Any, Final

from mqkafka.mq.errors import MQError
from mqkafka.mq.fastvalues import copier, template_values
from mqkafka.mq.mqmd import (
    FIELD_NAMES,
    ID_FIELDS,
    INT_FIELDS,
    MQMD,
    MQMD_DEFAULT,
    MQMI_NONE,
    TEXT_FIELDS,
)
from mqkafka.mq.reasons import RC

HEADER_PREFIX: Final = "mqmd."

KafkaHeader = tuple[str, bytes | None]
"""A record header as confluent-kafka gives it (a header value may be null)."""

_DECIMAL: Final = re.compile(rb"-?[0-9]{1,10}")
_HEADER_OF: Final = {name: HEADER_PREFIX + name for name in FIELD_NAMES}
_FIELD_OF: Final = {header: name for name, header in _HEADER_OF.items()}
_INT_SET: Final = frozenset(INT_FIELDS)
_DEFAULTS: Final = MQMD_DEFAULT.as_dict()


def _encoder(name: str) -> Callable[[Any], bytes]:
    if name in _INT_SET:
        return lambda value: str(value).encode("ascii")
    if name in TEXT_FIELDS:
        return lambda value: value.rstrip(" ").encode("utf-8")
    return bytes


# One C-level call reads every field; the loop then only compares and encodes.
_VALUES_OF: Final = operator.attrgetter(*FIELD_NAMES)
_WRITERS: Final = tuple((_HEADER_OF[name], _DEFAULTS[name], _encoder(name)) for name in FIELD_NAMES)


def mqmd_to_headers(md: MQMD) -> list[tuple[str, bytes]]:
    """The headers that carry ``md``: one per non-default field, in MQMD field order."""
    return [
        (header, encode(value))
        for (header, default, encode), value in zip(_WRITERS, _VALUES_OF(md), strict=True)
        if value != default
    ]


# Publishers usually send the same header set message after message, but for the MsgId: MQ
# gives every message a new one (MQPMO_NEW_MSG_ID), Kafka-native producers often leave it to
# the default. Decoding and validating an MQMD costs ~20 us, so the result for each distinct
# header tuple without the MsgId is kept, up to a bound, and the MsgId set into a copy.
_CACHE_LIMIT: Final = 4096
# headers without MsgId -> (MQMD, other headers, the MQMD's field values for _with_msg_id)
_decoded: dict[tuple[KafkaHeader, ...], tuple[MQMD, list[KafkaHeader], list[Any]]] = {}
MSG_ID_HEADER: Final = HEADER_PREFIX + "MsgId"
_MSG_ID_LENGTH: Final = ID_FIELDS["MsgId"]
_with_msg_id = copier(MQMD, ("MsgId",))


def split_msg_id(
    headers: Iterable[KafkaHeader] | None,
) -> tuple[tuple[KafkaHeader, ...], bytes | None]:
    """The headers other than ``mqmd.MsgId``, and the MsgId: ``MQMI_NONE`` when there is no
    such header, None when it is not one valid MsgId (given twice, null, not 24 bytes)."""
    if not headers:
        return (), MQMI_NONE
    rest = []
    msg_id: bytes | None = MQMI_NONE
    seen = False
    for header in headers:
        if header[0] == MSG_ID_HEADER:
            raw = header[1]
            msg_id = raw if not seen and type(raw) is bytes and len(raw) == _MSG_ID_LENGTH else None
            seen = True
        else:
            rest.append(header)
    return tuple(rest), msg_id


def mqmd_from_headers(
    headers: Iterable[KafkaHeader] | None,
) -> tuple[MQMD, list[KafkaHeader]]:
    """The MQMD the headers describe, and the headers that are not MQMD fields (in order)."""
    if headers is None:
        return MQMD_DEFAULT, []
    return mqmd_from_split(headers, *split_msg_id(headers))


def mqmd_from_split(
    headers: Iterable[KafkaHeader] | None,
    rest: tuple[KafkaHeader, ...],
    msg_id: bytes | None,
) -> tuple[MQMD, list[KafkaHeader]]:
    """``mqmd_from_headers`` for headers already ``split_msg_id`` into ``rest`` and ``msg_id``."""
    if headers is None:
        return MQMD_DEFAULT, []
    if msg_id is None:  # not one valid MsgId: the full decode says what is wrong
        md, others = _mqmd_from_headers(tuple(headers))
        return md, others
    found = _decoded.get(rest)
    if found is None:
        md, others = _mqmd_from_headers(rest)
        found = (md, others, template_values(md))
        if len(_decoded) >= _CACHE_LIMIT:
            _decoded.clear()
        _decoded[rest] = found
    md, others, values = found
    if msg_id != MQMI_NONE:
        md = _with_msg_id(values, msg_id)  # a valid MsgId: 24 bytes, any value
    return md, list(others)


def _mqmd_from_headers(
    headers: Iterable[KafkaHeader],
) -> tuple[MQMD, list[KafkaHeader]]:
    values: dict[str, object] = {}
    others: list[KafkaHeader] = []
    for header, raw in headers:
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
