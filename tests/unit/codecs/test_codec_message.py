"""Whole messages: the Format chain, folder helpers, encode/decode (wire contract §2)."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq import rfh1, rfh2
from mqkafka.mq.errors import MQError
from mqkafka.mq.folders import Folder
from mqkafka.mq.message import Header, Message, decode_message, encode_message
from mqkafka.mq.mqmd import (
    MQFMT_NONE,
    MQFMT_RF_HEADER_1,
    MQFMT_RF_HEADER_2,
    MQFMT_STRING,
    MQMD,
    MQMT,
    MQRO,
)
from mqkafka.mq.reasons import RC
from mqkafka.mq.rfh1 import Rfh1
from mqkafka.mq.rfh2 import Rfh2

from .samples import (
    PYMQI_BODY,
    PYMQI_MCD,
    PYMQI_PSC,
    PYMQI_TEST_FOLDER,
    WORKED_BYTES,
    pymqi_single_rfh2,
)
from .strategies import ENCODED_MESSAGES, mqmds, mutated
from .strategies import messages as message_parts

COMMAND_MD = MQMD(
    MsgType=MQMT.REQUEST,
    Report=MQRO.PASS_CORREL_ID,
    Format=MQFMT_RF_HEADER_2,
    ReplyToQ="SUB.Q",
    CorrelId=b"\x01" * 24,
)


def test_worked_example_message() -> None:
    """§5.1 worked example with its MQMD: Format MQHRF2, MsgType REQUEST, ReplyToQ set,
    CorrelId non-zero, Report PASS_CORREL_ID."""
    message = decode_message(WORKED_BYTES, COMMAND_MD)
    psc = message.psc()
    assert psc is not None
    assert psc.pairs() == [
        ("Command", "RegSub"),
        ("Topic", "Sport/Soccer/#"),
        ("RegOpt", "CorrelAsId"),
    ]
    assert message.body == b""
    assert message.body_format == ""
    assert message.encode() == WORKED_BYTES


def test_pymqi_single_rfh2_message() -> None:
    md = MQMD(Format=MQFMT_RF_HEADER_2, Encoding=273)
    message = decode_message(pymqi_single_rfh2(), md)
    assert len(message.headers) == 1
    assert message.body == PYMQI_BODY
    assert message.body_format == "MQSTR"
    psc = message.psc()
    assert psc is not None and dict(psc.pairs())["QName"] == "PUBOUT"
    test_folder = message.folder("testFolder")
    assert test_folder is not None and test_folder.pairs() == [("testVar", "testValue")]
    assert message.msd == "xmlnsc"
    header = message.headers[0]
    assert isinstance(header, Rfh2)
    assert header.folders == (PYMQI_PSC, PYMQI_TEST_FOLDER, PYMQI_MCD)


def test_chained_headers_each_in_the_encoding_before_it() -> None:
    """§5.1: the integers of a header use the Encoding of the preceding structure."""
    first = Rfh2(encoding=273, format=MQFMT_RF_HEADER_2, folders=("<usr><a>1</a></usr>",))
    second = Rfh2(
        encoding=546, format=MQFMT_RF_HEADER_1, folders=("<psc><Command>Publish</Command></psc>",)
    )
    third = Rfh1(encoding=546, format=MQFMT_STRING, name_values="MQPSCommand Publish")
    md = MQMD(Format=MQFMT_RF_HEADER_2, Encoding=546)
    value = encode_message([first, second, third], b"hello", md)
    # First header little-endian (MQMD 546), second big-endian (first says 273).
    assert value[4:8] == b"\x02\x00\x00\x00"
    second_at = len(rfh2.encode(first, 546))
    assert value[second_at + 4 : second_at + 8] == b"\x00\x00\x00\x02"
    message = decode_message(value, md)
    assert message.headers == (first, second, third)
    assert message.body == b"hello"
    assert message.body_format == "MQSTR"
    psc = message.psc()
    assert psc is not None and psc.pairs() == [("Command", "Publish")]
    assert message.rfh1() == third
    assert message.usr_properties() == {"a": "1"}


def test_rfh1_string_uses_the_ccsid_before_it() -> None:
    header = Rfh1(name_values="MQPSTopic Café", format=MQFMT_STRING)
    md = MQMD(Format=MQFMT_RF_HEADER_1, CodedCharSetId=819)
    value = encode_message([header], b"", md)
    assert b"Caf\xe9" in value
    assert decode_message(value, md).headers == (header,)


def test_inherit_ccsid_passes_the_previous_one_on() -> None:
    first = Rfh2(ccsid=-2, format=MQFMT_RF_HEADER_1)
    second = Rfh1(name_values="t é")
    md = MQMD(Format=MQFMT_RF_HEADER_2, CodedCharSetId=1200)
    value = encode_message([first, second], b"", md)
    assert "t é".encode("utf-16-le") in value
    assert decode_message(value, md).headers == (first, second)


def test_no_header_when_the_mqmd_format_is_not_a_header() -> None:
    message = decode_message(b"RFH plain text", MQMD(Format=MQFMT_STRING))
    assert message.headers == ()
    assert message.body == b"RFH plain text"
    assert message.psc() is None
    assert message.usr_properties() == {}
    assert message.msd is None


def test_usr_properties_typed_by_dt() -> None:
    usr = (
        '<usr><Score dt="i4">3</Score><Team>Leeds</Team>'
        '<g><Live dt="boolean">1</Live></g><n dt="r8"/></usr>'
    )
    md = MQMD(Format=MQFMT_RF_HEADER_2)
    message = decode_message(encode_message([Rfh2(folders=(usr,))], b"", md), md)
    assert message.usr_properties() == {"Score": 3, "Team": "Leeds", "g.Live": True, "n": None}
    assert message.properties == message.usr_properties()
    assert message.mqmd_fields["Format"] == MQFMT_RF_HEADER_2


def test_repeated_usr_property_is_format_error() -> None:
    message = Message(
        MQMD(Format=MQFMT_RF_HEADER_2), (Rfh2(folders=("<usr><a>1</a><a>2</a></usr>",)),)
    )
    with pytest.raises(MQError) as caught:
        message.usr_properties()
    assert caught.value.reason == RC.RFH_FORMAT_ERROR


def test_two_psc_folders_in_one_header_is_duplicate_parm() -> None:
    """§2.1 rule 1: only one psc folder per header is supported."""
    header = Rfh2(
        folders=("<psc><Command>RegSub</Command></psc>", "<psc><Command>DeregSub</Command></psc>")
    )
    message = Message(MQMD(Format=MQFMT_RF_HEADER_2), (header,))
    with pytest.raises(MQError) as caught:
        message.psc()
    assert caught.value.reason == RC.RFH_DUPLICATE_PARM


def test_psc_of_the_first_header_that_has_one() -> None:
    first = Rfh2(format=MQFMT_RF_HEADER_2, folders=("<usr></usr>",))
    second = Rfh2(
        folders=(
            "<psc><Command>ReqUpdate</Command></psc>",
            "<pscr><Completion>ok</Completion></pscr>",
        )
    )
    message = Message(MQMD(Format=MQFMT_RF_HEADER_2), (first, second))
    assert message.psc() == Folder.from_pairs("psc", [("Command", "ReqUpdate")])
    assert message.pscr() == Folder.from_pairs("pscr", [("Completion", "ok")])


def test_malformed_folder_is_format_error_on_use() -> None:
    message = decode_message(
        encode_message([Rfh2(folders=("<psc><Command>RegSub</psc>",))], b"", COMMAND_MD), COMMAND_MD
    )
    with pytest.raises(MQError) as caught:
        message.psc()
    assert caught.value.reason == RC.RFH_FORMAT_ERROR


# Formats that do not chain → MQRC_FORMAT_ERROR (the value could not be read back).
CHAIN_ERRORS: list[tuple[str, list[Header], MQMD]] = [
    ("MQMD does not announce the header", [Rfh2()], MQMD(Format=MQFMT_STRING)),
    ("MQMD announces RFH1, header is RFH2", [Rfh2()], MQMD(Format=MQFMT_RF_HEADER_1)),
    (
        "last header promises another",
        [Rfh2(format=MQFMT_RF_HEADER_2)],
        MQMD(Format=MQFMT_RF_HEADER_2),
    ),
    ("MQMD promises a header, none given", [], MQMD(Format=MQFMT_RF_HEADER_2)),
]


@pytest.mark.parametrize(("case", "headers", "md"), CHAIN_ERRORS, ids=[r[0] for r in CHAIN_ERRORS])
def test_encode_refuses_a_broken_chain(case: str, headers: list[Header], md: MQMD) -> None:
    with pytest.raises(MQError) as caught:
        encode_message(headers, b"", md)
    assert caught.value.reason == RC.FORMAT_ERROR


DECODE_ERRORS = [
    ("MQMD says RFH2, data too short", b"RFH \x02\x00\x00\x00", MQFMT_RF_HEADER_2, RC.RFH_ERROR),
    (
        "MQMD says RFH2, data is text",
        b"hello world, no header here at all!!",
        MQFMT_RF_HEADER_2,
        RC.RFH_ERROR,
    ),
    ("MQMD says RFH1, data is an RFH2", WORKED_BYTES, MQFMT_RF_HEADER_1, RC.RFH_ERROR),
    ("empty value", b"", MQFMT_RF_HEADER_2, RC.RFH_ERROR),
]


@pytest.mark.parametrize(
    ("case", "value", "fmt", "reason"), DECODE_ERRORS, ids=[r[0] for r in DECODE_ERRORS]
)
def test_decode_errors(case: str, value: bytes, fmt: str, reason: RC) -> None:
    with pytest.raises(MQError) as caught:
        decode_message(value, MQMD(Format=fmt))
    assert caught.value.reason == reason


@given(message_parts())
def test_round_trip(parts: tuple[MQMD, tuple[Header, ...], bytes]) -> None:
    md, headers, body = parts
    message = decode_message(encode_message(headers, body, md), md)
    assert message == Message(md, headers, body)


def _exercise(message: Message) -> None:
    """Every helper either answers or raises MQError."""
    for helper in (message.psc, message.pscr, message.usr_properties, lambda: message.msd):
        with contextlib.suppress(MQError):
            helper()
    _ = message.body_format
    assert decode_message(message.encode(), message.md) == message


@given(
    st.binary(max_size=300) | mutated(ENCODED_MESSAGES.map(lambda m: m[1])),
    mqmds(),
    st.sampled_from([MQFMT_RF_HEADER_2, MQFMT_RF_HEADER_1, MQFMT_NONE, MQFMT_STRING]),
)
def test_fuzz_decode_message_raises_only_mqerror(value: bytes, md: MQMD, fmt: str) -> None:
    try:
        message = decode_message(value, md.replace(Format=fmt))
    except MQError as error:
        assert error.reason in (RC.RFH_ERROR, RC.RFH_FORMAT_ERROR, RC.RFH_STRING_ERROR)
    else:
        _exercise(message)


@given(ENCODED_MESSAGES.flatmap(lambda m: st.tuples(st.just(m[0]), mutated(st.just(m[1])))))
def test_fuzz_mutated_valid_messages(case: tuple[MQMD, bytes]) -> None:
    md, value = case
    try:
        message = decode_message(value, md)
    except MQError as error:
        assert error.reason in (RC.RFH_ERROR, RC.RFH_FORMAT_ERROR, RC.RFH_STRING_ERROR)
    else:
        _exercise(message)


def test_rfh1_header_decoded_helpers() -> None:
    header = Rfh1(name_values='MQPSCommand RegSub MQPSTopic "a b"')
    md = MQMD(Format=MQFMT_RF_HEADER_1)
    message = decode_message(rfh1.encode(header, 546), md)
    found = message.rfh1()
    assert found is not None
    assert found.pairs() == [("MQPSCommand", "RegSub"), ("MQPSTopic", "a b")]
    assert message.psc() is None
