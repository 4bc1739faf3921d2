"""MQRFH2 (rules and formatting header, version 2) encode/decode (reference §5.1).

Layout: StrucId ``RFH ``, Version 2, StrucLength, Encoding, CodedCharSetId, Format(8), Flags,
NameValueCCSID, then any number of (NameValueLength, NameValueData) pairs. StrucLength is
36 + Σ(4 + NameValueLength) and excludes the data after the header.

* The header's integers are in the encoding of the structure *before* it (the caller passes
  it as ``int_encoding``); ``Encoding``/``CodedCharSetId``/``Format`` describe what *follows*.
* NameValueData is in ``NameValueCCSID``: 1208 (UTF-8) or 1200/13488/17584 (UTF-16). UTF-16
  byte order follows ``int_encoding`` — UNCERTAIN (§5.1 "byte order = Encoding"): the choice
  is the encoding the header itself is written in, since MQ converts NameValueData together
  with the header's integers and never separately (§5.1 "never character-converted").
* Padding (§10.18): written as spaces to a multiple of 4; read as trailing spaces and/or NULs.
* Errors: the binary structure is MQRC_RFH_ERROR (2334: StrucId, Version, StrucLength too
  small or not covering the folders or longer than the buffer, CCSID 0 or negative other than
  MQCCSI_INHERIT, unsupported NameValueCCSID); NameValueData that does not decode in its CCSID
  is MQRC_RFH_FORMAT_ERROR (2421), as malformed folder text is (see ``folders``).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from mqkafka.mq.errors import MQError
from mqkafka.mq.folders import Folder, render_folder
from mqkafka.mq.mqmd import (
    CCSID_UTF8,
    CCSID_UTF16,
    MQCCSI_INHERIT,
    MQENC,
    MQFMT_NONE,
    byte_order_of,
    codec_for_ccsid,
)
from mqkafka.mq.reasons import RC

MQRFH_STRUC_ID: Final = b"RFH "
MQRFH_VERSION_1: Final = 1
MQRFH_VERSION_2: Final = 2
MQRFH_STRUC_LENGTH_FIXED: Final = 32
MQRFH_STRUC_LENGTH_FIXED_2: Final = 36
MQRFH_NONE: Final = 0
NAME_VALUE_CCSIDS: Final = (CCSID_UTF8, *CCSID_UTF16)

_INT32_MIN: Final = -(2**31)
_INT32_MAX: Final = 2**31 - 1
_PADDING: Final = " \x00"


# ---- field rules shared with the version 1 header (rfh1.py) ----


def check_mqlong(value: object, field: str) -> int:
    """An MQLONG field of an RFH header, or MQRC_RFH_ERROR."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise MQError(RC.RFH_ERROR, f"RFH {field} must be an integer", parm=field)
    if not _INT32_MIN <= value <= _INT32_MAX:
        raise MQError(RC.RFH_ERROR, f"RFH {field} {value} does not fit an MQLONG", parm=field)
    return int(value)


def check_format(value: object) -> str:
    """A Format field: at most 8 ASCII characters without NUL, stored blank-padded to 8."""
    if not isinstance(value, str) or not value.isascii() or "\x00" in value:
        raise MQError(RC.RFH_ERROR, f"RFH Format {value!r} is not ASCII text", parm="Format")
    text = value.rstrip(" ")
    if len(text) > 8:
        raise MQError(RC.RFH_ERROR, f"RFH Format {value!r} is longer than 8", parm="Format")
    return text.ljust(8)


def read_format(raw: bytes) -> str:
    """A Format field from the wire: a NUL ends it (C string), blanks pad it."""
    try:
        return raw.split(b"\x00", 1)[0].decode("ascii")
    except UnicodeDecodeError:
        raise MQError(RC.RFH_ERROR, f"RFH Format {raw!r} is not ASCII", parm="Format") from None


def check_data_ccsid(value: object, *, zero_allowed: bool) -> int:
    """CodedCharSetId of the data after the header: positive, or MQCCSI_INHERIT (-2); 0 is
    invalid for MQRFH2 (MQ9:2334) but is the documented initial value for MQRFH (§5.2)."""
    ccsid = check_mqlong(value, "CodedCharSetId")
    if (ccsid == 0 and not zero_allowed) or (ccsid < 0 and ccsid != MQCCSI_INHERIT):
        raise MQError(RC.RFH_ERROR, f"RFH CodedCharSetId {ccsid} is invalid", parm="CCSID")
    return ccsid


FixedFields = tuple[int, int, int, str, int]
"""StrucLength, Encoding, CodedCharSetId, Format, Flags."""


def read_fixed(buf: bytes, int_encoding: int, version: int, fixed: int) -> tuple[str, FixedFields]:
    """Check StrucId/Version/StrucLength of an RFH header at the start of ``buf`` and return
    the struct byte order and the fixed fields common to both versions."""
    if len(buf) < 4 or buf[:4] != MQRFH_STRUC_ID:
        raise MQError(RC.RFH_ERROR, f"RFH StrucId is {bytes(buf[:4])!r}, not b'RFH '")
    if len(buf) < fixed:
        raise MQError(RC.RFH_ERROR, f"RFH needs {fixed} bytes, the message has {len(buf)}")
    order = byte_order_of(int_encoding, bytes(buf[4:8]))
    got_version, length, encoding, ccsid, raw_format, flags = struct.unpack_from(
        order + "iiii8si", buf, 4
    )
    if got_version != version:
        raise MQError(RC.RFH_ERROR, f"RFH Version is {got_version}, expected {version}")
    if length < fixed:
        raise MQError(RC.RFH_ERROR, f"RFH StrucLength {length} is less than {fixed}")
    if length > len(buf):
        raise MQError(
            RC.RFH_ERROR, f"RFH StrucLength {length} is longer than the {len(buf)} bytes left"
        )
    return order, (length, encoding, ccsid, read_format(raw_format), flags)


# ---- the version 2 header ----


@dataclass(frozen=True, slots=True)
class Rfh2:
    """One MQRFH2. ``folders`` are the NameValueData texts in order, padding removed; an empty
    NameValueData carries nothing and is dropped."""

    encoding: int = MQENC.NATIVE
    ccsid: int = CCSID_UTF8
    format: str = MQFMT_NONE
    flags: int = MQRFH_NONE
    name_value_ccsid: int = CCSID_UTF8
    folders: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "encoding", check_mqlong(self.encoding, "Encoding"))
        object.__setattr__(self, "ccsid", check_data_ccsid(self.ccsid, zero_allowed=False))
        object.__setattr__(self, "format", check_format(self.format))
        object.__setattr__(self, "flags", check_mqlong(self.flags, "Flags"))
        nv_ccsid = check_mqlong(self.name_value_ccsid, "NameValueCCSID")
        if nv_ccsid not in NAME_VALUE_CCSIDS:
            raise MQError(
                RC.RFH_ERROR,
                f"NameValueCCSID {nv_ccsid} is not one of {NAME_VALUE_CCSIDS}",
                parm="NameValueCCSID",
            )
        object.__setattr__(self, "name_value_ccsid", nv_ccsid)
        if not isinstance(self.folders, tuple) or not all(
            isinstance(text, str) for text in self.folders
        ):
            raise MQError(RC.RFH_FORMAT_ERROR, "RFH2 folders must be a tuple of str")
        stripped = tuple(t for t in (text.rstrip(_PADDING) for text in self.folders) if t)
        if stripped != self.folders:
            object.__setattr__(self, "folders", stripped)

    @classmethod
    def of(
        cls,
        folders: Iterable[Folder | str],
        *,
        encoding: int = MQENC.NATIVE,
        ccsid: int = CCSID_UTF8,
        format: str = MQFMT_NONE,
        flags: int = MQRFH_NONE,
        name_value_ccsid: int = CCSID_UTF8,
    ) -> Rfh2:
        """An RFH2 from parsed folders (rendered) and/or texts."""
        texts = tuple(f if isinstance(f, str) else render_folder(f) for f in folders)
        return cls(encoding, ccsid, format, flags, name_value_ccsid, texts)


def encode(rfh2: Rfh2, int_encoding: int) -> bytes:
    """The header's bytes, integers in the byte order of ``int_encoding``."""
    order = byte_order_of(int_encoding)
    codec = codec_for_ccsid(rfh2.name_value_ccsid, big_endian=order == ">")
    assert codec is not None  # Rfh2 only admits NAME_VALUE_CCSIDS
    blank = " ".encode(codec)
    body = bytearray()
    for text in rfh2.folders:
        try:
            data = text.encode(codec)
        except UnicodeEncodeError as error:
            raise MQError(
                RC.RFH_FORMAT_ERROR, f"folder text not encodable in {codec}: {error.reason}"
            ) from None
        while len(data) % 4:
            data += blank
        body += struct.pack(order + "i", len(data)) + data
    length = MQRFH_STRUC_LENGTH_FIXED_2 + len(body)
    if length > _INT32_MAX:
        raise MQError(RC.RFH_ERROR, "RFH2 longer than an MQLONG can say")
    fixed = struct.pack(
        order + "4siiii8sii",
        MQRFH_STRUC_ID,
        MQRFH_VERSION_2,
        length,
        rfh2.encoding,
        rfh2.ccsid,
        rfh2.format.encode("ascii"),
        rfh2.flags,
        rfh2.name_value_ccsid,
    )
    return fixed + bytes(body)


def decode(buf: bytes, int_encoding: int) -> tuple[Rfh2, int]:
    """The MQRFH2 at the start of ``buf`` and the number of bytes it occupies (StrucLength).

    ``int_encoding`` is the Encoding of the preceding structure; when its integer part is
    undefined the byte order is recognised from the Version field (as pymqi does).
    """
    order, (length, encoding, ccsid, fmt, flags) = read_fixed(
        buf, int_encoding, MQRFH_VERSION_2, MQRFH_STRUC_LENGTH_FIXED_2
    )
    (nv_ccsid,) = struct.unpack_from(order + "i", buf, 32)
    check_mqlong(nv_ccsid, "NameValueCCSID")
    codec = codec_for_ccsid(nv_ccsid, big_endian=order == ">")
    if nv_ccsid not in NAME_VALUE_CCSIDS or codec is None:
        raise MQError(RC.RFH_ERROR, f"NameValueCCSID {nv_ccsid} is not supported")
    folders: list[str] = []
    pos = MQRFH_STRUC_LENGTH_FIXED_2
    # Slack after the last folder made only of padding bytes (AMQSPR2A rounds StrucLength up
    # with NULs) is padding, not a NameValueLength.
    significant_end = len(bytes(buf[:length]).rstrip(b" \x00"))
    while pos < length and pos < significant_end:
        if pos + 4 > length:
            raise MQError(RC.RFH_ERROR, f"RFH2 StrucLength {length} cuts a NameValueLength")
        (size,) = struct.unpack_from(order + "i", buf, pos)
        if size < 0 or pos + 4 + size > length:
            raise MQError(
                RC.RFH_ERROR,
                f"NameValueLength {size} at offset {pos} is not covered by StrucLength {length}",
                position=pos,
            )
        data = bytes(buf[pos + 4 : pos + 4 + size])
        try:
            folders.append(data.decode(codec))
        except UnicodeDecodeError as error:
            raise MQError(
                RC.RFH_FORMAT_ERROR,
                f"NameValueData at offset {pos + 4} is not {codec}: {error.reason}",
                position=pos + 4 + error.start,
            ) from None
        pos += 4 + size
    return Rfh2(encoding, ccsid, fmt, flags, nv_ccsid, tuple(folders)), length
