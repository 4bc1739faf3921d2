"""Transmission segments: the ``TSH ``/``TSHM`` header, segment types and control flags,
splitting a flow into segments of the negotiated size and putting it back together.

Layout (protocol notes a.1): StructId 4, segment length 4 (big-endian, header included),
then on ``TSHM`` conversation id 4 and request id 4 (big-endian), then byte order 1
(1 big, 2 little), segment type 1, control flags 1 and 2, LUW id 8, MQ encoding 4 and CCSID 2
(in the segment's byte order), reserved 2. A flow larger than one segment is split: FIRST on
the first segment, LAST on the last, neither in between; the API header only in the first.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, replace
from enum import IntEnum, IntFlag
from typing import Final

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC

TSH_ID: Final = b"TSH "
TSHM_ID: Final = b"TSHM"
TSHC_ID: Final = b"TSHC"
TSH_LENGTH: Final = 28
TSHM_LENGTH: Final = 36
BIG, LITTLE = 1, 2  # the byte-order byte


class SegType(IntEnum):
    """Segment types (notes a.3); a verb's reply is its request + 0x10."""

    INITIAL_DATA = 0x01
    RESYNC_DATA = 0x02
    RESET_DATA = 0x03
    MESSAGE_DATA = 0x04
    STATUS_DATA = 0x05
    SECURITY_DATA = 0x06
    PING_DATA = 0x07
    USERID_DATA = 0x08
    HEARTBEAT = 0x09
    CONAUTH_INFO = 0x0A
    RENEGOTIATE_DATA = 0x0B
    SOCKET_ACTION = 0x0C
    ASYNC_MESSAGE = 0x0D
    REQUEST_MSGS = 0x0E
    NOTIFICATION = 0x0F
    MQCONN = 0x81
    MQDISC = 0x82
    MQOPEN = 0x83
    MQCLOSE = 0x84
    MQGET = 0x85
    MQPUT = 0x86
    MQPUT1 = 0x87
    MQSET = 0x88
    MQINQ = 0x89
    MQCMIT = 0x8A
    MQBACK = 0x8B
    SPI = 0x8C
    MQSTAT = 0x8D
    MQSUB = 0x8E
    MQSUBRQ = 0x8F


REPLY_OFFSET: Final = 0x10


class Flags1(IntFlag):
    """Control flags 1 (notes a.2)."""

    NONE = 0
    CONFIRM_REQUEST = 0x01
    ERROR = 0x02
    REQUEST_CLOSE = 0x04
    CLOSE_CHANNEL = 0x08
    FIRST = 0x10
    LAST = 0x20
    REQUEST_ACCEPTED = 0x40
    DLQ_USED = 0x80


_FIRST: Final = int(Flags1.FIRST)  # plain ints: an IntFlag operation costs a verb ~1 us each
_LAST: Final = int(Flags1.LAST)
_WHOLE: Final = _FIRST | _LAST


class ChannelError(MQError):
    """Input the channel cannot go on with: the connection ends with STATUS ``status``."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(RC.CONNECTION_BROKEN, detail)
        self.status = status


# STATUS_DATA codes a server sends when it ends a connection (notes a.10; Wireshark's
# packet-mq.h names them).
STATUS_QM_TERMINATING: Final = 0x05  # the queue manager is stopping
STATUS_SEGMENT_TYPE: Final = 0x0A  # a segment type not expected here
STATUS_LENGTH_ERROR: Final = 0x0B  # a segment length that cannot be
STATUS_INVALID_DATA: Final = 0x0C  # a structure that does not parse
STATUS_SEGMENT_ERROR: Final = 0x0D  # segments out of order (FIRST/LAST)
STATUS_ID_ERROR: Final = 0x0E  # not a TSH
STATUS_PROTOCOL_GENERAL: Final = 0x10
STATUS_INVALID_HOBJ: Final = 0x1D  # a flow naming an object handle that is not one
STATUS_MESSAGE_LENGTH: Final = 0x12  # a flow beyond the message size
STATUS_MAX_CONNS: Final = 37
STATUS_CCSID_NOT_SUPPORTED: Final = 240
STATUS_ENCODING_INVALID: Final = 241
STATUS_FAP_LEVEL: Final = 242
STATUS_NEGOTIATION_FAILED: Final = 243


@dataclass(frozen=True)
class Header:
    """One segment's header; ``multiplexed`` is the ``TSHM`` form (conversation, request),
    ``common`` the ``TSHC`` form: laid out as ``TSH `` (on a channel with conversations the
    9.4 Java client sends its HEARTBEAT requests so, and wants the answer in the same form)."""

    seg_type: int
    length: int = TSH_LENGTH
    flags1: int = Flags1.FIRST | Flags1.LAST
    flags2: int = 0
    byte_order: int = BIG
    luw: bytes = bytes(8)
    encoding: int = 0x111
    ccsid: int = 819
    multiplexed: bool = False
    conversation: int = 0
    request: int = 0
    common: bool = False

    @property
    def size(self) -> int:
        """The header's own length."""
        return TSHM_LENGTH if self.multiplexed else TSH_LENGTH

    @property
    def order(self) -> str:
        """The ``struct`` byte-order character of this segment's integers."""
        return ">" if self.byte_order == BIG else "<"

    def to_bytes(self) -> bytes:
        return self.bytes_for(self.seg_type, self.length, self.flags1)

    def bytes_for(self, seg_type: int, length: int, flags1: int) -> bytes:
        """This header's bytes with another type, length and flags (no Header made)."""
        struc_id = TSHM_ID if self.multiplexed else TSHC_ID if self.common else TSH_ID
        head = struc_id + struct.pack(">I", length)
        if self.multiplexed:
            head += struct.pack(">II", self.conversation, self.request)
        rest = struct.pack(
            self.order + "BBBB8sIHH",
            self.byte_order,
            seg_type,
            flags1,
            self.flags2,
            self.luw,
            self.encoding,
            self.ccsid,
            0,
        )
        return head + rest

    def for_body(
        self, seg_type: int, body_length: int, flags1: int = Flags1.FIRST | Flags1.LAST
    ) -> Header:
        """A one-segment header of ``seg_type`` in this header's byte order and encoding."""
        return replace(self, seg_type=seg_type, length=self.size + body_length, flags1=flags1)


def peek_length(first8: bytes, max_size: int) -> int:
    """The whole segment's length from its first 8 bytes; malformed or oversized input is a
    :class:`ChannelError` (read 8 bytes, then ``length - 8`` more)."""
    if len(first8) < 8:
        raise ChannelError(STATUS_LENGTH_ERROR, "segment shorter than 8 bytes")
    struc_id = first8[:4]
    if struc_id not in (TSH_ID, TSHM_ID, TSHC_ID):
        raise ChannelError(STATUS_ID_ERROR, f"segment id {struc_id!r} is not TSH")
    length: int = struct.unpack(">I", first8[4:8])[0]
    header = TSHM_LENGTH if struc_id == TSHM_ID else TSH_LENGTH
    if length < header:
        raise ChannelError(STATUS_LENGTH_ERROR, f"segment length {length} < its header")
    if length > max_size:
        raise ChannelError(STATUS_LENGTH_ERROR, f"segment length {length} > {max_size}")
    return length


def parse_header(segment: bytes) -> Header:
    """The header of a complete segment (``peek_length`` bytes long)."""
    length = peek_length(segment[:8], 1 << 31)
    if len(segment) != length:
        raise ChannelError(STATUS_LENGTH_ERROR, f"segment is {len(segment)} bytes, says {length}")
    multiplexed = segment[:4] == TSHM_ID
    at = 16 if multiplexed else 8
    conversation, request = struct.unpack_from(">II", segment, 8) if multiplexed else (0, 0)
    byte_order = segment[at]
    if byte_order not in (BIG, LITTLE):
        raise ChannelError(STATUS_ENCODING_INVALID, f"byte order {byte_order} is not 1 or 2")
    order = ">" if byte_order == BIG else "<"
    _, seg_type, flags1, flags2, luw, encoding, ccsid, _ = _REST[order].unpack_from(segment, at)
    # made without the frozen dataclass's __init__ (a field at a time: ~1.5 us a segment)
    header: Header = _new(Header)
    header.__dict__.update(
        seg_type=seg_type,
        length=length,
        flags1=flags1,
        flags2=flags2,
        byte_order=byte_order,
        luw=luw,
        encoding=encoding,
        ccsid=ccsid,
        multiplexed=multiplexed,
        conversation=conversation,
        request=request,
        common=segment[:4] == TSHC_ID,
    )
    return header


_REST: Final = {order: struct.Struct(order + "BBBB8sIHH") for order in "<>"}
_new = object.__new__


def split(template: Header, seg_type: int, body: bytes, max_size: int) -> list[bytes]:
    """``body`` as segments of at most ``max_size`` bytes, each with its own header."""
    size = template.size
    room = max_size - size
    if room <= 0:
        raise ChannelError(STATUS_NEGOTIATION_FAILED, f"segment size {max_size} too small")
    if len(body) <= room:  # most replies: one segment
        return [template.bytes_for(seg_type, size + len(body), _WHOLE) + body]
    pieces = [body[at : at + room] for at in range(0, len(body), room)] or [b""]
    out: list[bytes] = []
    for index, piece in enumerate(pieces):
        flags = 0
        if index == 0:
            flags |= Flags1.FIRST
        if index == len(pieces) - 1:
            flags |= Flags1.LAST
        header = replace(
            template, seg_type=seg_type, length=template.size + len(piece), flags1=flags
        )
        out.append(header.to_bytes() + piece)
    return out


class Reassembler:
    """Puts an API flow's segments back together (channel-level types never span segments).

    ``add`` returns (first header, whole body) when the LAST segment arrives, else None. A
    flow beyond ``max_flow`` bytes, a middle segment with no first, or a first segment in
    the middle of a flow is a :class:`ChannelError`.
    """

    def __init__(self, max_flow: int) -> None:
        self.max_flow = max_flow
        self._first: Header | None = None
        self._parts: list[bytes] = []
        self._size = 0

    @property
    def pending(self) -> bool:
        return self._first is not None

    def add(self, header: Header, body: bytes) -> tuple[Header, bytes] | None:
        flags = header.flags1
        first, last = bool(flags & _FIRST), bool(flags & _LAST)
        if self._first is None and (header.seg_type < 0x80 or (first and last)):
            # channel-level (always one segment) or a whole flow in one segment
            if len(body) > self.max_flow:
                raise ChannelError(STATUS_MESSAGE_LENGTH, f"flow of {len(body)} bytes > "
                                   f"{self.max_flow}")  # fmt: skip
            return header, body
        if first:
            if self.pending:
                raise ChannelError(STATUS_SEGMENT_ERROR, "a new flow began inside another")
            self._first, self._parts, self._size = header, [], 0
        elif self._first is None:
            raise ChannelError(STATUS_SEGMENT_ERROR, "a middle segment with no first")
        elif header.seg_type != self._first.seg_type:
            raise ChannelError(STATUS_SEGMENT_ERROR, "segment type changed inside a flow")
        self._size += len(body)
        if self._size > self.max_flow:
            size, self._first, self._parts = self._size, None, []
            raise ChannelError(STATUS_MESSAGE_LENGTH, f"flow of {size}+ bytes > {self.max_flow}")
        self._parts.append(body)
        if not last:
            return None
        whole, start = b"".join(self._parts), self._first
        self._first, self._parts, self._size = None, [], 0
        assert start is not None
        return replace(start, length=start.size + len(whole)), whole


__all__ = [
    "BIG",
    "LITTLE",
    "ChannelError",
    "Flags1",
    "Header",
    "Reassembler",
    "SegType",
    "parse_header",
    "peek_length",
    "split",
]
