"""What every RegOpt / PubOpt / DelOpt of reference §2.5 does in the engine (table-driven
where the behaviour is a table)."""

from __future__ import annotations

import pytest

from mqkafka.engine.context import EngineConfig, StaticQueueDefaults
from mqkafka.engine.effects import Processed
from mqkafka.mq.commandoptions import REG_OPTION_VALUES
from mqkafka.mq.commands import RegOpt
from mqkafka.mq.mqmd import MQMD, MQPER
from mqkafka.mq.reasons import RC
from mqkafka.mq.responses import Completion
from tests.unit.engine.driver import QMGR, BrokerDriver

A = b"A" * 24


def only(broker: BrokerDriver):  # type: ignore[no-untyped-def]
    (sub,) = list(broker.state.subscriptions)
    return sub


# ---- persistence of delivered copies (§2.7, §4.1, choice §10.9) ------------------------------


@pytest.mark.parametrize(
    ("option", "published", "queue_default", "delivered"),
    [
        ("", MQPER.PERSISTENT, 0, MQPER.PERSISTENT),  # default: as published
        ("", MQPER.NOT_PERSISTENT, 1, MQPER.NOT_PERSISTENT),
        ("", MQPER.PERSISTENCE_AS_Q_DEF, 1, MQPER.PERSISTENT),  # resolved on the stream queue
        ("PersAsPub", MQPER.PERSISTENT, 0, MQPER.PERSISTENT),
        ("PersAsPub", MQPER.NOT_PERSISTENT, 1, MQPER.NOT_PERSISTENT),
        ("NonPers", MQPER.PERSISTENT, 1, MQPER.NOT_PERSISTENT),
        ("Pers", MQPER.NOT_PERSISTENT, 0, MQPER.PERSISTENT),
        ("PersAsQueue", MQPER.NOT_PERSISTENT, 1, MQPER.PERSISTENT),
        ("PersAsQueue", MQPER.PERSISTENT, 0, MQPER.NOT_PERSISTENT),
    ],
)
def test_persistence_options(
    option: str, published: int, queue_default: int, delivered: int
) -> None:
    broker = BrokerDriver(queues=StaticQueueDefaults(persistence=queue_default))
    broker.register_subscriber("T", queue="Q", options=option)
    from mqkafka.mq.commandparse import command_from_psc
    from mqkafka.mq.commands import PublicationContent

    md = MQMD(Persistence=published)
    cmd = command_from_psc(
        [("Command", "Publish"), ("Topic", "T")],
        md,
        queue="SYSTEM.BROKER.DEFAULT.STREAM",
        content=PublicationContent(),
    )
    broker.send(cmd)
    (copy,) = broker.drain("Q")
    assert copy.md.Persistence == delivered


def test_priority_as_queue_definition_is_resolved() -> None:
    broker = BrokerDriver(queues=StaticQueueDefaults(priority=4))
    broker.register_subscriber("T", queue="Q")
    from mqkafka.mq.commandparse import command_from_psc

    for priority, expected in ((-1, 4), (7, 7)):
        cmd = command_from_psc(
            [("Command", "Publish"), ("Topic", "T")],
            MQMD(Priority=priority),
            queue="SYSTEM.BROKER.DEFAULT.STREAM",
        )
        broker.send(cmd)
        assert broker.drain("Q")[0].md.Priority == expected


# ---- retained publications on registration ------------------------------------------------


@pytest.mark.parametrize(
    ("options", "sent_on_registration"),
    [("", True), ("NewPubsOnly", False), ("PubOnReqOnly", False), ("InformIfRet", True)],
)
def test_retained_publications_on_registration(options: str, sent_on_registration: bool) -> None:
    """ "Immediately after a successful registration, matching retained publications are sent
    unless NewPubsOnly or PubOnReqOnly is set" (§2.7)."""
    broker = BrokerDriver()
    broker.publish("T/1", body=b"kept", retain=True)
    broker.register_subscriber("T/#", queue="Q", options=options)
    assert [m.body for m in broker.drain("Q")] == ([b"kept"] if sent_on_registration else [])


def test_re_registration_does_not_resend_retained(broker: BrokerDriver) -> None:
    """Choice §10.15: "retained publications are re-sent only for new subscriptions"."""
    broker.publish("T", body=b"kept", retain=True)
    broker.register_subscriber("T", queue="Q")
    broker.register_subscriber("T", queue="Q", options="Pers")
    assert len(broker.drain("Q")) == 1


@pytest.mark.parametrize(("options", "marked"), [("InformIfRet", True), ("", False)])
def test_inform_if_retained_marks_retained_copies_only(
    any_broker: BrokerDriver, options: str, marked: bool
) -> None:
    """InformIfRet: "when a retained publication is delivered, mark it with PubOpt
    IsRetainedPub" - live publications are never marked."""
    broker = any_broker
    broker.publish("T", body=b"old", retain=True)
    broker.register_subscriber("T", queue="Q", options=options)
    broker.publish("T", body=b"new", retain=True)
    old, new = broker.drain("Q")
    assert (old.body, old.is_retained) == (b"old", marked)
    assert (new.body, new.is_retained) == (b"new", False)


def test_retain_pub_keeps_one_publication_per_topic(broker: BrokerDriver) -> None:
    """RetainPub: "One retained publication per topic (newest replaces older)"."""
    broker.publish("T", body=b"1", retain=True)
    broker.publish("T", body=b"2", retain=True)
    broker.publish("T", body=b"3")  # not retained: does not replace
    broker.register_subscriber("T", queue="Q")
    assert [m.body for m in broker.drain("Q")] == [b"2"]
    assert len(broker.state.retained) == 1


def test_retained_copy_expiry_counts_down(broker: BrokerDriver) -> None:
    """§4.1 Expiry: "for a retained copy reduced by the time it was held"; expired: gone."""
    from mqkafka.mq.commandparse import command_from_psc

    cmd = command_from_psc(
        [("Command", "Publish"), ("Topic", "T"), ("PubOpt", "RetainPub")],
        MQMD(Expiry=100),
        queue="SYSTEM.BROKER.DEFAULT.STREAM",
    )
    broker.send(cmd)
    broker.clock.advance(3)
    broker.register_subscriber("T", queue="Q1")
    assert broker.drain("Q1")[0].md.Expiry == 70
    broker.clock.advance(8)
    broker.register_subscriber("T", queue="Q2")
    assert broker.drain("Q2") == [] and len(broker.state.retained) == 0


# ---- publication options ---------------------------------------------------------------------


def test_other_subs_only_skips_the_publishers_own_subscriptions(any_broker: BrokerDriver) -> None:
    """OtherSubsOnly: "do not deliver to the publisher's own matching subscriptions (same
    identity)" (§2.10)."""
    broker = any_broker
    broker.register_subscriber("T", queue="SELF", correl_id=A)
    broker.register_subscriber("T", queue="SELF")  # the same queue, another identity
    broker.register_subscriber("T", queue="OTHER")
    broker.publish("T", body=b"x", queue="SELF", correl_id=A, pub_options="OtherSubsOnly")
    assert [m.md.CorrelId == A for m in broker.drain("SELF")] == [False]
    assert len(broker.drain("OTHER")) == 1


@pytest.mark.parametrize(
    ("strict", "subscriber_local", "delivered"),
    [(False, False, True), (False, True, True), (True, False, False), (True, True, True)],
)
def test_local_publications(strict: bool, subscriber_local: bool, delivered: bool) -> None:
    """Choice §10.4: Local is a no-op unless strict v6 mode, where "Local publications reach
    only Local subscriptions"."""
    broker = BrokerDriver(config=EngineConfig(qmgr_name=QMGR, strict_v6_local=strict))
    broker.register_subscriber("T", queue="Q", options="Local" if subscriber_local else "")
    broker.publish("T", body=b"x", pub_options="Local")
    broker.publish("T", body=b"y")
    assert [m.body for m in broker.drain("Q")] == ([b"x", b"y"] if delivered else [b"y"])


@pytest.mark.parametrize(
    ("strict", "retained_local", "delete_local", "deleted"),
    [
        (False, False, False, True),
        (False, True, False, True),
        (False, False, True, True),
        (True, True, True, True),
        (True, False, True, False),  # v6: Local deletes only Local retained publications
        (True, True, False, False),  # v6: the default deletes global ones but not local ones
        (True, False, False, True),
    ],
)
def test_delete_publication_local(
    strict: bool, retained_local: bool, delete_local: bool, deleted: bool
) -> None:
    """DelOpt Local (§2.11, choice §10.4)."""
    broker = BrokerDriver(config=EngineConfig(qmgr_name=QMGR, strict_v6_local=strict))
    broker.publish("T", body=b"x", retain=True, pub_options="Local" if retained_local else "")
    assert broker.delete_publication("T", del_options="Local" if delete_local else "").ok
    assert (len(broker.state.retained) == 0) is deleted


def test_delete_publication_with_wildcards_and_nothing_retained(broker: BrokerDriver) -> None:
    """DeletePub topics may hold wildcards; nothing retained is ok (choice §10.10)."""
    broker.publish("Sport/A", retain=True)
    broker.publish("Sport/B", retain=True)
    broker.publish("News/C", retain=True)
    assert broker.delete_publication("Sport/#").ok
    assert [p.topic.text for p in broker.state.retained] == ["News/C"]
    assert broker.delete_publication("Nothing/Here").ok


# ---- registration options --------------------------------------------------------------------


def test_dereg_all_removes_every_subscription_of_the_identity(broker: BrokerDriver) -> None:
    """DeregAll: "remove every subscription of this subscriber, narrowed by whichever of
    topic/subpoint/filter are given" (§2.8)."""
    broker.register_subscriber("A", "B", queue="Q", correl_id=A)
    broker.register_subscriber("C", queue="Q", correl_id=A, sub_point="SP")
    broker.register_subscriber("A", queue="Q")  # another identity on the queue
    assert broker.deregister_subscriber(
        queue="Q", correl_id=A, options="DeregAll", sub_point="SP"
    ).ok
    assert len(broker.state.subscriptions) == 3
    assert broker.deregister_subscriber(queue="Q", correl_id=A, options="DeregAll").ok
    assert [s.key.identity.correl_id for s in broker.state.subscriptions] == [None]
    assert broker.deregister_subscriber(queue="Q", correl_id=A, options="DeregAll").reason == (
        RC.CF_NOT_REGISTERED
    )


def test_no_alter_leaves_an_existing_subscription_unchanged(broker: BrokerDriver) -> None:
    """NoAlter: "if a matching subscription exists, leave its attributes unchanged (Join
    options still add the identity)"."""
    broker.register_subscriber("T", queue="Q", options="Pers")
    broker.register_subscriber(
        "T", queue="Q", options="NonPers NoAlter JoinShared", sub_identity="i"
    )
    sub = only(broker)
    assert RegOpt.PERSISTENT in sub.options and RegOpt.NON_PERSISTENT not in sub.options
    assert sub.identities == {"i"}
    broker.register_subscriber("T", queue="Q", options="NonPers", sub_identity="i")
    assert RegOpt.NON_PERSISTENT in only(broker).options


def test_full_response_returns_the_subscription_attributes(any_broker: BrokerDriver) -> None:
    """FullResp: "on success the response pscr carries the subscription's attributes"."""
    broker = any_broker
    outcome = broker.register_subscriber(
        "MyTopic", queue="MyQueue", options="FullResp Locked", sub_name="n", sub_user_data="ud"
    )
    full = dict(outcome.response.full)
    assert outcome.completion is Completion.OK
    assert full["Command"] == "RegSub" and full["Topic"] == "MyTopic"
    assert (full["QMgrName"], full["QName"], full["UserId"]) == (QMGR, "MyQueue", "fred")
    assert (full["SubName"], full["SubUserData"]) == ("n", "ud")
    assert ("RegOpt", "Locked") in outcome.response.full  # choice §10.9: Locked echoed
    assert outcome.response.to_pscr().pairs()[0] == ("Completion", "ok")


def test_join_shared_already_joined_is_a_warning(broker: BrokerDriver) -> None:
    """JoinShared: "already a member -> warning MQRCCF_ALREADY_JOINED 3157"."""
    broker.register_subscriber("T", queue="Q", sub_identity="i", options="JoinShared")
    again = broker.register_subscriber("T", queue="Q", sub_identity="i", options="JoinShared")
    assert (again.completion, again.reason) == (Completion.WARNING, RC.CF_ALREADY_JOINED)


def test_join_exclusive_locks_out_others(broker: BrokerDriver) -> None:
    """JoinExcl: "add SubIdentity and lock the subscription exclusively"."""
    broker.register_subscriber("T", queue="Q", sub_identity="i", options="JoinExcl")
    assert only(broker).exclusive == "i"
    assert broker.register_subscriber(
        "T", queue="Q", sub_identity="j", options="JoinShared"
    ).reason == (RC.CF_SUBSCRIPTION_LOCKED)
    assert (
        broker.register_subscriber("T", queue="Q", options="Pers").reason
        == RC.CF_SUBSCRIPTION_LOCKED
    )
    broker.deregister_subscriber("T", queue="Q", sub_identity="i", options="LeaveOnly")
    assert only(broker).exclusive is None


def test_leave_only_keeps_an_empty_subscription(broker: BrokerDriver) -> None:
    """LeaveOnly: "remove the identity from the set but keep the subscription even if the set
    becomes empty; fails if the identity is not in the set"."""
    broker.register_subscriber("T", queue="Q", sub_identity="i", options="JoinShared")
    assert broker.deregister_subscriber("T", queue="Q", sub_identity="i", options="LeaveOnly").ok
    assert only(broker).identities == frozenset()
    assert broker.deregister_subscriber(
        "T", queue="Q", sub_identity="i", options="LeaveOnly"
    ).reason == (RC.CF_SUB_IDENTITY_ERROR)


def test_dereg_without_identity_removes_whatever_the_set_holds(broker: BrokerDriver) -> None:
    """ "Without LeaveOnly and without SubIdentity the subscription is removed whatever the set
    holds" (§2.8)."""
    broker.register_subscriber("T", queue="Q", sub_identity="i", options="JoinShared")
    broker.register_subscriber("T", queue="Q", sub_identity="j", options="JoinShared")
    assert broker.deregister_subscriber("T", queue="Q").ok
    assert len(broker.state.subscriptions) == 0


def test_member_modifying_a_shared_subscription_is_in_use(broker: BrokerDriver) -> None:
    """ "A member that is not the only member trying to modify" -> 3155 SUBSCRIPTION_IN_USE."""
    broker.register_subscriber("T", queue="Q", sub_identity="i", options="JoinShared")
    broker.register_subscriber("T", queue="Q", sub_identity="j", options="JoinShared")
    assert broker.register_subscriber("T", queue="Q", sub_identity="i", options="Pers").reason == (
        RC.CF_SUBSCRIPTION_IN_USE
    )


def test_identity_not_in_set_without_join_is_identity_error(broker: BrokerDriver) -> None:
    """3154 "identity ... not in set and no Join option"."""
    broker.register_subscriber("T", queue="Q", sub_identity="i", options="JoinShared")
    assert (
        broker.register_subscriber("T", queue="Q", sub_identity="k").reason
        == RC.CF_SUB_IDENTITY_ERROR
    )
    assert (
        broker.register_subscriber("U", queue="Q", sub_identity="k").reason
        == RC.CF_SUB_IDENTITY_ERROR
    )


@pytest.mark.parametrize("option", ["DupsOK", "Locked", "Anon", "InclStreamName"])
def test_informational_options_are_kept(option: str) -> None:
    """DupsOK (no-op), Locked (choice §10.9: informational), Anon and InclStreamName (RFH1) are
    accepted and stored with the subscription."""
    broker = BrokerDriver()
    assert broker.register_subscriber("T", queue="Q", options=option, rfh1=True).ok
    assert only(broker).options == REG_OPTION_VALUES[option][0]


def test_include_stream_name_on_rfh1_copies(any_broker: BrokerDriver) -> None:
    """InclStreamName: "publications sent to this subscriber always include MQPSStreamName"."""
    broker = any_broker
    broker.register_subscriber("T", queue="Q1", options="InclStreamName", rfh1=True)
    broker.register_subscriber("T", queue="Q2", rfh1=True)
    broker.publish("T", body=b"x", rfh1=True)
    assert broker.drain("Q1")[0].psc["MQPSStreamName"] == ["SYSTEM.BROKER.DEFAULT.STREAM"]
    assert "MQPSStreamName" not in broker.drain("Q2")[0].psc


def test_direct_requests_publisher_queue_on_rfh1_copies(any_broker: BrokerDriver) -> None:
    """DirectReq: RFH1 copies carry the publisher's MQPSQName/MQPSQMgrName (§4.2)."""
    broker = any_broker
    broker.register_subscriber("T", queue="Q", rfh1=True)
    assert broker.register_publisher("T", queue="PUBQ", options="DirectReq").ok
    broker.publish("T", body=b"x", queue="PUBQ", rfh1=True)
    copy = broker.drain("Q")[0]
    assert (copy.psc["MQPSQName"], copy.psc["MQPSQMgrName"]) == (["PUBQ"], [QMGR])


def test_variable_user_id_is_stored(broker: BrokerDriver) -> None:
    broker.register_subscriber("T", queue="Q", options="VariableUserId")
    assert RegOpt.VARIABLE_USER_ID in only(broker).options


def test_re_registration_updates_options(broker: BrokerDriver) -> None:
    """Choice §10.15: "RegSub on an existing subscription updates its options"."""
    broker.register_subscriber("T", queue="Q", options="Pers InformIfRet")
    broker.register_subscriber("T", queue="Q", options="NonPers")
    assert only(broker).options == RegOpt.NON_PERSISTENT


def test_temporary_dynamic_subscriber_queue_closed_removes_its_subscriptions(
    broker: BrokerDriver,
) -> None:
    """Choice §10.3: temporary dynamic subscriber queues are allowed, and "the subscription is
    removed automatically when that queue is closed" (§2.7)."""
    from mqkafka.engine.handle import step
    from mqkafka.engine.inputs import QueueDeleted

    broker.register_subscriber("A", "B", queue="AMQ.TEMP.1", correl_id=b"A" * 24)
    broker.register_subscriber("A", queue="AMQ.TEMP.1")
    broker.register_subscriber("A", queue="KEEP")
    outcomes: list[Processed] = []
    effects = step(broker.state, QueueDeleted("AMQ.TEMP.1", QMGR), broker.ctx, outcomes)
    assert len(effects) == 3 and outcomes == []  # a command, not a message: nothing answered
    broker.state.check_invariants()
    assert [s.key.identity.q_name for s in broker.state.subscriptions] == ["KEEP"]
