"""The byte boundary (``wire.messagecodec``): commands in, deliveries and replies out; bad
input never a crash; the fast paths agree with the general codecs (Hypothesis)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqkafka.engine.context import CountingIds, EngineContext
from mqkafka.engine.effects import DeadLetter, Deliver, Reply
from mqkafka.engine.state import EngineState
from mqkafka.mq import rfh1, rfh2
from mqkafka.mq.commandparse import command_from_psc
from mqkafka.mq.commands import Interface, PublicationContent, Publish, RegSub
from mqkafka.mq.errors import MQError
from mqkafka.mq.folders import Folder, parse_folder, render_folder
from mqkafka.mq.message import decode_message
from mqkafka.mq.mqmd import MQFMT_RF_HEADER_1, MQFMT_RF_HEADER_2, MQFMT_STRING, MQMD, MQMT, MQRO
from mqkafka.mq.reasons import RC
from mqkafka.mq.responses import Completion, Response, ResponseItem
from mqkafka.wire import messagecodec as codec
from mqkafka.wire.messagecodec import (
    CommandReader,
    decode_command,
    encode_delivery,
    encode_reply,
    process_message,
)
from tests.unit.engine.driver import BrokerDriver

CONTROL = "SYSTEM.BROKER.CONTROL.QUEUE"
STREAM = "SYSTEM.BROKER.DEFAULT.STREAM"
REQUEST = MQMD(MsgType=MQMT.REQUEST, Format=MQFMT_RF_HEADER_2, ReplyToQ="REPLY", UserIdentifier="u")


def rfh2_message(*folders: str, body: bytes = b"", encoding: int = 546) -> bytes:
    header = rfh2.Rfh2(format=MQFMT_STRING, folders=folders)
    return rfh2.encode(header, encoding) + body


def test_decode_an_rfh2_command_with_folders_and_body() -> None:
    value = rfh2_message(
        "<psc><Command>Publish</Command><Topic>Sport/Soccer</Topic><PubOpt>RetainPub</PubOpt></psc>",
        "<usr><colour>red</colour></usr>",
        body=b"1-0",
    )
    cmd = decode_command(value, REQUEST, STREAM)
    assert isinstance(cmd, Publish)
    assert cmd.topics == ("Sport/Soccer",)
    assert cmd.content.body == b"1-0" and cmd.content.folders == (
        "<usr><colour>red</colour></usr>",
    )
    assert cmd.content.format == MQFMT_STRING
    assert codec._read_plain_rfh2(value, 546) is not None  # the fast path took it


def test_unusual_commands_take_the_general_path() -> None:
    """Entities, attributes or a second header: the general codecs decide."""
    value = rfh2_message("<psc><Command>Publish</Command><Topic>a &amp; b</Topic></psc>")
    assert codec._read_plain_rfh2(value, 546) is None
    cmd = decode_command(value, REQUEST, STREAM)
    assert isinstance(cmd, Publish) and cmd.topics == ("a & b",)


@pytest.mark.parametrize("encoding", [546, 273])
def test_both_byte_orders_are_read(encoding: int) -> None:
    """Wire contract §2: "both 546 (little-endian) and 273 (big-endian) must be read"."""
    value = rfh2_message("<psc><Command>RegSub</Command><Topic>T</Topic></psc>", encoding=encoding)
    md = REQUEST.replace(Encoding=encoding)
    assert isinstance(decode_command(value, md, CONTROL), RegSub)


def test_decode_an_rfh1_command() -> None:
    string = rfh1.format_name_values(
        [("MQPSCommand", "RegSub"), ("MQPSTopic", "A B"), ("MQPSQName", "Q")]
    )
    value = rfh1.encode(rfh1.Rfh1(name_values=string), 546)
    cmd = decode_command(value, REQUEST.replace(Format=MQFMT_RF_HEADER_1), CONTROL)
    assert isinstance(cmd, RegSub) and cmd.topics == ("A B",) and cmd.q_name == "Q"


def test_a_delivery_round_trips_through_the_general_codecs() -> None:
    broker = BrokerDriver()
    broker.register_subscriber("Sport/#", queue="Q", sub_point="SP")
    outcome = broker.publish(
        "Sport/x & <y>", body=b"body", sub_point="SP", folders=["<usr><a>1</a></usr>"]
    )
    (deliver,) = outcome.deliveries
    md, value = encode_delivery(deliver)
    message = decode_message(value, md)
    psc = message.psc()
    assert psc is not None
    assert psc.pairs() == [("Command", "Publish"), ("Topic", "Sport/x & <y>"), ("SubPoint", "SP")]
    assert message.folder("usr") is not None and message.body == b"body"
    assert md.Format == MQFMT_RF_HEADER_2


def test_a_publishers_own_mqrfh2_after_the_command_is_its_data_and_reaches_subscribers() -> None:
    """pymqi's ``Topic.pub_rfh2``: the Publish header (little-endian) says MQHRF2 and 273;
    the publisher's MQRFH2 (big-endian, a RegSub <psc> of its own) and its data follow. The
    publication's data is all of that, the RegSub not read as a command; a subscriber's copy
    holds it after the queued interface's header, readable down the chain."""
    own = rfh2.Rfh2(
        encoding=273,
        format=MQFMT_STRING,
        folders=(
            "<psc><Command>RegSub</Command><Topic>x</Topic></psc>",
            "<mcd><Msd>xmlnsc</Msd></mcd>",
        ),
    )
    data = rfh2.encode(own, 273) + b"hello"
    command = rfh2.Rfh2(
        encoding=273,
        format=MQFMT_RF_HEADER_2,
        folders=("<psc><Command>Publish</Command><Topic>T</Topic></psc>", "<usr><a>1</a></usr>"),
    )
    value = rfh2.encode(command, 546) + data
    cmd = decode_command(value, REQUEST, STREAM)
    assert isinstance(cmd, Publish) and cmd.topics == ("T",)
    assert cmd.content.body == data and cmd.content.format == MQFMT_RF_HEADER_2
    assert cmd.content.encoding == 273 and cmd.content.folders == ("<usr><a>1</a></usr>",)

    broker = BrokerDriver()
    broker.register_subscriber("T", queue="Q")
    (deliver,) = broker.send_bytes(value, REQUEST, STREAM).deliveries
    md, copy = encode_delivery(deliver)
    message = decode_message(copy, md)
    assert message.headers[1:] == (own,) and message.body == b"hello"
    assert message.folder("usr") is not None


@pytest.mark.parametrize("encoding", [546, 273])
def test_an_rfh1_command_passes_on_what_follows_its_header(encoding: int) -> None:
    string = rfh1.format_name_values([("MQPSCommand", "Publish"), ("MQPSTopic", "T")])
    own = rfh2.encode(rfh2.Rfh2(format=MQFMT_STRING, folders=("<usr><b>2</b></usr>",)), encoding)
    header = rfh1.Rfh1(encoding=encoding, format=MQFMT_RF_HEADER_2, name_values=string)
    md = REQUEST.replace(Format=MQFMT_RF_HEADER_1)
    cmd = decode_command(rfh1.encode(header, 546) + own + b"data", md, STREAM)
    assert isinstance(cmd, Publish)
    assert cmd.content.body == own + b"data" and cmd.content.format == MQFMT_RF_HEADER_2
    assert cmd.content.encoding == encoding


def test_an_rfh1_delivery_escapes_the_topic_for_the_character_scheme() -> None:
    broker = BrokerDriver(wire=True)
    broker.register_subscriber("Sport/%*", queue="Q", rfh1=True)
    broker.publish("Sport/*", body=b"x")  # an RFH2 publication: `*` is a literal
    (copy,) = broker.drain("Q")
    assert copy.psc["MQPSTopic"] == ["Sport/%*"] and copy.md.Format == MQFMT_RF_HEADER_1


def test_rfh1_publication_user_pairs_reach_rfh1_subscribers() -> None:
    broker = BrokerDriver(wire=True)
    broker.register_subscriber("T", queue="Q", rfh1=True)
    broker.publish("T", rfh1=True, extra=[("Colour", "red"), ("MQPSStringData", "hello")])
    (copy,) = broker.drain("Q")
    assert copy.folders == ("Colour=red",) and copy.psc["MQPSStringData"] == ["hello"]


def test_error_reply_echoes_the_command_in_a_second_folder() -> None:
    """§3.3: "On warning/error the original <psc> folder is appended as a separate
    NameValueData after the pscr"."""
    state, ctx = EngineState(), EngineContext(ids=CountingIds())
    value = rfh2_message("<psc><Command>RegSub</Command><Topic>T</Topic><Bogus>1</Bogus></psc>")
    (reply,) = process_message(state, value, REQUEST, CONTROL, ctx)
    assert isinstance(reply, Reply)
    md, data = encode_reply(reply)
    (header,) = decode_message(data, md).headers
    assert isinstance(header, rfh2.Rfh2)
    pscr, echo = (parse_folder(text) for text in header.folders)
    assert pscr.pairs() == [("Completion", "error"), ("Response.Reason", "2337")]
    assert echo.name == "psc" and ("Bogus", "1") in echo.pairs()
    assert md.MsgType == MQMT.REPLY and md.Format == MQFMT_RF_HEADER_2


def test_ok_reply_has_no_echo() -> None:
    state, ctx = EngineState(), EngineContext(ids=CountingIds())
    value = rfh2_message("<psc><Command>RegSub</Command><Topic>T</Topic></psc>")
    (_, reply) = process_message(state, value, REQUEST, CONTROL, ctx)
    assert isinstance(reply, Reply)
    md, data = encode_reply(reply)
    (header,) = decode_message(data, md).headers
    assert isinstance(header, rfh2.Rfh2) and header.folders == (
        "<pscr><Completion>ok</Completion></pscr>",
    )


def test_rfh1_error_reply_has_reason_parm_position_and_the_command_after_it() -> None:
    """§3.4: MQPSCompCode, MQPSReason, MQPSReasonText, MQPSParmId, MQPSErrorPos; "The
    command's NameValueString is appended after the response MQRFH"."""
    state, ctx = EngineState(), EngineContext(ids=CountingIds())
    string = "MQPSCommand RegSub MQPSTopic T MQPSTopic U MQPSQName Q MQPSQName R"
    value = rfh1.encode(rfh1.Rfh1(name_values=string), 546)
    (reply,) = process_message(
        state, value, REQUEST.replace(Format=MQFMT_RF_HEADER_1), CONTROL, ctx
    )
    assert isinstance(reply, Reply)
    md, data = encode_reply(reply)
    first, second = decode_message(data, md).headers
    assert isinstance(first, rfh1.Rfh1) and isinstance(second, rfh1.Rfh1)
    assert first.pairs() == [
        ("MQPSCompCode", "2"),
        ("MQPSReason", "2338"),
        ("MQPSReasonText", "MQRC_RFH_DUPLICATE_PARM"),
        ("MQPSParmId", "MQPSQName"),
        ("MQPSErrorPos", str(string.rindex("MQPSQName"))),
    ]
    assert second.name_values == string and md.Format == MQFMT_RF_HEADER_1


def test_rfh1_ok_reply() -> None:
    reply = Reply("Q", "QM1", MQMD(Format=MQFMT_RF_HEADER_1), Response.ok(), Interface.RFH1)
    md, data = encode_reply(reply)
    (header,) = decode_message(data, md).headers
    assert isinstance(header, rfh1.Rfh1)
    assert header.pairs() == [
        ("MQPSCompCode", "0"),
        ("MQPSReason", "0"),
        ("MQPSReasonText", "MQRC_NONE"),
    ]


def test_warning_response_lists_each_topic() -> None:
    response = Response.warning(
        [ResponseItem(3081, "Topic", "a"), ResponseItem(3081, "Topic", "b")]
    )
    assert response.pscr_text() == (
        "<pscr><Completion>warning</Completion>"
        "<Response><Reason>3081</Reason><Topic>a</Topic></Response>"
        "<Response><Reason>3081</Reason><Topic>b</Topic></Response></pscr>"
    )
    assert response.completion is Completion.WARNING


def test_dead_letters_carry_the_message() -> None:
    state, ctx = EngineState(), EngineContext(ids=CountingIds())
    value = rfh2_message("<psc><Command>RegSub</Command><Topic>T</Topic></psc>")
    (dead,) = process_message(state, value, REQUEST.replace(MsgType=MQMT.REPORT), CONTROL, ctx)
    assert isinstance(dead, DeadLetter) and dead.value == value and dead.reason == RC.MSG_TYPE_ERROR


# ---- the fast paths agree with the general codecs -------------------------------------------

leaf = st.text(
    st.characters(blacklist_characters="<>&\x00", blacklist_categories=["Cs"]), max_size=12
)
tag = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,6}", fullmatch=True)
psc_pairs = st.lists(st.tuples(tag, leaf), max_size=6)
other_folders = st.lists(
    st.sampled_from(
        [
            "<usr><a>1</a></usr>",
            "<mcd><Msd>jms_text</Msd></mcd>",
            "<jms><Dst>q</Dst></jms>",
            "<pscr><Completion>ok</Completion></pscr>",
        ]
    ),
    max_size=3,
)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(
    psc_pairs,
    other_folders,
    st.binary(max_size=20),
    st.sampled_from([546, 273]),
    st.sampled_from(["", " ", "\n  "]),
)
def test_fast_read_agrees_with_the_general_codecs(
    pairs: list[tuple[str, str]], others: list[str], body: bytes, encoding: int, space: str
) -> None:
    text = space + render_folder(Folder.from_pairs("psc", pairs)).replace(
        "><", ">" + space + "<", 1
    )
    value = rfh2_message(text, *others, body=body, encoding=encoding)
    fast = codec._read_plain_rfh2(value, encoding)
    message = decode_message(value, MQMD(Format=MQFMT_RF_HEADER_2, Encoding=encoding))
    psc = message.psc()
    assert psc is not None
    if fast is not None:
        assert list(fast.pairs) == psc.pairs()
        assert fast.content.body == message.body == body
        assert list(fast.content.folders) == [f for f in others if not f.startswith("<pscr>")]


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.sampled_from(["Command", "Topic", "PubOpt", "SubPoint"]), leaf), max_size=5
    ),
    st.lists(st.sampled_from(["<usr><a>1</a></usr>", "<mcd><Msd>none</Msd></mcd>"]), max_size=2),
    st.sampled_from([546, 273]),
    st.sampled_from(["MQSTR   ", "        ", "MQHRF2  "[:0]]),
    st.sampled_from([1208, 819, -2]),
)
def test_fast_write_agrees_with_rfh2_encode(
    pairs: list[tuple[str, str]], folders: list[str], encoding: int, fmt: str, ccsid: int
) -> None:
    content = PublicationContent(
        body=b"", folders=tuple(folders), format=fmt, ccsid=ccsid, encoding=273
    )
    psc = codec.psc_text(tuple(pairs))
    fast = codec._write_plain_rfh2(encoding, content, psc)
    general = rfh2.encode(rfh2.Rfh2(273, ccsid, fmt, 0, 1208, (psc, *folders)), encoding)
    assert fast == general
    assert parse_folder(psc).pairs() == [(k, v) for k, v in pairs]


# ---- bad input is never a crash ---------------------------------------------------------------


def _answer_is_a_reason(effects: Sequence[object]) -> None:
    for effect in effects:
        assert isinstance(effect, Reply | DeadLetter | Deliver) or type(effect).__name__ in (
            "StoreSubscription",
            "RemoveSubscription",
            "Retain",
            "DeleteRetained",
            "RegisterPublisher",
            "DeregisterPublisher",
        )
        if isinstance(effect, Reply) and effect.response.completion is Completion.ERROR:
            assert effect.response.reason != RC.CF_COMMAND_FAILED, "an internal error"


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.binary(max_size=200),
    st.sampled_from([MQFMT_RF_HEADER_2, MQFMT_RF_HEADER_1, MQFMT_STRING]),
    st.sampled_from([546, 273, 0]),
)
def test_any_bytes_give_a_command_or_a_reason(value: bytes, fmt: str, encoding: int) -> None:
    md = REQUEST.replace(Format=fmt, Encoding=encoding)
    try:
        decode_command(value, md, CONTROL)
    except MQError as error:
        assert (
            error.reason
            in {
                RC.RFH_ERROR,
                RC.RFH_STRING_ERROR,
                RC.RFH_COMMAND_ERROR,
                RC.RFH_PARM_ERROR,
                RC.RFH_DUPLICATE_PARM,
                RC.RFH_PARM_MISSING,
                RC.RFH_FORMAT_ERROR,
                RC.CF_MD_FORMAT_ERROR,
            }
            or 3071 <= error.reason <= 3157
        ), error
    effects = process_message(EngineState(), value, md, CONTROL, EngineContext(ids=CountingIds()))
    _answer_is_a_reason(effects)


VALID = [
    rfh2_message(
        "<psc><Command>RegSub</Command><Topic>Sport/#</Topic><RegOpt>CorrelAsId</RegOpt><QName>Q</QName></psc>"
    ),
    rfh2_message(
        "<psc><Command>Publish</Command><Topic>Sport/A</Topic><PubOpt>RetainPub</PubOpt></psc>",
        "<usr><a dt='i4'>1</a></usr>",
        body=b"xyz",
    ),
]


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(range(len(VALID))),
    st.lists(st.tuples(st.integers(0, 400), st.integers(0, 255)), min_size=1, max_size=4),
)
def test_corrupted_commands_never_crash(which: int, flips: list[tuple[int, int]]) -> None:
    data = bytearray(VALID[which])
    for at, byte in flips:
        data[at % len(data)] = byte
    md = REQUEST.replace(CorrelId=b"C" * 24, Report=MQRO.NAN)
    for queue in (CONTROL, STREAM):
        _answer_is_a_reason(
            process_message(EngineState(), bytes(data), md, queue, EngineContext(ids=CountingIds()))
        )


def test_a_header_ending_inside_a_name_value_length_is_an_rfh_error() -> None:
    """StrucLength leaving 2 bytes after the last folder: not a crash, MQRC_RFH_ERROR."""
    good = rfh2_message("<psc><Command>RegSub</Command><Topic>T</Topic></psc>")
    length = int.from_bytes(good[8:12], "little") + 2
    value = good[:8] + length.to_bytes(4, "little") + good[12:] + b"\x01\x02"
    assert codec._read_plain_rfh2(value, 546) is None
    with pytest.raises(MQError) as raised:
        decode_command(value, REQUEST, CONTROL)
    assert raised.value.reason == RC.RFH_ERROR


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["", "REPLY", "OTHER.Q"]),
    st.sampled_from(["", "QM7"]),
    st.sampled_from([bytes(24), b"C" * 24, b"D" * 24]),
    st.sampled_from(
        ["", "<RegOpt>CorrelAsId</RegOpt>", "<QName>PUBQ</QName>", "<PubOpt>NoReg</PubOpt>"]
    ),
    st.binary(max_size=8),
)
def test_a_remembered_publish_is_the_publish_the_parser_makes(
    reply_to: str, reply_to_qmgr: str, correl: bytes, extra: str, body: bytes
) -> None:
    """Decoding the same <psc> again reuses the parsed Publish; the result must equal what
    command_from_psc makes from this message - or raise the same error."""
    text = f"<psc><Command>Publish</Command><Topic>Sport/A</Topic>{extra}</psc>"
    value = rfh2_message(text, body=body)
    md = MQMD(
        Format=MQFMT_RF_HEADER_2, ReplyToQ=reply_to, ReplyToQMgr=reply_to_qmgr, CorrelId=correl
    )
    pairs = parse_folder(text).pairs()
    content = PublicationContent(body=body, format=MQFMT_STRING)
    try:
        expected = command_from_psc(pairs, md, queue=STREAM, local_qmgr="QM1", content=content)
    except MQError as error:
        reader = CommandReader()
        for _ in range(2):
            with pytest.raises(MQError) as raised:
                reader.decode(value, md, STREAM, "QM1")
            assert raised.value.reason == error.reason
        return
    reader = CommandReader()
    for _ in range(2):  # the second time from the remembered template
        got = reader.decode(value, md, STREAM, "QM1")
        assert got == expected and got.md is md and got.source == expected.source


commands = st.sampled_from(["Publish", "RegSub", "DeregSub", "Bogus"])
psc_tags = st.sampled_from(["Topic", "PubOpt", "RegOpt", "QName", "SubPoint", "Stream", "Filter"])


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(
    commands,
    st.lists(st.tuples(psc_tags, st.sampled_from(["T", "Sport/#", "RetainPub", "Q", " ", ""])),
             max_size=4),
    other_folders,
    st.binary(max_size=8),
    st.sampled_from([546, 273]),
    st.sampled_from(["", "REPLY"]),
    st.sampled_from([bytes(24), b"C" * 24]),
)  # fmt: skip
def test_a_reader_decodes_what_the_general_codecs_decode(
    command: str,
    pairs: list[tuple[str, str]],
    others: list[str],
    body: bytes,
    encoding: int,
    reply_to: str,
    correl: bytes,
) -> None:
    """Differential: whatever the fast path and the remembered Publish answer, again and
    again, is what ``mq.message``, ``mq.folders`` and ``commandparse`` make of the message -
    the same command, or an error with the same reason."""
    text = render_folder(Folder.from_pairs("psc", [("Command", command), *pairs]))
    value = rfh2_message(text, *others, body=body, encoding=encoding)
    md = REQUEST.replace(Encoding=encoding, ReplyToQ=reply_to, CorrelId=correl)
    queue = STREAM if command == "Publish" else CONTROL
    try:
        general = codec._read_general(value, md)
        expected = command_from_psc(
            general.pairs, md, queue=queue, local_qmgr="QM1", content=general.content
        )
    except MQError as error:
        reader = CommandReader()
        for _ in range(2):
            with pytest.raises(MQError) as raised:
                reader.decode(value, md, queue, "QM1")
            assert raised.value.reason == error.reason
        return
    reader = CommandReader()
    for _ in range(2):
        assert reader.decode(value, md, queue, "QM1") == expected
