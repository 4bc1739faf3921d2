"""MQRFH version 1 header and NameValueString (reference §5.2, §3.4)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq import rfh1
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mq.rfh1 import Rfh1, format_name_values, parse_name_values

from .strategies import CHARS, ENCODINGS, mutated, rfh1s

PARSED = [
    ("", []),
    ("   ", []),
    ("MQPSCommand RegSub", [("MQPSCommand", "RegSub")]),
    (
        "MQPSCommand RegSub  MQPSTopic Sport/Soccer/#   MQPSRegOpts CorrelAsId ",
        [("MQPSCommand", "RegSub"), ("MQPSTopic", "Sport/Soccer/#"), ("MQPSRegOpts", "CorrelAsId")],
    ),
    # §5.2 example: quoted value with doubled quotes.
    (
        'Famous_Words "The program displayed ""Hello World"""',
        [("Famous_Words", 'The program displayed "Hello World"')],
    ),
    ('"a name" "a value"', [("a name", "a value")]),
    ('empty ""', [("empty", "")]),
    ('q """"', [("q", '"')]),
    ("a b\x00c d", [("a", "b")]),  # a NUL ends the string
    ("a b\x00", [("a", "b")]),
    ("a\tb\r\nc\nd", [("a", "b"), ("c", "d")]),
    ("Case case", [("Case", "case")]),
]


@pytest.mark.parametrize(("text", "pairs"), PARSED)
def test_parse_name_values(text: str, pairs: list[tuple[str, str]]) -> None:
    assert parse_name_values(text) == pairs


FORMATTED = [
    ([("MQPSCommand", "RegSub")], "MQPSCommand RegSub"),
    ([("Famous_Words", 'He said "hi"')], 'Famous_Words "He said ""hi"""'),
    ([("a", "")], 'a ""'),
    ([("t", "x\ty")], 't "x\ty"'),
    ([("MQPSTopic", "Sport/*")], "MQPSTopic Sport/*"),
]


@pytest.mark.parametrize(("pairs", "text"), FORMATTED)
def test_format_quotes_only_where_needed(pairs: list[tuple[str, str]], text: str) -> None:
    assert format_name_values(pairs) == text


# Malformed strings: MQRC_RFH_STRING_ERROR at the detection point (§3.4 MQPSErrorPos).
MALFORMED = [
    ("MQPSCommand", 11),  # name without value: detected at the end
    ("a b c", 5),
    ('a "unclosed', 11),
    ('a "x""', 6),
    ('a b"c', 3),
    ('a "b"c', 5),
    ('a "b\x00"', 4),  # the NUL ends the string inside the quotes
]


@pytest.mark.parametrize(("text", "position"), MALFORMED)
def test_malformed_name_values(text: str, position: int) -> None:
    with pytest.raises(MQError) as caught:
        parse_name_values(text)
    assert caught.value.reason == RC.RFH_STRING_ERROR
    assert caught.value.position == position


def test_format_refuses_nul() -> None:
    with pytest.raises(MQError) as caught:
        format_name_values([("a", "b\x00")])
    assert caught.value.reason == RC.RFH_STRING_ERROR


@given(
    st.lists(
        st.tuples(
            st.text(CHARS.filter(lambda c: c != "\x00")),
            st.text(CHARS.filter(lambda c: c != "\x00")),
        )
    )
)
def test_name_values_round_trip(pairs: list[tuple[str, str]]) -> None:
    assert parse_name_values(format_name_values(pairs)) == pairs


@given(st.text(st.sampled_from(list('ab "\x00\t')), max_size=30) | st.text(CHARS, max_size=40))
def test_fuzz_parse_name_values(text: str) -> None:
    try:
        pairs = parse_name_values(text)
    except MQError as error:
        assert error.reason == RC.RFH_STRING_ERROR
        assert error.position is not None and 0 <= error.position <= len(text)
    else:
        assert parse_name_values(format_name_values(pairs)) == pairs


def test_header_layout() -> None:
    header = Rfh1(encoding=273, ccsid=1208, format="MQSTR", name_values="MQPSCommand RegSub")
    data = rfh1.encode(header, 546)
    assert data[:4] == b"RFH "
    assert struct.unpack_from("<iiiI", data, 4) == (1, 52, 273, 1208)
    assert data[20:28] == b"MQSTR   "
    assert data[32:] == b"MQPSCommand RegSub  "  # blank-padded to a multiple of 4
    assert rfh1.decode(data + b"body", 546) == (header, 52)


def test_string_after_a_nul_and_trailing_blanks_are_ignored() -> None:
    string = b"MQPSCommand RegSub\x00garbage "
    data = struct.pack("<4siiii8si", b"RFH ", 1, 32 + len(string), 546, 0, b" " * 8, 0) + string
    header, used = rfh1.decode(data, 546)
    assert header.name_values == "MQPSCommand RegSub"
    assert header.ccsid == 0  # MQCCSI_UNDEFINED is the MQRFH initial value (§5.2)
    assert used == len(data)


def test_string_in_the_ccsid_before_the_header() -> None:
    header = Rfh1(name_values="MQPSTopic Café")
    latin1 = rfh1.encode(header, 546, string_ccsid=819)
    assert b"Caf\xe9" in latin1
    assert rfh1.decode(latin1, 546, string_ccsid=819)[0] == header
    utf16 = rfh1.encode(header, 273, string_ccsid=1200)
    assert "Café".encode("utf-16-be") in utf16
    assert rfh1.decode(utf16, 273, string_ccsid=1200)[0] == header


@given(rfh1s(), ENCODINGS, st.sampled_from([1208, 1200, 0]))
def test_round_trip(header: Rfh1, encoding: int, string_ccsid: int) -> None:
    data = rfh1.encode(header, encoding, string_ccsid)
    assert len(data) % 4 == 0
    assert rfh1.decode(data, encoding, string_ccsid) == (header, len(data))


def _fixed(version: int = 1, length: int = 32, ccsid: int = 0, strucid: bytes = b"RFH ") -> bytes:
    return struct.pack("<4siiii8si", strucid, version, length, 546, ccsid, b" " * 8, 0)


ERRORS = [
    ("short", _fixed()[:31], 1208, RC.RFH_ERROR),
    ("bad StrucId", _fixed(strucid=b"RFX "), 1208, RC.RFH_ERROR),
    ("version 2 where 1 expected", _fixed(version=2), 1208, RC.RFH_ERROR),
    ("StrucLength too small", _fixed(length=28), 1208, RC.RFH_ERROR),
    ("buffer shorter than StrucLength", _fixed(length=36), 1208, RC.RFH_ERROR),
    ("invalid negative CCSID", _fixed(ccsid=-5), 1208, RC.RFH_ERROR),
    ("unsupported string CCSID", _fixed(), 500, RC.RFH_ERROR),
    ("string not UTF-8", _fixed(length=36) + b"\xff\xfe\xfd\xfc", 1208, RC.RFH_STRING_ERROR),
]


@pytest.mark.parametrize(("case", "data", "ccsid", "reason"), ERRORS, ids=[r[0] for r in ERRORS])
def test_structure_errors(case: str, data: bytes, ccsid: int, reason: RC) -> None:
    with pytest.raises(MQError) as caught:
        rfh1.decode(data, 546, string_ccsid=ccsid)
    assert caught.value.reason == reason


def test_unencodable_string_is_string_error() -> None:
    with pytest.raises(MQError) as caught:
        rfh1.encode(Rfh1(name_values="a €"), 546, string_ccsid=819)
    assert caught.value.reason == RC.RFH_STRING_ERROR
    assert caught.value.position == 2


_VALID = st.tuples(rfh1s(), st.sampled_from([546, 273])).map(lambda t: rfh1.encode(*t))


@given(st.binary(max_size=120) | mutated(_VALID), st.sampled_from([546, 273, 0]))
def test_fuzz_decode_raises_only_mqerror(data: bytes, encoding: int) -> None:
    try:
        header, used = rfh1.decode(data, encoding)
    except MQError as error:
        assert error.reason in (RC.RFH_ERROR, RC.RFH_STRING_ERROR)
    else:
        assert 32 <= used <= len(data)
        try:
            header.pairs()
        except MQError as error:
            assert error.reason == RC.RFH_STRING_ERROR
