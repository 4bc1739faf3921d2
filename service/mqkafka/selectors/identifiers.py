"""What a selector's names refer to: ``usr`` properties, JMS header names, raw MQMD fields.

Resolution order for a bare name: a JMS header name from ``JMS_HEADERS`` maps to the MQMD as
IBM MQ's JMS classes show it; every other name is a property of the RFH2 ``usr`` folder
(missing → NULL). ``Root.MQMD.<Field>`` gives the raw field; an unknown field name is a
filter error, because the MQMD has a fixed set of fields and a typo should fail the RegSub,
not silently select nothing.

A field absent from ``MessageView.mqmd_fields`` has its default from the wire contract
(``design/wire-contract.md`` §2: a Kafka header is written only when a field differs from it).
Text fields lose trailing blanks, as on the wire.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable
from datetime import datetime

from mqkafka.engine.ports import MessageView
from mqkafka.selectors.semantics import StaticType

Getter = Callable[[MessageView], object]

_ZERO_24 = bytes(24)
# Field → (static type, default when absent): wire contract §2.
MQMD_FIELDS: dict[str, tuple[StaticType, object]] = {
    "MsgId": (StaticType.BYTES, _ZERO_24),
    "CorrelId": (StaticType.BYTES, _ZERO_24),
    "GroupId": (StaticType.BYTES, _ZERO_24),
    "AccountingToken": (StaticType.BYTES, bytes(32)),
    "Format": (StaticType.STRING, ""),
    "ReplyToQ": (StaticType.STRING, ""),
    "ReplyToQMgr": (StaticType.STRING, ""),
    "UserIdentifier": (StaticType.STRING, ""),
    "PutApplName": (StaticType.STRING, ""),
    "PutDate": (StaticType.STRING, ""),
    "PutTime": (StaticType.STRING, ""),
    "ApplIdentityData": (StaticType.STRING, ""),
    "ApplOriginData": (StaticType.STRING, ""),
    "MsgType": (StaticType.NUMBER, 8),
    "Report": (StaticType.NUMBER, 0),
    "Feedback": (StaticType.NUMBER, 0),
    "Encoding": (StaticType.NUMBER, 546),
    "CodedCharSetId": (StaticType.NUMBER, 1208),
    "Priority": (StaticType.NUMBER, -1),
    "Persistence": (StaticType.NUMBER, 2),
    "Expiry": (StaticType.NUMBER, -1),
    "BackoutCount": (StaticType.NUMBER, 0),
    "PutApplType": (StaticType.NUMBER, 0),
    "MsgSeqNumber": (StaticType.NUMBER, 0),
    "Offset": (StaticType.NUMBER, 0),
    "MsgFlags": (StaticType.NUMBER, 0),
    "OriginalLength": (StaticType.NUMBER, 0),
}


def mqmd_value(view: MessageView, field: str) -> object:
    """A raw MQMD field, defaulted when absent, text without trailing blanks."""
    value = view.mqmd_fields.get(field)
    if value is None:
        return MQMD_FIELDS[field][1]
    if isinstance(value, str):
        return value.rstrip(" ")
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    return value


def _number(view: MessageView, field: str) -> int | None:
    value = mqmd_value(view, field)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text_or_null(view: MessageView, field: str) -> str | None:
    value = mqmd_value(view, field)
    return value if isinstance(value, str) and value else None


def jms_id(raw: object) -> str | None:
    """MsgId/CorrelId/GroupId as JMS shows them: ``ID:`` + lower-case hex; all zeros → NULL."""
    if isinstance(raw, bytes):
        return "ID:" + raw.hex() if any(raw) else None
    return raw if isinstance(raw, str) and raw else None


# MQPRI_PRIORITY_AS_Q_DEF (-1) and MQPER_PERSISTENCE_AS_Q_DEF (2) are resolved against the
# defaults of MQ's SYSTEM.DEFAULT.LOCAL.QUEUE (DEFPRTY(0), DEFPSIST(NO)): the values a JMS
# application would see on a message put to a default queue. Choice, not documented for pub/sub.
_DEFAULT_PRIORITY = 0


def _priority(view: MessageView) -> int | None:
    priority = _number(view, "Priority")
    return _DEFAULT_PRIORITY if priority == -1 else priority


def _delivery_mode(view: MessageView) -> str:
    return "PERSISTENT" if _number(view, "Persistence") == 1 else "NON_PERSISTENT"


def put_timestamp_ms(view: MessageView) -> int | None:
    """PutDate ``YYYYMMDD`` + PutTime ``HHMMSSTH`` (GMT) → milliseconds since the epoch."""
    date, time = mqmd_value(view, "PutDate"), mqmd_value(view, "PutTime")
    if not (isinstance(date, str) and isinstance(time, str)):
        return None
    if len(date) != 8 or len(time) not in (6, 8) or not (date + time).isdigit():
        return None
    try:
        day = (int(date[:4]), int(date[4:6]), int(date[6:]))
        moment = datetime(*day, int(time[:2]), int(time[2:4]), int(time[4:6]))
    except ValueError:
        return None
    hundredths = int(time[6:8] or "0")
    return calendar.timegm(moment.timetuple()) * 1000 + hundredths * 10


def _expiration(view: MessageView) -> int | None:
    # JMS: 0 means "never expires"; MQ Expiry is in tenths of a second from the put time.
    expiry = _number(view, "Expiry")
    if expiry is None or expiry < 0:
        return 0
    stamp = put_timestamp_ms(view)
    return None if stamp is None else stamp + expiry * 100


def _redelivered(view: MessageView) -> bool | None:
    count = _number(view, "BackoutCount")
    return None if count is None else count > 0


def _delivery_count(view: MessageView) -> int | None:
    count = _number(view, "BackoutCount")
    return None if count is None else count + 1


def _reply_to(view: MessageView) -> str | None:
    # MQ JMS renders a reply-to queue as a queue URI.
    queue = _text_or_null(view, "ReplyToQ")
    if queue is None:
        return None
    return f"queue://{_text_or_null(view, 'ReplyToQMgr') or ''}/{queue}"


def _always_null(view: MessageView) -> None:
    return None


# JMS name → (static type, getter). The rule is written beside each; names IBM MQ's JMS
# classes derive from parts of the message a MessageView does not carry are NULL.
JMS_HEADERS: dict[str, tuple[StaticType, Getter]] = {
    "JMSCorrelationID": (StaticType.STRING, lambda v: jms_id(mqmd_value(v, "CorrelId"))),
    "JMSMessageID": (StaticType.STRING, lambda v: jms_id(mqmd_value(v, "MsgId"))),
    "JMSPriority": (StaticType.NUMBER, _priority),  # -1 (as queue default) → 0
    "JMSDeliveryMode": (StaticType.STRING, _delivery_mode),  # 1 → PERSISTENT, else NON_
    "JMSTimestamp": (StaticType.NUMBER, put_timestamp_ms),  # PutDate+PutTime, ms, GMT
    "JMSExpiration": (StaticType.NUMBER, _expiration),  # put time + Expiry; unlimited → 0
    "JMSRedelivered": (StaticType.BOOLEAN, _redelivered),  # BackoutCount > 0
    "JMSReplyTo": (StaticType.STRING, _reply_to),  # queue://ReplyToQMgr/ReplyToQ
    "JMSType": (StaticType.STRING, _always_null),  # lives in the mcd folder's Type: not in view
    "JMSDestination": (StaticType.STRING, _always_null),  # the topic: not in the view
    "JMSXUserID": (StaticType.STRING, lambda v: _text_or_null(v, "UserIdentifier")),
    "JMSXAppID": (StaticType.STRING, lambda v: _text_or_null(v, "PutApplName")),
    "JMSXDeliveryCount": (StaticType.NUMBER, _delivery_count),  # BackoutCount + 1
    "JMSXGroupID": (StaticType.STRING, lambda v: jms_id(mqmd_value(v, "GroupId"))),
    "JMSXGroupSeq": (StaticType.NUMBER, lambda v: _number(v, "MsgSeqNumber")),
    "JMS_IBM_Format": (StaticType.STRING, lambda v: _text_or_null(v, "Format")),
    "JMS_IBM_MsgType": (StaticType.NUMBER, lambda v: _number(v, "MsgType")),
    "JMS_IBM_Feedback": (StaticType.NUMBER, lambda v: _number(v, "Feedback")),
    "JMS_IBM_PutApplType": (StaticType.NUMBER, lambda v: _number(v, "PutApplType")),
    "JMS_IBM_Encoding": (StaticType.NUMBER, lambda v: _number(v, "Encoding")),
    "JMS_IBM_PutDate": (StaticType.STRING, lambda v: _text_or_null(v, "PutDate")),
    "JMS_IBM_PutTime": (StaticType.STRING, lambda v: _text_or_null(v, "PutTime")),
}


def property_getter(name: str) -> Getter:
    """A ``usr`` folder property by name (missing → NULL)."""

    def get(view: MessageView) -> object:
        return view.properties.get(name)

    return get


def resolve_name(name: str) -> tuple[StaticType, Getter]:
    """A bare identifier: a JMS header if it names one, else a ``usr`` property."""
    header = JMS_HEADERS.get(name)
    if header is not None:
        return header
    return StaticType.ANY, property_getter(name)


def mqmd_getter(field: str) -> tuple[StaticType, Getter] | None:
    """``Root.MQMD.<field>``; ``None`` when the MQMD has no such field."""
    entry = MQMD_FIELDS.get(field)
    if entry is None:
        return None

    def get(view: MessageView) -> object:
        return mqmd_value(view, field)

    return entry[0], get
