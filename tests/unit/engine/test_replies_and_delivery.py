"""When and how the broker answers (reference §3.1, §3.2) and what a delivered copy looks like
(§4.1, §4.2)."""

from __future__ import annotations

import pytest

from mqkafka.engine.context import CountingIds, EngineContext
from mqkafka.engine.effects import DeadLetter, Reply
from mqkafka.engine.replies import respond, wants_reply
from mqkafka.mq.commandparse import command_from_psc
from mqkafka.mq.commands import Interface
from mqkafka.mq.mqmd import MQAT, MQFMT_RF_HEADER_1, MQFMT_RF_HEADER_2, MQMD, MQMT, MQRO
from mqkafka.mq.reasons import RC
from mqkafka.mq.responses import Completion, Response, ResponseItem
from tests.unit.engine.driver import QMGR, BrokerDriver

OK = Response.ok()
WARNING = Response.warning([ResponseItem(RC.CF_ALREADY_JOINED)])
ERROR = Response.error(ResponseItem(RC.CF_TOPIC_ERROR))

# §3.1, row by row: (MsgType, Report, ok, warning, error).
TABLE = [
    (MQMT.REQUEST, MQRO.NONE, True, True, True),
    (MQMT.REQUEST, MQRO.PAN | MQRO.NAN, True, True, True),
    (MQMT.DATAGRAM, MQRO.PAN, True, True, False),
    (MQMT.DATAGRAM, MQRO.NAN, False, True, True),
    (MQMT.DATAGRAM, MQRO.PAN | MQRO.NAN, True, True, True),
    (MQMT.DATAGRAM, MQRO.NONE, False, False, False),
]


@pytest.mark.parametrize(("msg_type", "report", "ok", "warning", "error"), TABLE)
def test_when_a_response_is_sent(
    msg_type: int, report: int, ok: bool, warning: bool, error: bool
) -> None:
    md = MQMD(MsgType=msg_type, Report=report, ReplyToQ="R")
    assert [wants_reply(md, c) for c in Completion] == [ok, warning, error]
    ctx = EngineContext(ids=CountingIds())
    sent = [bool(respond(md, Interface.RFH2, r, (), ctx)) for r in (OK, WARNING, ERROR)]
    assert sent == [ok, warning, error]


@pytest.mark.parametrize("msg_type", [MQMT.REPLY, MQMT.REPORT, 65536])
def test_other_message_types_are_dead_lettered(msg_type: int) -> None:
    """ "Any other MsgType -> MQRC_MSG_TYPE_ERROR 2029" (§3.1); never a reply to a reply."""
    md = MQMD(MsgType=msg_type, ReplyToQ="R")
    (effect,) = respond(md, Interface.RFH2, OK, (), EngineContext())
    assert isinstance(effect, DeadLetter) and effect.reason == RC.MSG_TYPE_ERROR


@pytest.mark.parametrize(
    ("report", "msg_id_is_commands", "correl_id"),
    [
        (MQRO.NONE, False, "msg"),  # MQRO_NEW_MSG_ID + MQRO_COPY_MSG_ID_TO_CORREL_ID
        (MQRO.PASS_CORREL_ID, False, "correl"),
        (MQRO.PASS_MSG_ID, True, "msg"),
        (MQRO.PASS_MSG_ID | MQRO.PASS_CORREL_ID, True, "correl"),
    ],
)
def test_response_msgid_and_correlid(report: int, msg_id_is_commands: bool, correl_id: str) -> None:
    """§3.2: MsgId new unless MQRO_PASS_MSG_ID; CorrelId the command's MsgId unless
    MQRO_PASS_CORREL_ID."""
    md = MQMD(
        MsgType=MQMT.REQUEST, Report=report, ReplyToQ="R", MsgId=b"M" * 24, CorrelId=b"C" * 24
    )
    (reply,) = respond(md, Interface.RFH2, OK, (), EngineContext(ids=CountingIds()))
    assert isinstance(reply, Reply)
    assert (reply.md.MsgId == md.MsgId) is msg_id_is_commands
    assert reply.md.CorrelId == {"msg": md.MsgId, "correl": md.CorrelId}[correl_id]


def test_response_descriptor() -> None:
    """§3.2: to ReplyToQ at ReplyToQMgr (blank: this QM), Report 0, MsgType REPLY, Format
    MQHRF2 / MQHRF, Priority/Persistence/Expiry copied, PutApplType MQAT_BROKER, identity
    context passed."""
    md = MQMD(
        MsgType=MQMT.REQUEST,
        Report=MQRO.PAN | MQRO.PASS_CORREL_ID,
        ReplyToQ="R",
        Priority=3,
        Persistence=1,
        Expiry=500,
        UserIdentifier="fred",
        ApplIdentityData="app",
    )
    ctx = EngineContext(ids=CountingIds())
    (reply,) = respond(md, Interface.RFH2, ERROR, (("Command", "RegSub"),), ctx)
    assert isinstance(reply, Reply)
    assert (reply.queue, reply.q_mgr_name) == ("R", ctx.qmgr_name)
    r = reply.md
    assert (r.Report, r.MsgType, r.Format) == (0, MQMT.REPLY, MQFMT_RF_HEADER_2)
    assert (r.Priority, r.Persistence, r.Expiry) == (3, 1, 500)
    assert (r.PutApplType, r.PutApplName) == (MQAT.BROKER, ctx.qmgr_name)
    assert (r.UserIdentifier, r.ApplIdentityData) == ("fred", "app")
    assert reply.echo == (("Command", "RegSub"),)
    (rfh1_reply,) = respond(md.replace(ReplyToQMgr="QM9"), Interface.RFH1, OK, (), ctx)
    assert isinstance(rfh1_reply, Reply)
    assert rfh1_reply.md.Format == MQFMT_RF_HEADER_1 and rfh1_reply.q_mgr_name == "QM9"
    assert rfh1_reply.echo == ()  # nothing echoed on ok


def test_no_reply_to_queue() -> None:
    """Choice: a due reply with no ReplyToQ dead-letters a failure and drops a success."""
    md = MQMD(MsgType=MQMT.REQUEST)
    ctx = EngineContext()
    assert respond(md, Interface.RFH2, OK, (), ctx) == []
    (dead,) = respond(md, Interface.RFH2, ERROR, (), ctx)
    assert isinstance(dead, DeadLetter) and dead.reason == RC.CF_TOPIC_ERROR


# ---- delivered copies ------------------------------------------------------------------------


def test_delivered_descriptor(any_broker: BrokerDriver) -> None:
    """§4.1, field by field."""
    broker = any_broker
    broker.register_subscriber("T", queue="SUBQ", correl_id=b"S" * 24, user="sub")
    publisher = MQMD(
        MsgType=MQMT.DATAGRAM,
        Report=MQRO.PAN,
        Priority=6,
        Persistence=1,
        Expiry=900,
        ReplyToQ="PUBQ",
        UserIdentifier="pub",
        MsgId=b"P" * 24,
        ApplOriginData="orig",
    )
    cmd = command_from_psc(
        [("Command", "Publish"), ("Topic", "T")], publisher, queue="SYSTEM.BROKER.DEFAULT.STREAM"
    )
    if broker.wire:
        broker.publish("T", queue="PUBQ", user="pub")
    else:
        broker.send(cmd)
    (copy,) = broker.drain("SUBQ")
    md = copy.md
    assert (md.Report, md.MsgType, md.Format) == (0, MQMT.DATAGRAM, MQFMT_RF_HEADER_2)
    assert md.MsgId not in (b"P" * 24, bytes(24)) and md.CorrelId == b"S" * 24
    assert (md.ReplyToQ, md.ReplyToQMgr) == ("", QMGR)
    assert md.UserIdentifier == "sub"  # the subscriber's context
    assert (md.PutApplType, md.PutApplName) == (MQAT.BROKER, QMGR)
    assert len(md.PutDate) == 8 and len(md.PutTime) == 8 and md.ApplOriginData == ""
    if not broker.wire:
        assert (md.Priority, md.Persistence, md.Expiry) == (6, 1, 900)


def test_each_copy_gets_a_new_msgid(broker: BrokerDriver) -> None:
    broker.register_subscriber("T", queue="Q1")
    broker.register_subscriber("T", queue="Q2")
    broker.publish("T")
    broker.publish("T")
    ids = [m.md.MsgId for q in ("Q1", "Q2") for m in broker.drain(q)]
    assert len(set(ids)) == 4


def test_added_properties(any_broker: BrokerDriver) -> None:
    """§4.2 / choice §10.8: Command Publish, the actual Topic, SubPoint when not the default,
    PubTime and SeqNum as given; other folders and the body passed through."""
    broker = any_broker
    broker.register_subscriber("Sport/#", queue="Q", sub_point="Results")
    broker.publish(
        "Sport/Soccer",
        body=b"1-0",
        sub_point="Results",
        folders=["<usr><x>1</x></usr>"],
        extra=[("PubTime", "20240101120000"), ("SeqNum", "7")],
    )
    (copy,) = broker.drain("Q")
    assert copy.psc == {
        "Command": ["Publish"],
        "Topic": ["Sport/Soccer"],
        "SubPoint": ["Results"],
        "PubTime": ["20240101120000"],
        "SeqNum": ["7"],
    }
    assert copy.body == b"1-0" and copy.folders == ("<usr><x>1</x></usr>",)


def test_one_copy_per_matching_subscription_and_topic(broker: BrokerDriver) -> None:
    """§4.3: "a subscriber with two overlapping subscriptions on the same queue gets two
    copies"; a publication on two topics is one copy per topic."""
    broker.register_subscriber("Sport/#", "Sport/Soccer", queue="Q")
    broker.publish("Sport/Soccer", "Sport/Tennis")
    assert sorted(m.topic for m in broker.drain("Q")) == [
        "Sport/Soccer",
        "Sport/Soccer",
        "Sport/Tennis",
    ]


def test_wildcards_never_cross_namespaces(broker: BrokerDriver) -> None:
    """§1.4: "A stream is a separate topic space; wildcards never match across streams"; the
    default stream and the default subpoint are the same root."""
    broker.register_subscriber("#", queue="ROOT")
    broker.register_subscriber("#", queue="SP", sub_point="SP")
    broker.register_subscriber("*", queue="RFH1", rfh1=True)
    broker.publish("a", body=b"root")
    broker.publish("a", body=b"sp", sub_point="SP")
    assert [m.body for m in broker.drain("ROOT")] == [b"root"]
    assert [m.body for m in broker.drain("SP")] == [b"sp"]
    assert [m.body for m in broker.drain("RFH1")] == [b"root"]


def test_a_named_stream_is_its_own_topic_space() -> None:
    """RFH1 "MQPSStreamName (default SYSTEM.BROKER.DEFAULT.STREAM; for Publish/DeletePub the
    default is the name of the stream queue the message was put to)" (§1.4); an RFH2 publisher
    putting to that stream queue publishes in the same space (topicspace table)."""
    from mqkafka.engine.context import EngineConfig

    streams = frozenset({"SYSTEM.BROKER.DEFAULT.STREAM", "SPORT.STREAM"})
    broker = BrokerDriver(wire=True, config=EngineConfig(qmgr_name=QMGR, streams=streams))
    assert broker.register_subscriber("*", queue="Q", stream="SPORT.STREAM", rfh1=True).ok
    broker.register_subscriber("#", queue="ROOT")
    broker.publish("Soccer", body=b"rfh1", rfh1=True, queue_put="SPORT.STREAM")
    broker.publish("Tennis", body=b"rfh2", queue_put="SPORT.STREAM")
    copies = broker.drain("Q")
    assert [c.body for c in copies] == [b"rfh1", b"rfh2"]
    assert {c.psc["MQPSStreamName"][0] for c in copies} == {"SPORT.STREAM"}
    assert broker.drain("ROOT") == []
