"""MQRFH2 version 2 header (reference §5.1, §3.5, §10.18)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq import rfh2
from mqkafka.mq.errors import MQError
from mqkafka.mq.folders import Folder, parse_folder
from mqkafka.mq.mqmd import MQFMT_STRING
from mqkafka.mq.reasons import RC
from mqkafka.mq.rfh2 import Rfh2

from .samples import (
    PYMQI_BODY,
    PYMQI_MCD,
    PYMQI_PSC,
    PYMQI_TEST_FOLDER,
    WORKED_BYTES,
    WORKED_FOLDER,
    pymqi_single_rfh2,
)
from .strategies import ENCODINGS, mutated, rfh2s


def test_worked_example_of_reference_5_1_decodes_and_reencodes_byte_exactly() -> None:
    """§5.1 worked example: a RegSub with topic Sport/Soccer/# and CorrelAsId, little-endian,
    UTF-8, folder of 92 bytes, StrucLength 132."""
    header, used = rfh2.decode(WORKED_BYTES, 546)
    assert used == 132 == len(WORKED_BYTES)
    assert header == Rfh2(
        encoding=546,
        ccsid=1208,
        format="        ",
        flags=0,
        name_value_ccsid=1208,
        folders=(WORKED_FOLDER,),
    )
    assert rfh2.encode(header, 546) == WORKED_BYTES
    assert parse_folder(header.folders[0]).pairs() == [
        ("Command", "RegSub"),
        ("Topic", "Sport/Soccer/#"),
        ("RegOpt", "CorrelAsId"),
    ]


def test_pymqi_single_rfh2_shape_decodes() -> None:
    data = pymqi_single_rfh2()
    assert len(data) == 333
    header, used = rfh2.decode(data, 273)
    assert used == 284
    assert (header.encoding, header.ccsid, header.format, header.flags) == (
        273,
        1208,
        MQFMT_STRING,
        0,
    )
    assert header.name_value_ccsid == 1208
    assert header.folders == (PYMQI_PSC, PYMQI_TEST_FOLDER, PYMQI_MCD)
    assert data[used:] == PYMQI_BODY
    assert rfh2.encode(header, 273) == data[:284]


def test_pymqi_not_well_formed_variant_is_rfh_error() -> None:
    """pymqi's test cuts 4 bytes out of the psc folder; the lengths no longer line up."""
    data = pymqi_single_rfh2()
    with pytest.raises(MQError) as caught:
        rfh2.decode(data[:117] + data[121:], 273)
    assert caught.value.reason == RC.RFH_ERROR


def test_pymqi_sample_read_with_the_wrong_encoding_is_rfh_error() -> None:
    with pytest.raises(MQError) as caught:
        rfh2.decode(pymqi_single_rfh2(), 546)
    assert caught.value.reason == RC.RFH_ERROR


def test_integer_part_undefined_is_recognised_from_the_version_field() -> None:
    header, used = rfh2.decode(pymqi_single_rfh2(), 0)
    assert used == 284 and header.encoding == 273


def _with_folders(*raw: bytes, order: str = "<", slack: bytes = b"") -> bytes:
    body = b"".join(struct.pack(order + "i", len(r)) + r for r in raw) + slack
    fixed = struct.pack(
        order + "4siiii8sii", b"RFH ", 2, 36 + len(body), 546, 1208, b" " * 8, 0, 1208
    )
    return fixed + body


@pytest.mark.parametrize(
    "padded",
    [
        b"<usr><a>1</a></usr>   ",  # spaces (IBM docs, pymqi)
        b"<usr><a>1</a></usr>\x00\x00\x00",  # NULs (AMQSPR2A)
        b"<usr><a>1</a></usr> \x00\x00",
        b"<usr><a>1</a></usr>\x00 \x00  \x00\x00",
    ],
)
def test_padding_with_spaces_and_nuls_is_stripped(padded: bytes) -> None:
    """§10.18: write spaces, accept both."""
    header, _ = rfh2.decode(_with_folders(padded), 546)
    assert header.folders == ("<usr><a>1</a></usr>",)


def test_structure_length_rounded_up_with_nuls_is_padding() -> None:
    """AMQSPR2A pads StrucLength to a multiple of 16 with NULs after the last folder."""
    data = _with_folders(b"<psc></psc>\x00", slack=bytes(12))
    header, used = rfh2.decode(data, 546)
    assert header.folders == ("<psc></psc>",)
    assert used == len(data)


def test_writer_pads_with_spaces_to_a_multiple_of_four() -> None:
    data = rfh2.encode(Rfh2(folders=("<psc/>", "<usr></usr>")), 546)
    assert data[36:] == b"\x08\x00\x00\x00<psc/>  \x0c\x00\x00\x00<usr></usr> "
    assert struct.unpack_from("<i", data, 8)[0] == len(data) == 36 + 12 + 16


@pytest.mark.parametrize(
    ("ccsid", "encoding"), [(1200, 546), (1200, 273), (13488, 546), (17584, 273)]
)
def test_utf16_name_value_data_in_the_byte_order_of_the_encoding(ccsid: int, encoding: int) -> None:
    folder = "<usr><n>é\U0001f600</n></usr>"
    header = Rfh2(name_value_ccsid=ccsid, folders=(folder,))
    data = rfh2.encode(header, encoding)
    codec = "utf-16-be" if encoding == 273 else "utf-16-le"
    size = struct.unpack_from(">i" if encoding == 273 else "<i", data, 36)[0]
    assert data[40 : 40 + size].decode(codec).rstrip(" ") == folder
    assert size % 4 == 0
    assert rfh2.decode(data, encoding) == (header, len(data))


def test_of_renders_parsed_folders() -> None:
    header = Rfh2.of([Folder.from_pairs("psc", [("Command", "RegSub")]), "<usr></usr>"])
    assert header.folders == ("<psc><Command>RegSub</Command></psc>", "<usr></usr>")


def test_empty_name_value_data_is_dropped() -> None:
    assert Rfh2(folders=("", "   ", "\x00", "<a/>")).folders == ("<a/>",)


@given(rfh2s(), ENCODINGS)
def test_round_trip(header: Rfh2, encoding: int) -> None:
    data = rfh2.encode(header, encoding)
    assert len(data) % 4 == 0
    assert rfh2.decode(data + b"body", encoding) == (header, len(data))


def _fixed(**fields: object) -> bytes:
    values = {
        "strucid": b"RFH ",
        "version": 2,
        "length": 36,
        "encoding": 546,
        "ccsid": 1208,
        "format": b"MQSTR   ",
        "flags": 0,
        "nvccsid": 1208,
    }
    values.update(fields)
    return struct.pack("<4siiii8sii", *values.values())


# Each row: a header that breaks one rule, and the reason code (§3.5 / MQ9:2334).
ERRORS = [
    ("shorter than the fixed part", _fixed()[:35], RC.RFH_ERROR),
    ("empty buffer", b"", RC.RFH_ERROR),
    ("bad StrucId", _fixed(strucid=b"RFH2"), RC.RFH_ERROR),
    ("version 1 where 2 expected", _fixed(version=1), RC.RFH_ERROR),
    ("version 3", _fixed(version=3), RC.RFH_ERROR),
    ("StrucLength too small", _fixed(length=32), RC.RFH_ERROR),
    ("StrucLength negative", _fixed(length=-36), RC.RFH_ERROR),
    ("buffer shorter than StrucLength", _fixed(length=40), RC.RFH_ERROR),
    ("CCSID 0", _fixed(ccsid=0), RC.RFH_ERROR),
    ("CCSID invalid negative", _fixed(ccsid=-1), RC.RFH_ERROR),
    ("NameValueCCSID unsupported", _fixed(nvccsid=819), RC.RFH_ERROR),
    ("NameValueCCSID 0", _fixed(nvccsid=0), RC.RFH_ERROR),
    ("non-ASCII Format", _fixed(format=b"MQ\xffSTR  "), RC.RFH_ERROR),
    (
        "NameValueLength negative",
        _fixed(length=44) + struct.pack("<i", -4) + b"abcd",
        RC.RFH_ERROR,
    ),
    (
        "NameValueLength beyond StrucLength",
        _fixed(length=44) + struct.pack("<i", 8) + b"abcdefgh",
        RC.RFH_ERROR,
    ),
    ("StrucLength cuts a NameValueLength", _fixed(length=38) + b"\x04\x00", RC.RFH_ERROR),
    (
        "NameValueData not UTF-8",
        _fixed(length=44) + struct.pack("<i", 4) + b"\xff\xfe\xfd\xfc",
        RC.RFH_FORMAT_ERROR,
    ),
    (
        "UTF-16 NameValueData of odd length",
        _fixed(length=44, nvccsid=1200) + struct.pack("<i", 3) + b"<\x00a ",
        RC.RFH_FORMAT_ERROR,
    ),
]


@pytest.mark.parametrize(("case", "data", "reason"), ERRORS, ids=[row[0] for row in ERRORS])
def test_structure_errors(case: str, data: bytes, reason: RC) -> None:
    with pytest.raises(MQError) as caught:
        rfh2.decode(data, 546)
    assert caught.value.reason == reason


INVALID_VALUES = [
    ({"ccsid": 0}, RC.RFH_ERROR),
    ({"ccsid": -3}, RC.RFH_ERROR),
    ({"name_value_ccsid": 437}, RC.RFH_ERROR),
    ({"format": "TOOLONGFMT"}, RC.RFH_ERROR),
    ({"format": "MQSTRé"}, RC.RFH_ERROR),
    ({"flags": 2**31}, RC.RFH_ERROR),
    ({"encoding": "546"}, RC.RFH_ERROR),
    ({"folders": ["<a/>"]}, RC.RFH_FORMAT_ERROR),
]


@pytest.mark.parametrize(("fields", "reason"), INVALID_VALUES)
def test_invalid_values_cannot_be_built(fields: dict[str, object], reason: RC) -> None:
    with pytest.raises(MQError) as caught:
        Rfh2(**fields)  # type: ignore[arg-type]
    assert caught.value.reason == reason


def test_unencodable_folder_text_is_format_error() -> None:
    with pytest.raises(MQError) as caught:
        rfh2.encode(Rfh2(folders=("<a>\ud800</a>",)), 546)
    assert caught.value.reason == RC.RFH_FORMAT_ERROR


def test_inherit_ccsid_is_valid() -> None:
    assert Rfh2(ccsid=-2).ccsid == -2


_VALID = st.tuples(rfh2s(), st.sampled_from([546, 273])).map(lambda t: rfh2.encode(*t))


@given(st.binary(max_size=200) | mutated(_VALID), st.sampled_from([546, 273, 0]))
def test_fuzz_decode_raises_only_mqerror(data: bytes, encoding: int) -> None:
    try:
        header, used = rfh2.decode(data, encoding)
    except MQError as error:
        assert error.reason in (RC.RFH_ERROR, RC.RFH_FORMAT_ERROR)
    else:
        assert 36 <= used <= len(data)
        assert rfh2.decode(rfh2.encode(header, encoding), encoding)[0] == header
