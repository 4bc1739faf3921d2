"""Kafka's protocol primitives, read and written: fixed-width integers, unsigned varints,
compact (flexible-version) strings, bytes and arrays, tag buffers and request headers.

The one reader and writer for the requests this package speaks itself (``sharestate.py``,
``saslauth.py``) and the coordinator records it reads (``sharelog.py``); each caller turns
:class:`Truncated` into its own error. Avro's zigzag varints (``activity/``) are another
format and live there.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

CLIENT_ID = b"mqkafka-mqi"
NO_TAGS = b"\x00"
_MAX_SHIFT = 63  # a varint longer than 64 bits is not Kafka's


class Truncated(ValueError):
    """Bytes that end inside a primitive, a negative length, or a varint longer than 64 bits."""


# ---- writing ---------------------------------------------------------------------------------


def uvarint(value: int) -> bytes:
    if value < 0:
        raise ValueError("uvarint of a negative number")
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | 0x80 if value else byte)
        if not value:
            return bytes(out)


def string(text: str | bytes) -> bytes:
    """A STRING: INT16 length, then the bytes (the request header's client id)."""
    data = text.encode() if isinstance(text, str) else text
    return struct.pack(">h", len(data)) + data


def compact_bytes(data: bytes | None) -> bytes:
    """COMPACT_BYTES: length + 1 as a uvarint (0: null)."""
    return b"\x00" if data is None else uvarint(len(data) + 1) + data


def compact_string(text: str | None) -> bytes:
    return compact_bytes(None if text is None else text.encode())


def compact_array(items: Sequence[bytes]) -> bytes:
    return uvarint(len(items) + 1) + b"".join(items)


def request_header(api_key: int, version: int, correlation_id: int, *, flexible: bool) -> bytes:
    """Request header v1 (key, version, correlation id, client id) or v2 (v1 and tags)."""
    header = struct.pack(">hhi", api_key, version, correlation_id) + string(CLIENT_ID)
    return header + NO_TAGS if flexible else header


# ---- reading ---------------------------------------------------------------------------------


class Reader:
    """Reads primitives from ``data`` at ``pos`` onwards; running short raises
    :class:`Truncated`."""

    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data = data
        self.pos = pos

    def take(self, size: int) -> bytes:
        if size < 0 or self.pos + size > len(self.data):
            raise Truncated(f"{size} bytes wanted at {self.pos} of {len(self.data)}")
        chunk = self.data[self.pos : self.pos + size]
        self.pos += size
        return chunk

    def skip(self, size: int) -> None:
        self.take(size)

    def rest(self) -> bytes:
        """What is left, all of it."""
        chunk, self.pos = self.data[self.pos :], len(self.data)
        return chunk

    def _fixed(self, fmt: str, size: int) -> int:
        value: int = struct.unpack(fmt, self.take(size))[0]
        return value

    def int8(self) -> int:
        return self._fixed(">b", 1)

    def int16(self) -> int:
        return self._fixed(">h", 2)

    def int32(self) -> int:
        return self._fixed(">i", 4)

    def int64(self) -> int:
        return self._fixed(">q", 8)

    def uuid(self) -> bytes:
        return self.take(16)

    def uvarint(self) -> int:
        shift = result = 0
        while True:
            byte = self.take(1)[0]
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return result
            shift += 7
            if shift > _MAX_SHIFT:
                raise Truncated("varint longer than 64 bits")

    def compact_bytes(self) -> bytes | None:
        size = self.uvarint() - 1
        return None if size < 0 else self.take(size)

    def compact_string(self) -> str | None:
        data = self.compact_bytes()
        return None if data is None else data.decode("utf-8", "replace")

    def count(self) -> int:
        """A compact array's length (a null array reads as empty)."""
        return max(self.uvarint() - 1, 0)

    def skip_tags(self) -> None:
        """A tag buffer, its fields unread: none of ours has a tag it needs."""
        for _ in range(self.uvarint()):
            self.uvarint()
            self.take(self.uvarint())


__all__ = [
    "CLIENT_ID",
    "NO_TAGS",
    "Reader",
    "Truncated",
    "compact_array",
    "compact_bytes",
    "compact_string",
    "request_header",
    "string",
    "uvarint",
]
