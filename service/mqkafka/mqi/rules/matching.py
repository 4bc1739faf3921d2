"""Which message an MQGET asks for (MQGMO MatchOptions), and message tokens (pure).

| MatchOptions bit | the message must have | a zero value in the request |
|---|---|---|
| MQMO_MATCH_MSG_ID | MD.MsgId | MQMI_NONE matches any |
| MQMO_MATCH_CORREL_ID | MD.CorrelId | MQCI_NONE matches any |
| MQMO_MATCH_GROUP_ID | MD.GroupId | MQGI_NONE matches any |
| MQMO_MATCH_MSG_SEQ_NUMBER | MD.MsgSeqNumber | (no wildcard) |
| MQMO_MATCH_OFFSET | MD.Offset | (no wildcard) |
| MQMO_MATCH_MSG_TOKEN | GMO.MsgToken | MQMTOK_NONE matches any |

MatchOptions is read only from an MQGMO of Version 2 or more; a Version 1 MQGMO always
matches on MsgId and CorrelId (UNCERTAIN-lite, the documented MQGMO behaviour). A bit that
is no match option is ``MQRC_MATCH_OPTIONS_ERROR`` (2247).

A message token names one message: here the Kafka position of its record, ``MQKT`` +
partition (4 bytes) + offset (8 bytes), so a token is also the way to get exactly the
message a browse cursor stands on.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from mqkafka.mq.reasons import RC
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.errors import failed

ALL_MATCH_OPTIONS = (
    C.MQMO_MATCH_MSG_ID
    | C.MQMO_MATCH_CORREL_ID
    | C.MQMO_MATCH_GROUP_ID
    | C.MQMO_MATCH_MSG_SEQ_NUMBER
    | C.MQMO_MATCH_OFFSET
    | C.MQMO_MATCH_MSG_TOKEN
)
VERSION_1_MATCH = C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID
_EXACT = C.MQMO_MATCH_MSG_SEQ_NUMBER | C.MQMO_MATCH_OFFSET  # no wildcard value
_TOKEN = struct.Struct(">4sIq")
TOKEN_TAG = b"MQKT"
NO_TOKEN = bytes(C.MQ_MSG_TOKEN_LENGTH)

Position = tuple[int, int]  # (partition, offset)


def token_of(position: Position) -> bytes:
    return _TOKEN.pack(TOKEN_TAG, *position)


def position_of(token: bytes) -> Position | None:
    """The position a token names, or None for a token this emulation did not issue."""
    raw = bytes(token).ljust(C.MQ_MSG_TOKEN_LENGTH, b"\0")
    if len(raw) != C.MQ_MSG_TOKEN_LENGTH or not raw.startswith(TOKEN_TAG):
        return None
    _, partition, offset = _TOKEN.unpack(raw)
    return partition, offset


@dataclass(frozen=True, slots=True)
class Ids:
    """The identifying fields of a message, as its record headers give them."""

    msg_id: bytes
    correl_id: bytes
    group_id: bytes
    seq: int
    offset: int


@dataclass(frozen=True, slots=True)
class Selection:
    """A non-trivial request: only the fields that constrain are set (None = any)."""

    msg_id: bytes | None = None
    correl_id: bytes | None = None
    group_id: bytes | None = None
    seq: int | None = None
    offset: int | None = None
    position: Position | None = None
    unknown_token: bool = False  # a token we never issued matches no message

    def accepts(self, ids: Ids, position: Position) -> bool:
        if self.unknown_token or (self.position is not None and self.position != position):
            return False
        return (
            (self.msg_id is None or self.msg_id == ids.msg_id)
            and (self.correl_id is None or self.correl_id == ids.correl_id)
            and (self.group_id is None or self.group_id == ids.group_id)
            and (self.seq is None or self.seq == ids.seq)
            and (self.offset is None or self.offset == ids.offset)
        )


def _id(value: bytes) -> bytes | None:
    raw = bytes(value).ljust(24, b"\0")
    return raw if any(raw) else None


def selection(
    gmo_version: int,
    match_options: int,
    msg_id: bytes,
    correl_id: bytes,
    group_id: bytes,
    seq: int,
    offset: int,
    token: bytes,
) -> Selection | None:
    """What the request selects, or None when any message will do."""
    options = VERSION_1_MATCH if gmo_version < C.MQGMO_VERSION_2 else match_options
    if options & ~ALL_MATCH_OPTIONS:
        raise failed(RC.MATCH_OPTIONS_ERROR, f"MatchOptions {match_options:#x}")
    if not options & _EXACT and not (
        (options & C.MQMO_MATCH_MSG_ID and any(msg_id))
        or (options & C.MQMO_MATCH_CORREL_ID and any(correl_id))
        or (options & C.MQMO_MATCH_GROUP_ID and any(group_id))
        or (options & C.MQMO_MATCH_MSG_TOKEN and any(token))
    ):
        return None  # the common MQGET: every id zero, any message will do
    chosen = Selection(
        msg_id=_id(msg_id) if options & C.MQMO_MATCH_MSG_ID else None,
        correl_id=_id(correl_id) if options & C.MQMO_MATCH_CORREL_ID else None,
        group_id=_id(group_id) if options & C.MQMO_MATCH_GROUP_ID else None,
        seq=seq if options & C.MQMO_MATCH_MSG_SEQ_NUMBER else None,
        offset=offset if options & C.MQMO_MATCH_OFFSET else None,
    )
    if options & C.MQMO_MATCH_MSG_TOKEN and any(token):
        position = position_of(token)
        chosen = Selection(
            chosen.msg_id,
            chosen.correl_id,
            chosen.group_id,
            chosen.seq,
            chosen.offset,
            position,
            position is None,
        )
    return None if chosen == Selection() else chosen


__all__ = [
    "ALL_MATCH_OPTIONS",
    "Ids",
    "Position",
    "Selection",
    "position_of",
    "selection",
    "token_of",
]
