"""MQMD value, constants and binary layout (reference §5.1, §6; wire contract §2)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import (
    MQCI_NEW_SESSION,
    MQCI_NONE,
    MQENC,
    MQFMT_NONE,
    MQFMT_RF_HEADER,
    MQFMT_RF_HEADER_2,
    MQFMT_STRING,
    MQMD,
    MQMD_DEFAULT,
    MQMD_LENGTH_1,
    MQMD_LENGTH_2,
    MQMT,
    MQPER,
    MQRO,
    byte_order_of,
    is_big_endian,
)
from mqkafka.mq.reasons import RC

from .strategies import ENCODINGS, mqmds

# MQMD_DEFAULT: the wire-contract table (Encoding 546, CCSID 1208) over reference §6.
DEFAULTS = [
    ("Report", 0),
    ("MsgType", 8),
    ("Expiry", -1),
    ("Feedback", 0),
    ("Encoding", 546),
    ("CodedCharSetId", 1208),
    ("Format", "        "),
    ("Priority", -1),
    ("Persistence", 2),
    ("MsgId", bytes(24)),
    ("CorrelId", bytes(24)),
    ("BackoutCount", 0),
    ("ReplyToQ", ""),
    ("ReplyToQMgr", ""),
    ("UserIdentifier", ""),
    ("AccountingToken", bytes(32)),
    ("ApplIdentityData", ""),
    ("PutApplType", 0),
    ("PutApplName", ""),
    ("PutDate", ""),
    ("PutTime", ""),
    ("ApplOriginData", ""),
    ("GroupId", bytes(24)),
    ("MsgSeqNumber", 1),
    ("Offset", 0),
    ("MsgFlags", 0),
    ("OriginalLength", -1),
]


@pytest.mark.parametrize(("field", "value"), DEFAULTS)
def test_default_values(field: str, value: object) -> None:
    assert getattr(MQMD_DEFAULT, field) == value


def test_every_field_has_a_default_row() -> None:
    assert [name for name, _ in DEFAULTS] == list(MQMD_DEFAULT.as_dict())


# Binary offsets of reference §6: (field, offset, length, value to plant).
OFFSETS = [
    ("Report", 8, 4, 0x40),
    ("MsgType", 12, 4, 1),
    ("Expiry", 16, 4, 600),
    ("Feedback", 20, 4, 275),
    ("Encoding", 24, 4, 273),
    ("CodedCharSetId", 28, 4, 819),
    ("Format", 32, 8, "MQHRF2  "),
    ("Priority", 40, 4, 5),
    ("Persistence", 44, 4, 1),
    ("MsgId", 48, 24, b"M" * 24),
    ("CorrelId", 72, 24, b"C" * 24),
    ("BackoutCount", 96, 4, 3),
    ("ReplyToQ", 100, 48, "REPLY.Q"),
    ("ReplyToQMgr", 148, 48, "QM1"),
    ("UserIdentifier", 196, 12, "fred"),
    ("AccountingToken", 208, 32, b"A" * 32),
    ("ApplIdentityData", 240, 32, "ident"),
    ("PutApplType", 272, 4, 26),
    ("PutApplName", 276, 28, "mqkafka"),
    ("PutDate", 304, 8, "20240101"),
    ("PutTime", 312, 8, "12000000"),
    ("ApplOriginData", 320, 4, "orig"),
    ("GroupId", 324, 24, b"G" * 24),
    ("MsgSeqNumber", 348, 4, 7),
    ("Offset", 352, 4, 100),
    ("MsgFlags", 356, 4, 8),
    ("OriginalLength", 360, 4, 999),
]


@pytest.mark.parametrize(("field", "offset", "length", "value"), OFFSETS)
@pytest.mark.parametrize("encoding", [546, 273])
def test_binary_layout_offsets(
    field: str, offset: int, length: int, value: object, encoding: int
) -> None:
    raw = MQMD_DEFAULT.replace(**{field: value}).to_bytes(encoding)
    assert len(raw) == MQMD_LENGTH_2 == 364
    chunk = raw[offset : offset + length]
    if isinstance(value, int):
        assert struct.unpack(("<" if encoding == 546 else ">") + "i", chunk)[0] == value
    elif isinstance(value, str):
        assert chunk == value.encode().ljust(length, b" ")
    else:
        assert chunk == value


def test_binary_header_is_md_version_2() -> None:
    raw = MQMD_DEFAULT.to_bytes(273)
    assert raw[:4] == b"MD  "
    assert raw[4:8] == b"\x00\x00\x00\x02"


@given(mqmds(), ENCODINGS)
def test_binary_round_trip(md: MQMD, encoding: int) -> None:
    assert MQMD.from_bytes(md.to_bytes(encoding)) == md
    assert MQMD.from_bytes(md.to_bytes(encoding), encoding) == md


def test_version_1_reads_with_v2_defaults() -> None:
    md = MQMD(MsgType=MQMT.REQUEST, ReplyToQ="R", GroupId=b"g" * 24, MsgSeqNumber=5)
    v1 = bytearray(md.to_bytes(546)[:MQMD_LENGTH_1])
    v1[4:8] = struct.pack("<i", 1)
    assert MQMD.from_bytes(bytes(v1)) == md.replace(GroupId=bytes(24), MsgSeqNumber=1)


def test_binary_text_stops_at_nul() -> None:
    raw = bytearray(MQMD(ReplyToQ="ABC").to_bytes(546))
    raw[103] = 0  # "ABC\0" then blanks
    raw[104:108] = b"JUNK"
    assert MQMD.from_bytes(bytes(raw)).ReplyToQ == "ABC"


FROM_BYTES_ERRORS = [
    ("short", b"MD  " + bytes(100)),
    ("strucid", b"XX  " + MQMD_DEFAULT.to_bytes(546)[4:]),
    ("version 3", MQMD_DEFAULT.to_bytes(546)[:4] + struct.pack("<i", 3) + bytes(356)),
    ("v2 truncated", MQMD_DEFAULT.to_bytes(546)[:340]),
    ("bad utf-8", MQMD_DEFAULT.to_bytes(546)[:100] + b"\xff" * 48 + bytes(216)),
    ("non-ascii format", MQMD_DEFAULT.to_bytes(546)[:32] + "é".encode().ljust(8) + bytes(324)),
]


@pytest.mark.parametrize(("case", "raw"), FROM_BYTES_ERRORS)
def test_from_bytes_errors_are_md_error(case: str, raw: bytes) -> None:
    with pytest.raises(MQError) as caught:
        MQMD.from_bytes(raw)
    assert caught.value.reason == RC.MD_ERROR


@given(st.binary(max_size=400))
def test_from_bytes_fuzz_raises_only_mqerror(raw: bytes) -> None:
    try:
        MQMD.from_bytes(raw)
    except MQError as error:
        assert error.reason == RC.MD_ERROR


@given(st.binary(min_size=364, max_size=364), st.sampled_from([b"\x00\x00\x00\x02", b"\x02\0\0\0"]))
def test_from_bytes_fuzz_past_the_header(raw: bytes, version: bytes) -> None:
    try:
        md = MQMD.from_bytes(b"MD  " + version + raw[8:])
    except MQError as error:
        assert error.reason == RC.MD_ERROR
    else:
        assert MQMD.from_bytes(md.to_bytes(546)) == md


VALIDATION_ERRORS = [
    ({"MsgId": b"short"}, "MsgId"),
    ({"CorrelId": bytes(25)}, "CorrelId"),
    ({"AccountingToken": bytes(24)}, "AccountingToken"),
    ({"GroupId": "text"}, "GroupId"),
    ({"ReplyToQ": "Q" * 49}, "ReplyToQ"),
    ({"ReplyToQMgr": "M" * 49}, "ReplyToQMgr"),
    ({"UserIdentifier": "u" * 13}, "UserIdentifier"),
    ({"ApplIdentityData": "a" * 33}, "ApplIdentityData"),
    ({"PutApplName": "p" * 29}, "PutApplName"),
    ({"PutDate": "202401011"}, "PutDate"),
    ({"PutTime": "123456789"}, "PutTime"),
    ({"ApplOriginData": "abcde"}, "ApplOriginData"),
    ({"Format": "TOOLONGFMT"}, "Format"),
    ({"Format": "MQSTRé"}, "Format"),
    ({"UserIdentifier": "ééééééé"}, "UserIdentifier"),  # 7 chars, 14 bytes > 12
    ({"ReplyToQ": "A\x00B"}, "ReplyToQ"),
    ({"Priority": 2**31}, "Priority"),
    ({"Expiry": -(2**31) - 1}, "Expiry"),
    ({"MsgType": "8"}, "MsgType"),
    ({"Persistence": True}, "Persistence"),
]


@pytest.mark.parametrize(("changes", "field"), VALIDATION_ERRORS)
def test_invalid_fields_raise_md_error_naming_the_field(
    changes: dict[str, object], field: str
) -> None:
    with pytest.raises(MQError) as caught:
        MQMD(**changes)  # type: ignore[arg-type]
    assert caught.value.reason == RC.MD_ERROR
    assert caught.value.parm == field
    with pytest.raises(MQError):
        MQMD_DEFAULT.replace(**changes)


NORMALISED = [
    ({"ReplyToQ": "Q1   "}, "ReplyToQ", "Q1"),
    ({"ReplyToQ": "  Q1"}, "ReplyToQ", "  Q1"),
    ({"Format": "MQHRF2"}, "Format", "MQHRF2  "),
    ({"Format": ""}, "Format", "        "),
    ({"MsgId": bytearray(24)}, "MsgId", bytes(24)),
    ({"MsgType": MQMT.REQUEST}, "MsgType", 1),
]


@pytest.mark.parametrize(("changes", "field", "stored"), NORMALISED)
def test_canonical_form(changes: dict[str, object], field: str, stored: object) -> None:
    value = getattr(MQMD(**changes), field)  # type: ignore[arg-type]
    assert value == stored
    assert type(value) is type(stored)


def test_replace_keeps_other_fields() -> None:
    md = MQMD(CorrelId=b"c" * 24).replace(Priority=4)
    assert (md.Priority, md.CorrelId) == (4, b"c" * 24)


def test_format_name_strips_padding() -> None:
    assert MQMD(Format=MQFMT_RF_HEADER_2).format_name == "MQHRF2"
    assert MQMD_DEFAULT.format_name == ""


CONSTANTS = [
    (MQFMT_NONE, "        "),
    (MQFMT_STRING, "MQSTR   "),
    (MQFMT_RF_HEADER, "MQHRF   "),
    (MQFMT_RF_HEADER_2, "MQHRF2  "),
    (MQCI_NONE, bytes(24)),
    (MQCI_NEW_SESSION, b"AMQ!NEW_SESSION_CORRELID"),
    (MQMT.REQUEST, 1),
    (MQMT.REPLY, 2),
    (MQMT.REPORT, 4),
    (MQMT.DATAGRAM, 8),
    (MQRO.PAN, 0x1),
    (MQRO.NAN, 0x2),
    (MQRO.PASS_CORREL_ID, 0x40),
    (MQRO.PASS_MSG_ID, 0x80),
    (MQRO.COPY_MSG_ID_TO_CORREL_ID, 0),
    (MQRO.COA_WITH_FULL_DATA, 0x700),
    (MQRO.DISCARD_MSG, 0x8000000),
    (MQPER.PERSISTENCE_AS_Q_DEF, 2),
    (MQENC.NORMAL, 273),
    (MQENC.REVERSED, 546),
    (MQENC.S390, 785),
    (MQENC.NATIVE, 546),
]


@pytest.mark.parametrize(("constant", "value"), CONSTANTS)
def test_constant_values(constant: object, value: object) -> None:
    assert constant == value


def test_new_session_correl_id_is_an_id() -> None:
    assert len(MQCI_NEW_SESSION) == 24
    assert MQMD(CorrelId=MQCI_NEW_SESSION).CorrelId == MQCI_NEW_SESSION


# §5.1: Encoding & 0x0F = 1 → big-endian, 2 → little-endian; pymqi treats 16, 256, 768,
# 272 (integer part undefined) as big-endian.
ENDIANNESS = [
    (273, True),
    (1, True),
    (17, True),
    (257, True),
    (785, True),
    (546, False),
    (2, False),
    (0x222, False),
    (16, True),
    (256, True),
    (768, True),
    (272, True),
    (0, True),
]


@pytest.mark.parametrize(("encoding", "big"), ENDIANNESS)
def test_is_big_endian(encoding: int, big: bool) -> None:
    assert is_big_endian(encoding) is big
    assert byte_order_of(encoding) == (">" if big else "<")


@pytest.mark.parametrize(
    ("encoding", "version_field", "order"),
    [
        (0, b"\x02\x00\x00\x00", "<"),
        (0, b"\x00\x00\x00\x02", ">"),
        (16, b"\x01\x00\x00\x00", "<"),
        (546, b"\x00\x00\x00\x02", "<"),  # a defined integer part wins over the probe
        (273, b"\x02\x00\x00\x00", ">"),
    ],
)
def test_byte_order_probe_when_integer_part_undefined(
    encoding: int, version_field: bytes, order: str
) -> None:
    assert byte_order_of(encoding, version_field) == order


def test_seed_s1_correl_id_travels_in_the_mqmd() -> None:
    """S1: "all publications sent by the broker to a subscriber specify the correlation
    identifier in the CorrelId field of the message descriptor (MQMD)" — the CorrelId is a
    24-byte MQMD field that survives the binary MQMD."""
    correl = bytes(range(24))
    md = MQMD(CorrelId=correl)
    assert MQMD.from_bytes(md.to_bytes(273)).CorrelId == correl
