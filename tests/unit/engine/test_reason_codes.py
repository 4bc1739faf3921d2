"""Every reason code of reference §3.5 the engine gives, with a scenario that produces it.

Each row: the reason, the rule (with its source), and a scenario run on a fresh broker whose
last command must answer with that reason (as an error, or a warning where marked).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from mqkafka.engine.authority import AclPolicy
from mqkafka.mq import rfh1, rfh2
from mqkafka.mq.mqmd import MQFMT_RF_HEADER_1, MQFMT_RF_HEADER_2, MQFMT_STRING, MQMD, MQMT
from mqkafka.mq.reasons import RC, name_of
from mqkafka.mq.responses import Completion
from tests.unit.engine.driver import BrokerDriver, Outcome
from tests.unit.engine.fakes import EqualsFilterPort

A = b"A" * 24
ACL = AclPolicy.parse(
    "deny put * Secret*\ndeny subscribe * Secret/#\ndeny publish * Secret/#\n"
    "allow put * *\nallow subscribe * *\nallow publish * *\nallow browse * *"
)


@dataclass(frozen=True)
class Case:
    reason: int
    rule: str
    run: Callable[[BrokerDriver], Outcome]
    warning: bool = False
    broker: Callable[[], BrokerDriver] = BrokerDriver

    def __str__(self) -> str:
        return f"{name_of(self.reason)}: {self.rule}"


def _raw(
    value: bytes, fmt: str = MQFMT_RF_HEADER_2, msg_type: int = MQMT.REQUEST
) -> Callable[[BrokerDriver], Outcome]:
    md = MQMD(MsgType=msg_type, Format=fmt, ReplyToQ="REPLY", UserIdentifier="fred")
    return lambda b: b.send_bytes(value, md)


def _psc(text: str) -> bytes:
    return rfh2.encode(rfh2.Rfh2(format=MQFMT_STRING, folders=(text,)), 546)


def _subscribed(
    then: Callable[[BrokerDriver], Outcome], **kw: object
) -> Callable[[BrokerDriver], Outcome]:
    def run(b: BrokerDriver) -> Outcome:
        assert b.register_subscriber("T", queue="Q", **kw).ok
        return then(b)

    return run


CASES = [
    Case(
        RC.MSG_TYPE_ERROR,
        "MsgType not REQUEST/DATAGRAM (§3.1): dead-lettered",
        _raw(_psc("<psc><Command>RegSub</Command><Topic>T</Topic></psc>"), msg_type=MQMT.REPLY),
    ),
    Case(RC.RFH_ERROR, "bad MQRFH2 structure (§3.5)", _raw(b"RFH \x02\x00\x00\x00garbage")),
    Case(
        RC.RFH_STRING_ERROR,
        "malformed RFH1 NameValueString (§5.2)",
        _raw(rfh1.encode(rfh1.Rfh1(name_values='MQPSCommand "RegSub'), 546), MQFMT_RF_HEADER_1),
    ),
    Case(RC.RFH_COMMAND_ERROR, "invalid Command (§2.1.5)", lambda b: b.command("Subscribe", ["T"])),
    Case(
        RC.RFH_COMMAND_ERROR,
        "RegPub in <psc> (§10.2)",
        lambda b: b.command("RegPub", ["T"], queue="Q"),
    ),
    Case(
        RC.RFH_PARM_ERROR,
        "unknown property (§2.1.5)",
        lambda b: b.register_subscriber("T", extra=[("Colour", "red")]),
    ),
    Case(
        RC.RFH_DUPLICATE_PARM,
        "non-repeatable property repeated (§2.1.5)",
        lambda b: b.register_subscriber("T", extra=[("SubName", "a"), ("SubName", "b")]),
    ),
    Case(
        RC.RFH_PARM_MISSING,
        "mandatory property missing (§2.1.5)",
        lambda b: b.register_subscriber(),
    ),
    Case(
        RC.RFH_PARM_MISSING,
        "no Command in <psc> (choice: mandatory property missing, §2.1.5)",
        _raw(_psc("<psc><Topic>T</Topic></psc>")),
    ),
    Case(
        RC.RFH_PARM_MISSING,
        "no <psc> folder, so no Command (choice, §2.1.5)",
        _raw(_psc("<usr><Topic>T</Topic></usr>")),
    ),
    Case(
        RC.RFH_PARM_MISSING,
        "no MQPSCommand in an RFH1 string (choice, §2.1.5)",
        _raw(rfh1.encode(rfh1.Rfh1(name_values="MQPSTopic T"), 546), MQFMT_RF_HEADER_1),
    ),
    Case(
        RC.RFH_FORMAT_ERROR,
        "malformed folder text (§3.5 2421)",
        _raw(_psc("<psc><Command>RegSub</Command")),
    ),
    Case(RC.CF_MD_FORMAT_ERROR, "MQMD.Format not an RFH (§3.5 3023)", _raw(b"hello", MQFMT_STRING)),
    Case(
        RC.CF_STREAM_ERROR,
        "invalid stream name (§3.5 3071)",
        lambda b: b.register_subscriber("T", queue="Q", stream="bad stream!", rfh1=True),
    ),
    Case(
        RC.CF_TOPIC_ERROR,
        "wildcard level in a publication topic (§10.6)",
        lambda b: b.publish("Sport/#"),
    ),
    Case(
        RC.CF_TOPIC_ERROR,
        "unescaped * in an RFH1 publication topic (§10.6)",
        lambda b: b.publish("Sport*", rfh1=True),
    ),
    Case(
        RC.CF_TOPIC_ERROR,
        "bad % escape in an RFH1 subscription (§7.3)",
        lambda b: b.register_subscriber("50%off", queue="Q", rfh1=True),
    ),
    Case(
        RC.ADMIN_TOPIC_STRING_ERROR,
        "publication to $SYS/MQ/ (§7.1)",
        lambda b: b.publish("$SYS/MQ/x"),
    ),
    Case(
        RC.CF_NOT_REGISTERED,
        "deregister an unknown subscription (MQ9:3073)",
        lambda b: b.deregister_subscriber("T", queue="Q"),
    ),
    Case(
        RC.CF_NOT_REGISTERED,
        "some topics of several not registered: a warning (MQ9:3073)",
        _subscribed(lambda b: b.deregister_subscriber("T", "U", queue="Q")),
        warning=True,
    ),
    Case(
        RC.CF_NOT_REGISTERED,
        "ReqUpdate without a subscription (§2.9)",
        lambda b: b.request_update("T", queue="Q"),
    ),
    Case(
        RC.CF_NOT_REGISTERED,
        "DeregPub for an unknown registration (§2.12)",
        lambda b: b.deregister_publisher("T", queue="Q"),
    ),
    Case(
        RC.CF_Q_MGR_NAME_ERROR,
        "invalid queue manager name (§3.5 3074)",
        lambda b: b.register_subscriber("T", queue="Q", q_mgr="bad name"),
    ),
    Case(
        RC.CF_INCORRECT_STREAM,
        "RFH1 stream differs from the stream queue (§3.5 3075)",
        lambda b: b.publish("T", stream="OTHER.STREAM", rfh1=True),
    ),
    Case(
        RC.CF_Q_NAME_ERROR,
        "invalid queue name (MQ9:3076)",
        lambda b: b.register_subscriber("T", queue="bad queue"),
    ),
    Case(
        RC.CF_NO_RETAINED_MSG,
        "ReqUpdate with nothing retained (S0)",
        _subscribed(lambda b: b.request_update("T", queue="Q")),
    ),
    Case(
        RC.CF_DUPLICATE_IDENTITY,
        "identity owned by another userid (S0, §10.1)",
        _subscribed(lambda b: b.register_subscriber("T", queue="Q", user="bob")),
    ),
    Case(
        RC.CF_DUPLICATE_IDENTITY,
        "publisher identity owned by another userid (§2.10)",
        lambda b: (
            b.register_publisher("T", queue="P"),
            b.register_publisher("T", queue="P", user="bob"),
        )[1],
    ),
    Case(
        RC.CF_INCORRECT_Q,
        "Publish on the control queue (MQ9:3079)",
        lambda b: b.publish("T", queue_put="SYSTEM.BROKER.CONTROL.QUEUE"),
    ),
    Case(
        RC.CF_INCORRECT_Q,
        "RegSub on a stream queue (MQ9:3079)",
        lambda b: b.register_subscriber("T", queue="Q", queue_put="SYSTEM.BROKER.DEFAULT.STREAM"),
    ),
    Case(
        RC.CF_CORREL_ID_ERROR,
        "CorrelAsId with a zero CorrelId (S1)",
        lambda b: b.register_subscriber("T", queue="Q", correl_id=bytes(24)),
    ),
    Case(
        RC.CF_NOT_AUTHORIZED,
        "not authorised for the topic (§2.7)",
        lambda b: b.register_subscriber("Secret/x", queue="Q"),
        broker=lambda: BrokerDriver(authority=ACL),
    ),
    Case(
        RC.CF_NOT_AUTHORIZED,
        "some topics not authorised: a warning naming them (§2.7)",
        lambda b: b.register_subscriber("Open", "Secret/x", queue="Q"),
        warning=True,
        broker=lambda: BrokerDriver(authority=ACL),
    ),
    Case(
        RC.CF_NOT_AUTHORIZED,
        "may not put to the subscriber queue (§3.5 3081)",
        lambda b: b.register_subscriber("T", queue="SecretQ"),
        broker=lambda: BrokerDriver(authority=ACL),
    ),
    Case(
        RC.CF_NOT_AUTHORIZED,
        "some publication topics not authorised: a warning (§2.10)",
        lambda b: b.publish("Open", "Secret/x"),
        warning=True,
        broker=lambda: BrokerDriver(authority=ACL),
    ),
    Case(
        RC.CF_UNKNOWN_STREAM,
        "stream not defined (§3.5 3082)",
        lambda b: b.register_subscriber("T", queue="Q", stream="NO.SUCH.STREAM", rfh1=True),
    ),
    Case(
        RC.CF_REG_OPTIONS_ERROR,
        "bad registration option (§2.5)",
        lambda b: b.register_subscriber("T", queue="Q", options="Sometimes"),
    ),
    Case(
        RC.CF_PUB_OPTIONS_ERROR,
        "IsRetainedPub from a publisher (§2.10)",
        lambda b: b.publish("T", pub_options="IsRetainedPub"),
    ),
    Case(
        RC.CF_DEL_OPTIONS_ERROR,
        "bad delete option (§2.5)",
        lambda b: b.delete_publication("T", del_options="RetainPub"),
    ),
    Case(
        RC.CF_FILTER_ERROR,
        "invalid filter (MQ9:3150)",
        lambda b: b.register_subscriber("T", queue="Q", filter="colour is red"),
        broker=lambda: BrokerDriver(filters=EqualsFilterPort()),
    ),
    Case(
        RC.CF_DUPLICATE_SUBSCRIPTION,
        "AddName with a name in use (§2.7, §10.1)",
        _subscribed(
            lambda b: b.register_subscriber("U", queue="Q", sub_name="n", options="AddName"),
            sub_name="n",
        ),
    ),
    Case(
        RC.CF_DUPLICATE_SUBSCRIPTION,
        "AddName on a subscription with another name (§2.7)",
        _subscribed(
            lambda b: b.register_subscriber("T", queue="Q", sub_name="m", options="AddName"),
            sub_name="n",
        ),
    ),
    Case(
        RC.CF_SUB_NAME_ERROR,
        "SubName starting MQ (S2)",
        lambda b: b.register_subscriber("T", queue="Q", sub_name="MQX"),
    ),
    Case(
        RC.CF_SUB_NAME_ERROR,
        "matching subscription has no SubName (S0)",
        _subscribed(lambda b: b.register_subscriber("T", queue="Q", sub_name="n")),
    ),
    Case(
        RC.CF_SUB_IDENTITY_ERROR,
        "identity not in the set and no Join option (MQ9:3154)",
        _subscribed(lambda b: b.deregister_subscriber("T", queue="Q", sub_identity="x")),
    ),
    Case(
        RC.CF_SUB_IDENTITY_ERROR,
        "SubIdentity longer than 128 (§2.6)",
        lambda b: b.register_subscriber(
            "T", queue="Q", sub_identity="x" * 129, options="JoinShared"
        ),
    ),
    Case(
        RC.CF_SUBSCRIPTION_IN_USE,
        "JoinExcl while others share it (MQ9:3155)",
        _subscribed(
            lambda b: b.register_subscriber("T", queue="Q", sub_identity="j", options="JoinExcl"),
            sub_identity="i",
            options="JoinShared",
        ),
    ),
    Case(
        RC.CF_SUBSCRIPTION_LOCKED,
        "exclusively locked by another identity (MQ9:3156)",
        _subscribed(
            lambda b: b.register_subscriber("T", queue="Q", sub_identity="j", options="JoinShared"),
            sub_identity="i",
            options="JoinExcl",
        ),
    ),
    Case(
        RC.CF_ALREADY_JOINED,
        "identity already in the set: a warning (MQ9:3157)",
        _subscribed(
            lambda b: b.register_subscriber("T", queue="Q", sub_identity="i", options="JoinShared"),
            sub_identity="i",
            options="JoinShared",
        ),
        warning=True,
    ),
    Case(
        RC.CF_SUBSCRIPTION_POINT_ERR,
        "SubPoint longer than 128 (§1.4, 3309 UNCERTAIN)",
        lambda b: b.register_subscriber("T", queue="Q", sub_point="s" * 129),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_reason_code(case: Case) -> None:
    broker = case.broker()
    outcome = case.run(broker)
    if outcome.dead_letters:
        (dead,) = outcome.dead_letters
        assert dead.reason == case.reason
        return
    assert outcome.reason == case.reason, outcome
    expected = Completion.WARNING if case.warning else Completion.ERROR
    assert outcome.completion is expected
    if not case.warning:
        assert outcome.deliveries == [] and all(
            type(e).__name__ in ("Reply", "DeadLetter") for e in outcome.effects
        ), "an error changes nothing"


@pytest.mark.parametrize("wire", [False, True])
def test_every_engine_reason_is_covered(wire: bool) -> None:
    """The table names every MQRCCF code the queued interface documents for these commands."""
    documented = {
        RC.CF_STREAM_ERROR,
        RC.CF_TOPIC_ERROR,
        RC.CF_NOT_REGISTERED,
        RC.CF_Q_MGR_NAME_ERROR,
        RC.CF_INCORRECT_STREAM,
        RC.CF_Q_NAME_ERROR,
        RC.CF_NO_RETAINED_MSG,
        RC.CF_DUPLICATE_IDENTITY,
        RC.CF_INCORRECT_Q,
        RC.CF_CORREL_ID_ERROR,
        RC.CF_NOT_AUTHORIZED,
        RC.CF_UNKNOWN_STREAM,
        RC.CF_REG_OPTIONS_ERROR,
        RC.CF_PUB_OPTIONS_ERROR,
        RC.CF_DEL_OPTIONS_ERROR,
        RC.CF_FILTER_ERROR,
        RC.CF_DUPLICATE_SUBSCRIPTION,
        RC.CF_SUB_NAME_ERROR,
        RC.CF_SUB_IDENTITY_ERROR,
        RC.CF_SUBSCRIPTION_IN_USE,
        RC.CF_SUBSCRIPTION_LOCKED,
        RC.CF_ALREADY_JOINED,
        RC.RFH_ERROR,
        RC.RFH_STRING_ERROR,
        RC.RFH_COMMAND_ERROR,
        RC.RFH_PARM_ERROR,
        RC.RFH_DUPLICATE_PARM,
        RC.RFH_PARM_MISSING,
        RC.RFH_FORMAT_ERROR,
        RC.MSG_TYPE_ERROR,
    }
    assert documented <= {case.reason for case in CASES}
    assert BrokerDriver(wire=wire).register_subscriber("T", queue="Q").ok
