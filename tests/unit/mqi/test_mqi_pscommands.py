"""Client-side command messages and replies, checked against the broker's own codec: what the
MQI writes is what the service reads (wire.messagecodec.decode_command), and what the service
writes (wire.messagecodec.encode_reply) is what the MQI reads."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqkafka.engine.effects import Reply
from mqkafka.mq.commands import (
    CONTROL_QUEUE,
    DEFAULT_STREAM,
    Command,
    DeletePub,
    DeregSub,
    Interface,
    PublicationContent,
    Publish,
    PubOpt,
    RegOpt,
    RegSub,
    ReqUpdate,
)
from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import MQFMT_RF_HEADER_2, MQMD, MQMT
from mqkafka.mq.pscommands import encode_command, parse_reply
from mqkafka.mq.reasons import CC, RC
from mqkafka.mq.responses import Completion, Response, ResponseItem
from mqkafka.wire.messagecodec import decode_command, encode_reply

CORREL = b"C" * 24
ON_REQUEST_NEW_ONLY = RegOpt.PUBLISH_ON_REQUEST_ONLY | RegOpt.NEW_PUBLICATIONS_ONLY
FULL = (("Command", "RegSub"), ("QName", "SUBS"))
MD_REQUEST = MQMD(
    MsgType=MQMT.REQUEST, Format=MQFMT_RF_HEADER_2, ReplyToQ="MY.REPLY", CorrelId=CORREL,
    MsgId=b"M" * 24,
)  # fmt: skip


def read_back(command: Command, encoding: int = 546) -> Command:
    md = command.md.replace(Encoding=encoding)
    queue = command.queue if isinstance(command, Publish | DeletePub) else CONTROL_QUEUE
    return decode_command(encode_command(command, encoding), md, queue)


@pytest.mark.parametrize("encoding", [546, 273])
@pytest.mark.parametrize(
    "command",
    [
        RegSub(topics=("Sport/Soccer/#",), options=RegOpt.CORREL_ID_AS_IDENTITY, md=MD_REQUEST,
               q_name="MY.REPLY"),
        RegSub(topics=("a", "b/+"), options=ON_REQUEST_NEW_ONLY, md=MD_REQUEST, q_name="SUBS",
               sub_name="my sub", filter="colour = 'red'"),
        DeregSub(topics=("a",), md=MD_REQUEST, q_name="SUBS"),
        DeregSub(options=RegOpt.DEREGISTER_ALL, md=MD_REQUEST, q_name="SUBS"),
        ReqUpdate(topic="Sport/Soccer/State/LatestScore/#", options=RegOpt.CORREL_ID_AS_IDENTITY,
                  md=MD_REQUEST, q_name="MY.REPLY"),
        Publish(topics=("Sport/Soccer/Results",), options=PubOpt.RETAIN_PUBLICATION, md=MD_REQUEST,
                q_name="MY.REPLY", queue=DEFAULT_STREAM,
                content=PublicationContent(body=b"4-1", format="MQSTR   ",
                folders=("<usr><team>Chelsea</team></usr>",))),
        DeletePub(topics=("Sport/Soccer/Results",), md=MD_REQUEST, queue=DEFAULT_STREAM),
    ],
)  # fmt: skip
def test_the_service_reads_what_the_client_writes(command: Command, encoding: int) -> None:
    again = read_back(command, encoding)
    assert type(again) is type(command)
    assert again == replace(command, md=again.md)  # only the MQMD's Encoding differs


topic_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30)


@settings(max_examples=100, deadline=None)
@given(st.lists(topic_text, min_size=1, max_size=3, unique=True), st.sampled_from(list(RegOpt)))
def test_any_regsub_survives_the_trip(topics: list[str], option: RegOpt) -> None:
    try:
        command = RegSub(topics=tuple(topics), options=option, md=MD_REQUEST, q_name="Q",
                         sub_name="n", sub_identity="i")  # fmt: skip
    except MQError:
        return  # an option this command refuses on its own (tested in the codecs' suite)
    again = read_back(command)
    assert again.topics == command.topics and again.options == command.options


REPLY_MD = MQMD(MsgType=MQMT.REPLY, Format=MQFMT_RF_HEADER_2, CorrelId=b"M" * 24)


@pytest.mark.parametrize(
    ("response", "echo", "completion", "comp", "reason"),
    [
        (Response.ok(), (), Completion.OK, CC.OK, RC.NONE),
        (Response.ok(FULL), (), Completion.OK, CC.OK, RC.NONE),
        (Response.error(ResponseItem(RC.CF_NO_RETAINED_MSG)), (("Command", "ReqUpdate"),),
         Completion.ERROR, CC.FAILED, RC.CF_NO_RETAINED_MSG),
        (Response.warning((ResponseItem(RC.CF_NOT_AUTHORIZED, "Topic", "t1"),
                           ResponseItem(RC.CF_NOT_AUTHORIZED, "Topic", "t2"))),
         (("Command", "RegSub"), ("Topic", "t1")), Completion.WARNING, CC.WARNING,
         RC.CF_NOT_AUTHORIZED),
    ],
)  # fmt: skip
def test_the_client_reads_what_the_service_replies(
    response: Response,
    echo: tuple[tuple[str, str], ...],
    completion: Completion,
    comp: int,
    reason: int,
) -> None:
    md, value = encode_reply(Reply("MY.REPLY", "QM1", REPLY_MD, response, Interface.RFH2, echo))
    reply = parse_reply(value, md)
    assert (reply.completion, reply.comp, reply.reason) == (completion, comp, reason)
    assert reply.reasons == response.reasons
    assert reply.attributes == response.full
    assert reply.echo == echo
    if response.full:
        assert reply.attribute("QName") == "SUBS"


@pytest.mark.parametrize(
    "value",
    [b"", b"RFH \x02\x00\x00\x00", b"not a header at all, just bytes that are long enough...."],
)
def test_a_reply_that_is_no_pscr_is_an_rfh_error(value: bytes) -> None:
    with pytest.raises(MQError) as raised:
        parse_reply(value, REPLY_MD)
    assert raised.value.reason in (RC.RFH_ERROR, RC.RFH_FORMAT_ERROR)


@given(st.binary(max_size=200))
def test_any_bytes_as_a_reply_parse_or_fail_with_an_mq_reason(value: bytes) -> None:
    try:
        parse_reply(value, REPLY_MD)
    except MQError as error:
        assert error.reason > 0
