"""pymqi's RFH2 (pack, unpack, add_folder, fields), checked the way pymqi's own tests check it,
on the message those tests use: a big-endian (273) RegSub header with three folders."""

from __future__ import annotations

import struct

import pytest

import mqkafka.mqi as pymqi
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.rules.rfh2class import strip_headers, with_headers

PSC = (
    b"<psc><Command>RegSub</Command><Topic>$topictree/topiccat/topic</Topic>"
    b"<QMgrName>DebugQM</QMgrName><QName>PUBOUT</QName><RegOpt>PersAsPub</RegOpt></psc> "
)
TEST_FOLDER = b"<testFolder><testVar>testValue</testVar></testFolder>   "
MCD = b"<mcd><Msd>xmlnsc</Msd></mcd>"
BODY = b"<body>a 49-byte publication body, after it all</body>"[:49]


def _message() -> bytes:
    header = struct.pack(">4siiii8sii", b"RFH ", 2, 284, 273, 1208, b"MQSTR   ", 0, 1208)
    folders = b"".join(struct.pack(">i", len(f)) + f for f in (PSC, TEST_FOLDER, MCD))
    return header + folders + BODY


MESSAGE = _message()


def test_the_message_is_pymqis() -> None:
    assert (len(MESSAGE), len(PSC)) == (333, 152)


def _fields_of_the_message(rfh2: pymqi.RFH2) -> None:
    assert len(rfh2.get()) == 14
    assert (rfh2["StrucId"], rfh2["Version"], rfh2["StrucLength"]) == (b"RFH ", 2, 284)
    assert (rfh2["Encoding"], rfh2["CodedCharSetId"], rfh2["Format"]) == (273, 1208, b"MQSTR   ")
    assert (rfh2["Flags"], rfh2["NameValueCCSID"]) == (0, 1208)
    assert (rfh2["pscLength"], rfh2["psc"]) == (152, PSC)
    assert (rfh2["testFolderLength"], rfh2["testFolder"]) == (56, TEST_FOLDER)
    assert (rfh2["mcdLength"], rfh2["mcd"]) == (28, MCD)


@pytest.mark.parametrize("encoding", [None, 273])
def test_parse(encoding: int | None) -> None:
    rfh2 = pymqi.RFH2()
    rfh2.unpack(MESSAGE, encoding)
    _fields_of_the_message(rfh2)
    assert rfh2.mcd == MCD  # attributes as well as items


def test_parse_the_fixed_part_only() -> None:
    rfh2 = pymqi.RFH2()
    rfh2.unpack(MESSAGE[:36])
    assert len(rfh2.get()) == 8 and rfh2["StrucLength"] == 284


def test_add_folder_pads_to_four_and_sets_the_length() -> None:
    rfh2 = pymqi.RFH2()
    rfh2.unpack(MESSAGE)
    rfh2.add_folder(b"<testFolder2><testVar>testValue</testVar></testFolder2>")
    assert len(rfh2.get()) == 16 and rfh2["StrucLength"] == 344
    assert rfh2["testFolder2Length"] == 56
    assert rfh2["testFolder2"] == b"<testFolder2><testVar>testValue</testVar></testFolder2> "


def test_pack_gives_back_what_was_unpacked() -> None:
    rfh2 = pymqi.RFH2()
    rfh2.unpack(MESSAGE)
    assert rfh2.pack() == MESSAGE[:284]


def test_a_new_header_packs_to_the_same_bytes() -> None:
    rfh2 = pymqi.RFH2()
    rfh2["StrucLength"] = 188  # add_folder sets the right one
    rfh2.set(Encoding=273, CodedCharSetId=1208, Format=C.MQFMT_STRING, NameValueCCSID=1208)
    rfh2.add_folder(PSC.rstrip())
    rfh2.add_folder(TEST_FOLDER.rstrip())
    rfh2.add_folder(MCD)
    assert rfh2.pack(encoding=273) == MESSAGE[:284]


@pytest.mark.parametrize(
    ("buffer", "error"),
    [
        (MESSAGE[116:], "PYMQI Error: RFH2 - StrucId not MQRFH_STRUC_ID. Value: b'ame>'"),
        (MESSAGE[:32], "PYMQI Error: RFH2 - Buffer too short. Should be 36+ bytes instead of 32"),
        (MESSAGE[:188], "PYMQI Error: RFH2 - Buffer too short. Expected: 284 Buffer Length: 188"),
    ],
)
def test_what_cannot_be_parsed_is_a_pyiferror(buffer: bytes, error: str) -> None:
    with pytest.raises(pymqi.PYIFError) as raised:
        pymqi.RFH2().unpack(buffer)
    assert str(raised.value) == error


def test_the_wrong_encoding_reads_a_length_no_buffer_has() -> None:
    with pytest.raises(pymqi.PYIFError) as raised:
        pymqi.RFH2().unpack(MESSAGE, C.MQENC_NATIVE)
    assert str(raised.value) == (
        "PYMQI Error: RFH2 - Buffer too short. Expected: 469827584 Buffer Length: 333"
    )


@pytest.mark.parametrize("folder", [MESSAGE[:117] + MESSAGE[121:], None])
def test_a_folder_that_is_not_xml_is_a_pyiferror(folder: bytes | None) -> None:
    with pytest.raises(pymqi.PYIFError) as raised:
        if folder is None:
            pymqi.RFH2().add_folder(b"<a><b>c</a>")
        else:
            pymqi.RFH2().unpack(folder)
    assert "RFH2 - XML Folder not well formed" in str(raised.value)


BIG = b"\x00\x00\x00\x02"
LITTLE = b"\x02\x00\x00\x00"


@pytest.mark.parametrize(
    ("encoding", "version"),
    [
        (C.MQENC_FLOAT_S390, BIG),
        (C.MQENC_INTEGER_NORMAL, BIG),
        (C.MQENC_DECIMAL_NORMAL, BIG),
        (C.MQENC_FLOAT_IEEE_NORMAL, BIG),
        (C.MQENC_INTEGER_NORMAL + C.MQENC_DECIMAL_NORMAL, BIG),
        (C.MQENC_INTEGER_NORMAL + C.MQENC_FLOAT_IEEE_NORMAL, BIG),
        (C.MQENC_DECIMAL_NORMAL + C.MQENC_FLOAT_IEEE_NORMAL, BIG),
        (273, BIG),
        (785, BIG),  # z/OS: integers normal, floats S390
        (None, LITTLE),
        (C.MQENC_NATIVE, LITTLE),
        (C.MQENC_INTEGER_REVERSED, LITTLE),
        (C.MQENC_DECIMAL_REVERSED, LITTLE),
        (C.MQENC_FLOAT_IEEE_REVERSED, LITTLE),
        (C.MQENC_INTEGER_REVERSED + C.MQENC_FLOAT_IEEE_REVERSED, LITTLE),
    ],
)
def test_pack_writes_numbers_in_the_encodings_byte_order(
    encoding: int | None, version: bytes
) -> None:
    assert pymqi.RFH2().pack(encoding=encoding)[4:8] == version


def test_an_unknown_field_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        pymqi.RFH2(NoSuchField=1)


def test_headers_go_before_the_data_and_come_back_off_it() -> None:
    first = pymqi.RFH2(Format=C.MQFMT_RF_HEADER_2, Encoding=C.MQENC_NATIVE)
    first.add_folder(b"<usr><colour>blue</colour></usr>")
    second = pymqi.RFH2(Format=C.MQFMT_STRING)
    second.add_folder(MCD)
    md = pymqi.MD(Format=C.MQFMT_RF_HEADER_2)
    data, rest = with_headers(b"hello", (md, None, [first, second]))
    assert rest == (md, None) and data.endswith(b"hello")
    found: list[pymqi.RFH2] = []
    assert strip_headers(data, md, found) == b"hello"
    assert [h["Format"] for h in found] == [C.MQFMT_RF_HEADER_2, C.MQFMT_STRING]
    assert found[0]["usr"] == b"<usr><colour>blue</colour></usr>"


def test_the_header_list_must_be_a_list() -> None:
    with pytest.raises(TypeError):
        with_headers(b"x", (None, None, (pymqi.RFH2(),)))
