"""SPI (segment 0x8C) structures, as far as JMS migration mode uses them (notes a.9).

Request body after the API header: verb 4, version 4, length 4 (of the out-structure the
client expects), then an in-out structure ``SPxU`` and an in structure ``SPxI``; each
structure starts id 4, version 4, length 4. The reply is the SPI header, the in-out
structure and an out structure ``SPxO``.

- QUERY (1): SPQU + SPQI in; reply SPQU + SPQO v1 with a verb count (0 is accepted).
- PUT (2): SPPU = 12 + MQMD v2 + MQPMO v1 (504 bytes); SPPI = 12 + options 4 + message
  length 4 + the message. Option 0x04 *deferred*: the queue manager holds the message and
  puts it only if the connection ends without an ACTIVATE cancelling it. Reply: SPPU with
  the MD's output fields, SPPO (12 bytes).
- ACTIVATE (4): SPAU + SPAI (mode 1 enable or 2 disable at 12, two 48-byte names, the
  deferred message's MsgId at 112); reply SPAU + an SPAO. JMS disables (cancels) the
  deferred DeregSub of a subscriber it closes normally.
- RESERVE (6), learned from what the 9.4 client sent when it put with
  MQPMO_ASYNC_RESPONSE on a channel with conversations per socket >= 1: SPRU (12) + SPRI
  (12 + the tag length 24 + the most tags it wants, 0x00FFFFFF). Reply SPRU + SPRO: the
  number of tags granted, the *increment offset* (1-based: the client counts up the byte at
  offset - 1, carrying towards the front) and the first tag (24 bytes). The client makes
  each async put's MsgId from the pool itself (no reply to wait for) and asks again when
  the pool is spent. An offset outside the tag makes it fail (FFDC "Unexpected tag
  increment offset supplied by server", then 2195).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final

from mqkafka.channel.codec.segments import STATUS_INVALID_DATA, ChannelError

SPI_QUERY: Final = 1
SPI_PUT: Final = 2
SPI_ACTIVATE: Final = 4
SPI_RESERVE: Final = 6
SPI_HEADER: Final = 12
SPPI_DEFERRED: Final = 0x04
SPPI_SYNCPOINT: Final = 0x02


@dataclass(frozen=True)
class SpiRequest:
    verb: int
    version: int
    out_length: int
    inout: bytes  # the SPxU structure, whole
    inp: bytes  # the SPxI structure, whole (with its trailing data for PUT)


def _struct_at(rest: bytes, at: int, order: str) -> tuple[bytes, int]:
    if len(rest) < at + 12:
        raise ChannelError(STATUS_INVALID_DATA, "SPI structure cut short")
    (length,) = struct.unpack_from(order + "i", rest, at + 8)
    if length < 12 or len(rest) < at + length:
        raise ChannelError(STATUS_INVALID_DATA, f"SPI structure length {length}")
    return rest[at : at + length], at + length


def parse_spi(rest: bytes, order: str) -> SpiRequest:
    """An SPI request after its API header."""
    if len(rest) < SPI_HEADER:
        raise ChannelError(STATUS_INVALID_DATA, "SPI body shorter than its header")
    verb, version, out_length = struct.unpack_from(order + "iii", rest)
    inout, at = _struct_at(rest, SPI_HEADER, order)
    inp = rest[at:]
    return SpiRequest(verb, version, out_length, inout, inp)


def spi_struct(struc_id: bytes, order: str, payload: bytes = b"", version: int = 1) -> bytes:
    """An SPI structure: id, version, length, then ``payload``."""
    return struc_id + struct.pack(order + "ii", version, 12 + len(payload)) + payload


def spi_reply(request: SpiRequest, order: str, inout: bytes, out: bytes) -> bytes:
    """The SPI reply body after the API header."""
    head = struct.pack(order + "iii", request.verb, request.version, request.out_length)
    return head + inout + out


def query_out(order: str) -> bytes:
    """SPQO v1 saying no verbs (accepted by the client, which then uses what it needs)."""
    return spi_struct(b"SPQO", order, struct.pack(order + "i", 0))


@dataclass(frozen=True)
class SpiPut:
    """SPI PUT's parts: offsets of the MQMD and MQPMO inside SPPU, the options and data."""

    md_at: int  # inside ``inout``
    options: int
    data: bytes


def parse_put(request: SpiRequest, order: str) -> SpiPut:
    if request.inout[:4] != b"SPPU" or request.inp[:4] != b"SPPI":
        raise ChannelError(STATUS_INVALID_DATA, "SPI PUT without SPPU/SPPI")
    if len(request.inp) < 20:
        raise ChannelError(STATUS_INVALID_DATA, "SPPI cut short")
    options, length = struct.unpack_from(order + "ii", request.inp, 12)
    data = request.inp[20 : 20 + length]  # the message follows the five fields
    if length < 0 or len(data) != length:
        raise ChannelError(STATUS_INVALID_DATA, f"SPI PUT message length {length}")
    return SpiPut(md_at=12, options=options, data=data)


def put_out(order: str) -> bytes:
    return spi_struct(b"SPPO", order)


SPAI_LENGTH: Final = 136
ACTIVATE_ENABLE: Final = 1
ACTIVATE_DISABLE: Final = 2


def parse_activate(request: SpiRequest, order: str) -> tuple[int, bytes]:
    """SPAI's mode (1 enable, 2 disable) and the MsgId of the deferred message it names
    (mode at 12, two 48-byte names at 16 and 64, the MsgId at 112)."""
    if request.inp[:4] != b"SPAI" or len(request.inp) < SPAI_LENGTH:
        raise ChannelError(STATUS_INVALID_DATA, "SPI ACTIVATE without a whole SPAI")
    (mode,) = struct.unpack_from(order + "i", request.inp, 12)
    return mode, request.inp[112:136]


def activate_out(order: str) -> bytes:
    return spi_struct(b"SPAO", order, struct.pack(order + "i", 0))


TAG_LENGTH: Final = 24  # a tag is a MsgId


@dataclass(frozen=True)
class Reservation:
    """SPRO's content: ``count`` tags from ``first``, counting up at ``offset`` (1-based)."""

    count: int
    offset: int
    first: bytes


def parse_reserve(request: SpiRequest, order: str) -> tuple[int, int]:
    """SPRI's tag length and the most tags the client wants."""
    if request.inp[:4] != b"SPRI" or len(request.inp) < 20:
        raise ChannelError(STATUS_INVALID_DATA, "SPI RESERVE without a whole SPRI")
    length, wanted = struct.unpack_from(order + "ii", request.inp, 12)
    return length, wanted


def reserve_out(order: str, reservation: Reservation) -> bytes:
    if len(reservation.first) != TAG_LENGTH or not 1 <= reservation.offset <= TAG_LENGTH:
        raise ValueError(f"a tag is {TAG_LENGTH} bytes, its offset 1..{TAG_LENGTH}")
    payload = struct.pack(order + "ii", reservation.count, reservation.offset)
    return spi_struct(b"SPRO", order, payload + reservation.first)


def parse_reserve_out(out: bytes, order: str) -> Reservation:
    """SPRO read back (the client's side: tests and tools)."""
    if out[:4] != b"SPRO" or len(out) < 20 + TAG_LENGTH:
        raise ChannelError(STATUS_INVALID_DATA, "not a whole SPRO")
    count, offset = struct.unpack_from(order + "ii", out, 12)
    return Reservation(count, offset, out[20 : 20 + TAG_LENGTH])


__all__ = [
    "SPI_ACTIVATE",
    "SPI_PUT",
    "SPI_QUERY",
    "SPI_RESERVE",
    "SPPI_DEFERRED",
    "TAG_LENGTH",
    "Reservation",
    "SpiPut",
    "SpiRequest",
    "activate_out",
    "parse_put",
    "parse_reserve",
    "parse_reserve_out",
    "parse_spi",
    "put_out",
    "query_out",
    "reserve_out",
    "spi_reply",
    "spi_struct",
]
