"""The API header every verb carries, and the small verb bodies: MQCONN's CONN (echoed),
MQOPEN's FOPA, MQCLOSE's options, MQINQ/MQSET lists, STATUS_DATA, HEARTBEAT and SOCKET_ACTION.

API header (notes a.6): reply length 4 (big-endian), completion code 4, reason code 4,
object handle 4 (the last three in the segment's byte order). MQINQ (a.7): selector count,
integer count, character length, the selectors; the reply repeats them and adds the integer
values, then the character values; MQSET's request carries the values itself.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final, NamedTuple

from mqkafka.channel.codec.segments import STATUS_INVALID_DATA, ChannelError

API_LENGTH: Final = 16
FOPA_ID: Final = b"FOPA"
FOPA_LENGTH: Final = 28
MQCA_FIRST: Final = 2001  # selectors at or above are character attributes
MAX_SELECTORS: Final = 256  # MQ's own limit on one MQINQ's selectors
FUNCTION_NOT_SUPPORTED: Final = 2298  # MQRC_FUNCTION_NOT_SUPPORTED: a verb not offered


class ApiHeader(NamedTuple):
    """A named tuple: one is made for every verb (a frozen dataclass cost ~1.5 us each)."""

    reply_length: int
    comp: int = 0
    reason: int = 0
    hobj: int = 0

    def to_bytes(self, order: str) -> bytes:
        return struct.pack(">I", self.reply_length) + struct.pack(
            order + "iii", self.comp, self.reason, self.hobj
        )


def parse_api(body: bytes, order: str) -> tuple[ApiHeader, bytes]:
    """The API header and what follows it."""
    if len(body) < API_LENGTH:
        raise ChannelError(STATUS_INVALID_DATA, f"verb of {len(body)} bytes has no API header")
    (reply_length,) = _LENGTH.unpack_from(body)
    comp, reason, hobj = _CODES[order].unpack_from(body, 4)
    return ApiHeader(reply_length, comp, reason, hobj), body[API_LENGTH:]


_LENGTH: Final = struct.Struct(">I")
_CODES: Final = {order: struct.Struct(order + "iii") for order in "<>"}


def reply_body(order: str, comp: int, reason: int, hobj: int, rest: bytes) -> bytes:
    """A verb's reply: API header (reply length = its own total, as accepted) + ``rest``."""
    return ApiHeader(API_LENGTH + len(rest), comp, reason, hobj).to_bytes(order) + rest


def conn_qmgr(rest: bytes) -> str:
    """MQCONN's queue manager name (the first 48 bytes of CONN)."""
    if len(rest) < 48:
        raise ChannelError(STATUS_INVALID_DATA, "MQCONN body shorter than its QMgr name")
    return rest[:48].split(b"\0", 1)[0].decode("latin-1").rstrip(" ")


def conn_appl_name(rest: bytes) -> str:
    """MQCONN's application name (28 bytes after the QMgr name), blank when absent."""
    return rest[48:76].split(b"\0", 1)[0].decode("latin-1").rstrip(" ")


def fopa_filled(fopa: bytes, order: str, persistence: int = 0, put_response: int = 1) -> bytes:
    """MQOPEN's FOPA with the object's defaults: persistence, put response type (1 = sync),
    read ahead 0 (none), property control 0; a FOPA too short for them is echoed."""
    if len(fopa) < FOPA_LENGTH or fopa[:4] != FOPA_ID:
        return fopa
    out = bytearray(fopa)
    struct.pack_into(order + "iiii", out, 12, persistence, put_response, 0, 0)
    return bytes(out)


def int_at(rest: bytes, order: str, at: int = 0) -> int:
    """One MQLONG of a verb body (MQCLOSE's options ...)."""
    if len(rest) < at + 4:
        raise ChannelError(STATUS_INVALID_DATA, "verb body too short")
    value: int = struct.unpack_from(order + "i", rest, at)[0]
    return value


@dataclass(frozen=True)
class InqRequest:
    """MQINQ's (or MQSET's) lists; MQSET fills ``ints`` and ``chars``."""

    selectors: tuple[int, ...]
    int_count: int
    char_length: int
    ints: tuple[int, ...] = ()
    chars: bytes = b""


def parse_inq(rest: bytes, order: str, *, with_values: bool = False) -> InqRequest:
    """MQINQ's request (``with_values``: MQSET's, the values after the selectors)."""
    if len(rest) < 12:
        raise ChannelError(STATUS_INVALID_DATA, "MQINQ body shorter than its counts")
    count, int_count, char_length = struct.unpack_from(order + "iii", rest)
    if not (0 <= count <= MAX_SELECTORS and 0 <= int_count <= MAX_SELECTORS):
        raise ChannelError(STATUS_INVALID_DATA, f"MQINQ counts {count}, {int_count}")
    if char_length < 0 or char_length > 1 << 20:
        raise ChannelError(STATUS_INVALID_DATA, f"MQINQ character length {char_length}")
    need = 12 + 4 * count
    if len(rest) < need:
        raise ChannelError(STATUS_INVALID_DATA, "MQINQ selectors cut short")
    selectors = struct.unpack_from(f"{order}{count}i", rest, 12)
    if not with_values:
        return InqRequest(tuple(selectors), int_count, char_length)
    if len(rest) < need + 4 * int_count + char_length:
        raise ChannelError(STATUS_INVALID_DATA, "MQSET values cut short")
    ints = struct.unpack_from(f"{order}{int_count}i", rest, need)
    at = need + 4 * int_count
    return InqRequest(
        tuple(selectors), int_count, char_length, tuple(ints), rest[at : at + char_length]
    )


def inq_bytes(request: InqRequest, order: str) -> bytes:
    """MQINQ's reply lists, or MQSET's request: counts, selectors, integers, characters."""
    ints = tuple(request.ints) + (0,) * (request.int_count - len(request.ints))
    chars = request.chars[: request.char_length].ljust(request.char_length, b" ")
    n = len(request.selectors)
    return (
        struct.pack(order + "iii", n, request.int_count, request.char_length)
        + struct.pack(f"{order}{n}i", *request.selectors)
        + struct.pack(f"{order}{request.int_count}i", *ints[: request.int_count])
        + chars
    )


def status_body(order: str, code: int, value: int = 0) -> bytes:
    """A STATUS_DATA body: length, status code, value."""
    return struct.pack(order + "iii", 12, code, value)


@dataclass(frozen=True)
class SocketAction:
    """A SOCKET_ACTION segment (notes a.10): conversation id, request id, the action (1
    start a conversation, 2 end one, 3 stop-quiesce ...) and two parameters. On a channel
    with one conversation per socket the 9.4 Java client sends one alone, END_CONVERSATION
    with CLOSE_CHANNEL, after its MQDISC, and closes the socket."""

    conversation: int
    request: int
    action: int
    parm1: int = 0
    parm2: int = 0

    def to_bytes(self, order: str) -> bytes:
        return struct.pack(order + "5i", self.conversation, self.request, self.action,
                           self.parm1, self.parm2)  # fmt: skip


SOCKET_ACTION_LENGTH: Final = 20
ACTION_START_CONVERSATION: Final = 1
ACTION_END_CONVERSATION: Final = 2


def parse_socket_action(body: bytes, order: str) -> SocketAction:
    if len(body) < SOCKET_ACTION_LENGTH:
        raise ChannelError(STATUS_INVALID_DATA, f"SOCKET_ACTION of {len(body)} bytes")
    return SocketAction(*struct.unpack_from(order + "5i", body))


def parse_status(body: bytes, order: str) -> int:
    """The status code of a STATUS_DATA body (0 when empty: the client's own close)."""
    if len(body) < 8:
        return 0
    code: int = struct.unpack_from(order + "i", body, 4)[0]
    return code


__all__ = [
    "ACTION_END_CONVERSATION",
    "ACTION_START_CONVERSATION",
    "API_LENGTH",
    "MQCA_FIRST",
    "ApiHeader",
    "InqRequest",
    "SocketAction",
    "conn_appl_name",
    "conn_qmgr",
    "fopa_filled",
    "inq_bytes",
    "int_at",
    "parse_api",
    "parse_inq",
    "parse_socket_action",
    "parse_status",
    "reply_body",
    "status_body",
]
