"""MQRFH (rules and formatting header, version 1) and its NameValueString (reference §5.2).

Layout: StrucId ``RFH ``, Version 1, StrucLength (32 + string, a multiple of 4), Encoding,
CodedCharSetId, Format(8), Flags, then the NameValueString up to StrucLength. The header's
integers are in the encoding of the preceding structure and the string in the preceding
structure's CCSID (``string_ccsid``).

NameValueString rules (§5.2, MQ9:NameValueString):

* pairs ``name value`` are separated by one or more blanks: space, and also tab, CR, LF
  (tolerated so that hand-written commands parse);
* a token holding blanks or ``"`` is double-quoted and ``""`` inside is one ``"``;
  ``format_name_values`` quotes only such tokens (and the empty token);
* any character but NUL is allowed; a NUL ends the string and what follows is ignored;
* names and values are case-sensitive and kept verbatim.

Malformed strings raise MQRC_RFH_STRING_ERROR (2335) with ``position`` the 0-based character
offset where the problem was detected (§3.4 MQPSErrorPos); for an unmatched quote or a name
without a value that is the end of the string, where more input was needed.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import CCSID_UTF8, MQENC, MQFMT_NONE, byte_order_of, codec_for_ccsid
from mqkafka.mq.reasons import RC
from mqkafka.mq.rfh2 import (
    MQRFH_NONE,
    MQRFH_STRUC_ID,
    MQRFH_STRUC_LENGTH_FIXED,
    MQRFH_VERSION_1,
    check_data_ccsid,
    check_format,
    check_mqlong,
    read_fixed,
)

BLANKS: Final = " \t\r\n"
_NEEDS_QUOTES: Final = frozenset(BLANKS + '"')


@dataclass(frozen=True, slots=True)
class Rfh1:
    """One MQRFH. ``name_values`` is the NameValueString up to any NUL, trailing blanks (the
    padding) removed."""

    encoding: int = MQENC.NATIVE
    ccsid: int = CCSID_UTF8
    format: str = MQFMT_NONE
    flags: int = MQRFH_NONE
    name_values: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "encoding", check_mqlong(self.encoding, "Encoding"))
        object.__setattr__(self, "ccsid", check_data_ccsid(self.ccsid, zero_allowed=True))
        object.__setattr__(self, "format", check_format(self.format))
        object.__setattr__(self, "flags", check_mqlong(self.flags, "Flags"))
        if not isinstance(self.name_values, str):
            raise MQError(RC.RFH_STRING_ERROR, "NameValueString must be text")
        significant = self.name_values.split("\x00", 1)[0].rstrip(" ")
        if significant != self.name_values:
            object.__setattr__(self, "name_values", significant)

    def pairs(self) -> list[tuple[str, str]]:
        """The parsed NameValueString."""
        return parse_name_values(self.name_values)


def _string_codec(string_ccsid: int, order: str) -> str:
    codec = codec_for_ccsid(string_ccsid, big_endian=order == ">")
    if codec is None:
        raise MQError(RC.RFH_ERROR, f"NameValueString CCSID {string_ccsid} is not supported")
    return codec


def encode(rfh1: Rfh1, int_encoding: int, string_ccsid: int = CCSID_UTF8) -> bytes:
    """The header's bytes; the string blank-padded so StrucLength is a multiple of 4."""
    order = byte_order_of(int_encoding)
    codec = _string_codec(string_ccsid, order)
    try:
        data = rfh1.name_values.encode(codec)
    except UnicodeEncodeError as error:
        raise MQError(
            RC.RFH_STRING_ERROR,
            f"NameValueString not encodable in {codec}: {error.reason}",
            position=error.start,
        ) from None
    blank = " ".encode(codec)
    while len(data) % 4:
        data += blank
    length = MQRFH_STRUC_LENGTH_FIXED + len(data)
    fixed = struct.pack(
        order + "4siiii8si",
        MQRFH_STRUC_ID,
        MQRFH_VERSION_1,
        length,
        rfh1.encoding,
        rfh1.ccsid,
        rfh1.format.encode("ascii"),
        rfh1.flags,
    )
    return fixed + data


def decode(buf: bytes, int_encoding: int, string_ccsid: int = CCSID_UTF8) -> tuple[Rfh1, int]:
    """The MQRFH at the start of ``buf`` and the bytes it occupies (StrucLength)."""
    order, (length, encoding, ccsid, fmt, flags) = read_fixed(
        buf, int_encoding, MQRFH_VERSION_1, MQRFH_STRUC_LENGTH_FIXED
    )
    codec = _string_codec(string_ccsid, order)
    raw = bytes(buf[MQRFH_STRUC_LENGTH_FIXED:length])
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError as error:
        raise MQError(
            RC.RFH_STRING_ERROR,
            f"NameValueString is not {codec}: {error.reason}",
            position=error.start,
        ) from None
    return Rfh1(encoding, ccsid, fmt, flags, text), length


def parse_name_values(text: str) -> list[tuple[str, str]]:
    """``name value name value ...`` → pairs, unquoting quoted tokens."""
    end = text.find("\x00")
    if end < 0:
        end = len(text)
    tokens: list[str] = []
    pos = 0
    while True:
        while pos < end and text[pos] in BLANKS:
            pos += 1
        if pos >= end:
            break
        if text[pos] == '"':
            token, pos = _quoted(text, pos, end)
        else:
            start = pos
            while pos < end and text[pos] not in BLANKS:
                if text[pos] == '"':
                    raise _string_error("'\"' inside an unquoted name or value", pos)
                pos += 1
            token = text[start:pos]
        tokens.append(token)
    if len(tokens) % 2:
        raise _string_error(f"name {tokens[-1]!r} has no value", end, parm=tokens[-1])
    return list(zip(tokens[0::2], tokens[1::2], strict=True))


def _quoted(text: str, start: int, end: int) -> tuple[str, int]:
    """The quoted token opening at ``start``; returns it and the offset after it."""
    parts: list[str] = []
    pos = start + 1
    while True:
        close = text.find('"', pos, end)
        if close < 0:
            raise _string_error("unmatched '\"'", end)
        parts.append(text[pos:close])
        if close + 1 < end and text[close + 1] == '"':  # doubled quote: one literal '"'
            parts.append('"')
            pos = close + 2
            continue
        pos = close + 1
        if pos < end and text[pos] not in BLANKS:
            raise _string_error("text follows a closing '\"' without a blank", pos)
        return "".join(parts), pos


def format_name_values(pairs: Iterable[tuple[str, str]]) -> str:
    """Pairs → NameValueString, one blank between tokens, quoting only where needed."""
    return " ".join(_token(token) for pair in pairs for token in pair)


def _token(token: str) -> str:
    if "\x00" in token:
        raise _string_error("a name or value cannot contain NUL", token.index("\x00"))
    if token and _NEEDS_QUOTES.isdisjoint(token):
        return token
    return '"' + token.replace('"', '""') + '"'


def _string_error(problem: str, position: int, parm: str | None = None) -> MQError:
    return MQError(
        RC.RFH_STRING_ERROR, f"{problem} at offset {position}", position=position, parm=parm
    )
