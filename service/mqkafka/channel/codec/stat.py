"""MQSTAT (segment 0x8D) and its MQSTS: how a client asks for the status of its
asynchronous puts (Wireshark does not dissect the verb; this is what the 9.4 Java client's
``MQQueueManager.getAsyncStatus()`` sent, read against IBM's published MQSTS).

Request body after the API header: the MQSTAT Type (4; 0 = MQSTAT_TYPE_ASYNC_ERROR), then
an MQSTS. MQSTS version 1 is 224 bytes: StrucId ``STAT``, Version, CompCode, Reason,
PutSuccessCount, PutWarningCount, PutFailureCount, ObjectType (MQLONGs, 32 bytes), then ObjectName,
ObjectQMgrName, ResolvedObjectName, ResolvedQMgrName (48 characters each). The reply is the
same bytes with the MQSTS filled in; what a later version adds (ObjectString, SubName,
options) is given back as it came.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final

from mqkafka.channel.codec.segments import STATUS_INVALID_DATA, ChannelError

STS_ID: Final = b"STAT"
STS_V1_LENGTH: Final = 224
STAT_TYPE_ASYNC_ERROR: Final = 0
STAT_TYPE_RECONNECTION: Final = 1
STAT_TYPE_RECONNECTION_ERROR: Final = 2
MQOT_Q: Final = 1
_NAMES_AT: Final = 32  # the four names follow StrucId and seven MQLONGs


@dataclass(frozen=True)
class PutStatus:
    """MQSTS's content: the first failure or warning since the last MQSTAT (its codes and
    object) and the counts of asynchronous puts since then."""

    comp: int = 0
    reason: int = 0
    succeeded: int = 0
    warned: int = 0
    failed: int = 0
    object_type: int = MQOT_Q
    object_name: str = ""
    object_qmgr: str = ""
    resolved_name: str = ""
    resolved_qmgr: str = ""


@dataclass(frozen=True)
class StatRequest:
    stat_type: int
    sts: bytes  # the MQSTS as sent, whole (its version's length or more)


def parse_stat(rest: bytes, order: str) -> StatRequest:
    """MQSTAT's type and MQSTS; anything shorter than MQSTS v1 is a :class:`ChannelError`."""
    if len(rest) < 4 + STS_V1_LENGTH or rest[4:8] != STS_ID:
        raise ChannelError(STATUS_INVALID_DATA, "MQSTAT without a whole MQSTS")
    (stat_type,) = struct.unpack_from(order + "i", rest)
    return StatRequest(stat_type, bytes(rest[4:]))


def _name(text: str) -> bytes:
    return text.encode("latin-1", "replace")[:48].ljust(48, b" ")


def sts_filled(sts: bytes, order: str, status: PutStatus) -> bytes:
    """``sts`` (as the client sent it) with ``status``'s fields in place."""
    out = bytearray(sts)
    struct.pack_into(
        order + "iiiiii", out, 8,
        status.comp, status.reason, status.succeeded, status.warned, status.failed,
        status.object_type,
    )  # fmt: skip
    names = (status.object_name, status.object_qmgr, status.resolved_name, status.resolved_qmgr)
    out[_NAMES_AT : _NAMES_AT + 192] = b"".join(_name(n) for n in names)
    return bytes(out)


def stat_bytes(stat_type: int, sts: bytes, order: str) -> bytes:
    """MQSTAT's body after the API header (a request, or a reply with ``sts`` filled)."""
    return struct.pack(order + "i", stat_type) + sts


def parse_sts(sts: bytes, order: str) -> PutStatus:
    """An MQSTS read back (the client's side: tests and tools)."""
    if len(sts) < STS_V1_LENGTH or sts[:4] != STS_ID:
        raise ChannelError(STATUS_INVALID_DATA, "not a whole MQSTS")
    comp, reason, ok, warned, failed, object_type = struct.unpack_from(order + "iiiiii", sts, 8)
    names = [
        sts[at : at + 48].decode("latin-1").rstrip(" ")
        for at in range(_NAMES_AT, _NAMES_AT + 192, 48)
    ]
    return PutStatus(comp, reason, ok, warned, failed, object_type, *names)


def new_sts(order: str, version: int = 1) -> bytes:
    """An empty MQSTS v1 (the client's side: tests and tools)."""
    return STS_ID + struct.pack(order + "7i", version, 0, 0, 0, 0, 0, 0) + b" " * 192


__all__ = [
    "STAT_TYPE_ASYNC_ERROR",
    "STS_V1_LENGTH",
    "PutStatus",
    "StatRequest",
    "new_sts",
    "parse_stat",
    "parse_sts",
    "stat_bytes",
    "sts_filled",
]
