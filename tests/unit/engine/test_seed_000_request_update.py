"""Seed 000, "Request Update message": one test per rule, each citing the sentence it checks."""

from __future__ import annotations

import pytest

from mqkafka.engine.authority import ALLOW_ALL, AclPolicy
from mqkafka.mq.commandparse import command_from_psc
from mqkafka.mq.commands import ReqUpdate
from mqkafka.mq.mqmd import MQMD
from mqkafka.mq.reasons import RC
from tests.unit.engine.driver import QMGR, BrokerDriver
from tests.unit.engine.fakes import EqualsFilterPort, usr

A = b"A" * 24
B = b"B" * 24
SCORES = "Sport/Soccer/State/LatestScore/#"


def retained_scores(broker: BrokerDriver) -> None:
    broker.publish("Sport/Soccer/State/LatestScore/Team1 Team2", body=b"1-0", retain=True)
    broker.publish("Sport/Soccer/State/LatestScore/Team3 Team4", body=b"2-2", retain=True)


def test_request_the_current_retained_publications_for_topic_and_subscription_point(
    any_broker: BrokerDriver,
) -> None:
    """ "to request the current retained publications for the specified topic and subscription
    point that match the given (optional) filter." """
    broker = any_broker
    broker.publish("Sport/Soccer/State/LatestScore/T1", body=b"root", retain=True)
    broker.publish("Sport/Soccer/State/LatestScore/T1", body=b"sp", retain=True, sub_point="SP")
    broker.register_subscriber(SCORES, queue="RESULTS", options="PubOnReqOnly", sub_point="SP")
    assert broker.request_update(SCORES, queue="RESULTS", sub_point="SP").ok
    assert [m.body for m in broker.drain("RESULTS")] == [b"sp"]


def test_sent_to_the_control_queue(broker: BrokerDriver) -> None:
    """ "This message is sent to SYSTEM.BROKER.CONTROL.QUEUE" - elsewhere it is 3079."""
    broker.register_subscriber(SCORES, queue="RESULTS")
    outcome = broker.request_update(
        SCORES, queue="RESULTS", queue_put="SYSTEM.BROKER.DEFAULT.STREAM"
    )
    assert outcome.reason == RC.CF_INCORRECT_Q


def test_needs_put_authority_to_the_control_queue() -> None:
    """ "Authority to put a message to this queue is required" """
    acl = AclPolicy.parse(
        "allow subscribe * *\nallow put fred *\nallow put bob RESULTS\nallow put * APP.REPLY"
    )
    broker = BrokerDriver(authority=acl)
    broker.register_subscriber(SCORES, queue="RESULTS", options="VariableUserId")
    outcome = broker.request_update(SCORES, queue="RESULTS", user="bob", options="VariableUserId")
    assert outcome.reason == RC.CF_NOT_AUTHORIZED


def test_needs_access_authority_for_the_topic() -> None:
    """ "in addition to access authority for the topic in the request update" """
    acl = AclPolicy.parse("allow put * *\nallow publish * *\nallow subscribe * Sport/#")
    broker = BrokerDriver(authority=acl)
    assert broker.register_subscriber("News/#", queue="RESULTS").reason == RC.CF_NOT_AUTHORIZED
    assert broker.register_subscriber(SCORES, queue="RESULTS").ok
    retained_scores(broker)
    assert broker.request_update(SCORES, queue="RESULTS").ok
    assert broker.request_update("News/#", queue="RESULTS").reason == RC.CF_NOT_AUTHORIZED


def test_normally_used_with_pub_on_req_only(any_broker: BrokerDriver) -> None:
    """ "This command is normally used if the subscriber specified the option PubOnReqOnly when
    it registered." - such a subscriber gets nothing pushed, and everything on request."""
    broker = any_broker
    broker.register_subscriber(SCORES, queue="RESULTS", options="PubOnReqOnly")
    retained_scores(broker)
    assert broker.messages("RESULTS") == []
    broker.request_update(SCORES, queue="RESULTS")
    assert sorted(m.body for m in broker.drain("RESULTS")) == [b"1-0", b"2-2"]


def test_matching_retained_publications_are_sent(any_broker: BrokerDriver) -> None:
    """ "If the queue manager has any matching retained publications, they are sent to the
    subscriber." """
    broker = any_broker
    retained_scores(broker)
    broker.publish("Sport/Tennis/State/LatestScore/X", body=b"6-0", retain=True)
    broker.register_subscriber(SCORES, queue="RESULTS", correl_id=A, options="PubOnReqOnly")
    broker.request_update(SCORES, queue="RESULTS", correl_id=A)
    received = broker.drain("RESULTS", correl_id=A)
    assert [m.topic for m in received] == [
        "Sport/Soccer/State/LatestScore/Team1 Team2",
        "Sport/Soccer/State/LatestScore/Team3 Team4",
    ]


def test_no_matching_retained_publication_is_no_retained_msg(any_broker: BrokerDriver) -> None:
    """ "If the queue manager has no matching retained publications, the request fails with
    return code MQRCCF_NO_RETAINED_MSG." """
    broker = any_broker
    broker.register_subscriber(SCORES, queue="RESULTS", correl_id=A, options="PubOnReqOnly")
    broker.publish("Sport/Soccer/State/LatestScore/T", body=b"not retained")
    assert broker.request_update(SCORES, queue="RESULTS", correl_id=A).reason == (
        RC.CF_NO_RETAINED_MSG
    )


def test_requester_must_have_registered_same_topic_subpoint_and_filter(
    broker: BrokerDriver,
) -> None:
    """ "The requester must have previously registered a subscription with the same Topic,
    SubPoint, and Filter values." """
    retained_scores(broker)
    broker.register_subscriber(SCORES, queue="RESULTS", filter="team = 'a'")
    assert broker.request_update(SCORES, queue="RESULTS").reason == RC.CF_NOT_REGISTERED
    assert (
        broker.request_update(SCORES, queue="RESULTS", filter="team = 'a'", sub_point="SP").reason
        == RC.CF_NOT_REGISTERED
    )
    assert broker.request_update("Sport/#", queue="RESULTS", filter="team = 'a'").reason == (
        RC.CF_NOT_REGISTERED
    )
    assert broker.request_update(SCORES, queue="RESULTS", filter="team = 'a'").ok


def test_command_must_be_specified() -> None:
    """Command: "The value is ReqUpdate ... This property must be specified." - a mandatory
    property missing, MQRC_RFH_PARM_MISSING (choice, §2.1.5; 2336 is for a bad Command)."""
    md = MQMD(ReplyToQ="RESULTS")
    from mqkafka.mq.errors import MQError

    try:
        command_from_psc([("Topic", SCORES)], md)
    except MQError as error:
        assert (error.reason, error.parm) == (RC.RFH_PARM_MISSING, "Command")
    else:
        raise AssertionError("a command without Command parsed")


def test_topic_allows_wildcards(broker: BrokerDriver) -> None:
    """Topic: "wildcard characters are allowed." """
    retained_scores(broker)
    broker.register_subscriber(
        "Sport/+/State/LatestScore/#", queue="RESULTS", options="PubOnReqOnly"
    )
    assert broker.request_update("Sport/+/State/LatestScore/#", queue="RESULTS").ok
    assert len(broker.drain("RESULTS")) == 2


def test_topic_is_mandatory_and_single() -> None:
    """Topic: "This property must be specified, but only one occurrence is allowed in this
    message." """
    from mqkafka.mq.errors import MQError

    md = MQMD(ReplyToQ="RESULTS")
    for pairs, reason in (
        ([("Command", "ReqUpdate")], RC.RFH_PARM_MISSING),
        ([("Command", "ReqUpdate"), ("Topic", "a"), ("Topic", "b")], RC.RFH_DUPLICATE_PARM),
    ):
        try:
            command_from_psc(pairs, md)
        except MQError as error:
            assert error.reason == reason
        else:
            raise AssertionError(f"{pairs} parsed")


def test_subpoint_omitted_is_the_default_subscription_point(broker: BrokerDriver) -> None:
    """SubPoint: "If this property is omitted, the default subscription point is used." """
    retained_scores(broker)
    broker.register_subscriber(SCORES, queue="RESULTS", options="PubOnReqOnly")
    assert broker.request_update(
        SCORES, queue="RESULTS", sub_point="SYSTEM.BROKER.DEFAULT.SUBPOINT"
    ).ok
    assert len(broker.drain("RESULTS")) == 2


def test_filter_selects_retained_publications_by_content() -> None:
    """Filter: "If a publication on the specified topic matches the filter, it is sent to the
    subscriber." """
    broker = BrokerDriver(filters=EqualsFilterPort())
    broker.publish("Sport/A", body=b"red", retain=True, folders=[usr(colour="red")])
    broker.publish("Sport/B", body=b"blue", retain=True, folders=[usr(colour="blue")])
    broker.register_subscriber(
        "Sport/#", queue="Q", filter="colour = 'red'", options="PubOnReqOnly"
    )
    assert broker.request_update("Sport/#", queue="Q", filter="colour = 'red'").ok
    assert [m.body for m in broker.drain("Q")] == [b"red"]


def test_filter_should_repeat_the_subscription_filter(broker: BrokerDriver) -> None:
    """Filter: "The <Filter> property should have the same value as that specified on the
    original subscription for which we are now requesting an update." """
    retained_scores(broker)
    broker.register_subscriber(SCORES, queue="Q", filter="a = 'b'", options="PubOnReqOnly")
    assert broker.request_update(SCORES, queue="Q", filter="a = 'c'").reason == RC.CF_NOT_REGISTERED


def test_filter_omitted_means_no_content_filtering() -> None:
    """Filter: "If this property is omitted, no content filtering takes place." """
    broker = BrokerDriver(filters=EqualsFilterPort())
    broker.publish("Sport/A", body=b"red", retain=True, folders=[usr(colour="red")])
    broker.publish("Sport/B", body=b"blue", retain=True, folders=[usr(colour="blue")])
    broker.register_subscriber("Sport/#", queue="Q", options="PubOnReqOnly")
    broker.request_update("Sport/#", queue="Q")
    assert sorted(m.body for m in broker.drain("Q")) == [b"blue", b"red"]


def test_correl_as_id_sends_publications_with_the_nonzero_correlid(
    any_broker: BrokerDriver,
) -> None:
    """CorrelAsId: "The CorrelId in the message descriptor (MQMD), which must not be zero, is
    used when sending matching publications to the subscriber queue." """
    broker = any_broker
    retained_scores(broker)
    broker.register_subscriber(SCORES, queue="RESULTS", correl_id=A, options="PubOnReqOnly")
    broker.request_update(SCORES, queue="RESULTS", correl_id=A)
    assert {m.md.CorrelId for m in broker.drain("RESULTS")} == {A}
    assert broker.request_update(SCORES, queue="RESULTS", correl_id=bytes(24)).reason == (
        RC.CF_CORREL_ID_ERROR
    )


def test_none_is_ignored_with_other_options(broker: BrokerDriver) -> None:
    """None: "All options take their default values. This has the same effect as omitting the
    <RegOpt> property. If other options are specified at the same time, None is ignored." """
    retained_scores(broker)
    broker.register_subscriber(SCORES, queue="Q1", options="None")
    broker.register_subscriber(SCORES, queue="Q2")
    assert len(broker.messages("Q1")) == len(broker.messages("Q2")) == 2
    broker.register_subscriber(SCORES, queue="Q3", options="None PubOnReqOnly")
    assert broker.messages("Q3") == []


def test_variable_user_id_lets_another_user_use_the_identity(broker: BrokerDriver) -> None:
    """VariableUserId: "the identity of the subscriber (queue, queue manager, and correlid) is
    not restricted to a single userid." """
    retained_scores(broker)
    broker.register_subscriber(
        SCORES, queue="Q", correl_id=A, options="VariableUserId PubOnReqOnly"
    )
    outcome = broker.request_update(
        SCORES, queue="Q", correl_id=A, user="bob", options="VariableUserId"
    )
    assert outcome.ok


def test_without_variable_user_id_another_user_is_refused(broker: BrokerDriver) -> None:
    """VariableUserId: "the queue manager ... associates the userid of the original
    registration message with the subscriber's identity and from then on prevents any other
    user using that identity. If a new subscriber tries to use the same identity, the command
    fails" - with MQRCCF_DUPLICATE_IDENTITY (3078; the seed's DUPLICATE_SUBSCRIPTION here is
    the §10.1 contradiction, resolved to 3078)."""
    broker.register_subscriber(SCORES, queue="Q", correl_id=A)
    assert broker.register_subscriber("Other", queue="Q", correl_id=A, user="bob").reason == (
        RC.CF_DUPLICATE_IDENTITY
    )


def test_variable_user_id_any_user_may_modify_or_deregister(broker: BrokerDriver) -> None:
    """VariableUserId: "This allows any user to modify or deregister the subscription when they
    have suitable authority." """
    broker.register_subscriber(SCORES, queue="Q", options="VariableUserId")
    assert broker.register_subscriber(
        SCORES, queue="Q", user="bob", options="VariableUserId NewPubsOnly"
    ).ok
    assert broker.deregister_subscriber(SCORES, queue="Q", user="bob", options="VariableUserId").ok
    assert len(broker.state.subscriptions) == 0


def test_adding_variable_user_id_needs_the_original_userid(broker: BrokerDriver) -> None:
    """VariableUserId: "To add this option to an existing subscription, the command must come
    from the same userid as the original subscription." """
    broker.register_subscriber(SCORES, queue="Q")
    assert broker.register_subscriber(
        SCORES, queue="Q", user="bob", options="VariableUserId"
    ).reason == (RC.CF_DUPLICATE_IDENTITY)
    assert broker.register_subscriber(SCORES, queue="Q", options="VariableUserId").ok


def test_request_update_must_say_variable_user_id_to_reach_such_a_subscription(
    broker: BrokerDriver,
) -> None:
    """VariableUserId: "If the subscription of the Request Update command has VariableUserId
    set, this must be set at request update time to indicate which subscription is referred
    to. Otherwise, the userid of the Request Update command is used to identify the
    subscription." """
    retained_scores(broker)
    broker.register_subscriber(SCORES, queue="Q", options="VariableUserId PubOnReqOnly")
    assert broker.request_update(SCORES, queue="Q", user="bob").reason == RC.CF_DUPLICATE_IDENTITY
    assert broker.request_update(SCORES, queue="Q", user="bob", options="VariableUserId").ok


def test_no_registration_options_by_default() -> None:
    """ "The default, if this property is omitted, is that no registration options are set." """
    cmd = command_from_psc([("Command", "ReqUpdate"), ("Topic", SCORES)], MQMD(ReplyToQ="Q"))
    assert isinstance(cmd, ReqUpdate) and not cmd.options


def test_qmgr_name_defaults_to_reply_to_qmgr_then_local_qmgr() -> None:
    """QMgrName: "If this property is omitted, the default is the ReplyToQMgr name in the
    message descriptor (MQMD). If the resulting name is blank, it defaults to the queue
    manager's QMgrName." """
    pairs = [("Command", "ReqUpdate"), ("Topic", SCORES)]
    remote = command_from_psc(pairs, MQMD(ReplyToQ="Q", ReplyToQMgr="QM9"), local_qmgr=QMGR)
    local = command_from_psc(pairs, MQMD(ReplyToQ="Q"), local_qmgr=QMGR)
    assert isinstance(remote, ReqUpdate) and remote.q_mgr_name == "QM9"
    assert isinstance(local, ReqUpdate) and local.q_mgr_name == QMGR


def test_qname_defaults_to_reply_to_q_which_must_not_be_blank(broker: BrokerDriver) -> None:
    """QName: "If this property is omitted, the default is the ReplyToQ name in the message
    descriptor (MQMD), which must not be blank in this case." Blank: MQRCCF_Q_NAME_ERROR, and
    with no ReplyToQ to answer on, the command is dead-lettered with that reason."""
    retained_scores(broker)
    broker.register_subscriber(SCORES, options="PubOnReqOnly")  # QName <- ReplyToQ APP.REPLY
    assert broker.request_update(SCORES).ok
    assert len(broker.messages("APP.REPLY")) == 2
    blank = broker.request_update(SCORES, reply_to=None)
    assert [d.reason for d in blank.dead_letters] == [RC.CF_Q_NAME_ERROR]


def test_sub_name_takes_precedence_over_other_identifiers(broker: BrokerDriver) -> None:
    """SubName: "If specified on a Request Update command the SubName value takes precedence
    over all other identifier fields except the userid" """
    retained_scores(broker)
    broker.register_subscriber(
        SCORES, queue="RESULTS", correl_id=A, sub_name="scores", options="PubOnReqOnly"
    )
    assert broker.request_update(SCORES, queue="ELSEWHERE", sub_name="scores").ok
    assert {m.md.CorrelId for m in broker.drain("RESULTS")} == {A}


def test_sub_name_needs_the_subscriptions_userid(broker: BrokerDriver) -> None:
    """SubName: "If VariableUserId is not set, the Request Update command succeeds only if the
    userid of the command message matches that of the subscription. If the userid ... does not
    match ..., the command fails with return code MQRCCF_DUPLICATE_IDENTITY." """
    retained_scores(broker)
    broker.register_subscriber(SCORES, queue="RESULTS", sub_name="scores", options="PubOnReqOnly")
    assert broker.request_update(SCORES, sub_name="scores", user="bob").reason == (
        RC.CF_DUPLICATE_IDENTITY
    )
    assert broker.request_update(SCORES, sub_name="scores", user="fred").ok


def test_variable_user_id_other_user_needs_browse_and_put_authority() -> None:
    """SubName: "If VariableUserId is set, and the userid differs from that of the
    subscription, the command succeeds if the userid of the new command message has authority
    to browse the stream queue and put to the subscriber queue of the subscription. Otherwise,
    the command fails with return code MQRCCF_NOT_AUTHORIZED." """
    rules = "allow put * SYSTEM.BROKER.CONTROL.QUEUE\nallow put * SYSTEM.BROKER.DEFAULT.STREAM\n"
    rules += "allow put * APP.REPLY\n"
    rules += "allow subscribe * *\nallow publish * *\nallow put fred *\nallow browse fred *\n"
    broker = BrokerDriver(authority=AclPolicy.parse(rules))
    retained_scores(broker)
    broker.register_subscriber(
        SCORES, queue="RESULTS", sub_name="s", options="VariableUserId PubOnReqOnly"
    )
    denied = broker.request_update(SCORES, sub_name="s", user="bob", options="VariableUserId")
    assert denied.reason == RC.CF_NOT_AUTHORIZED
    allowed = BrokerDriver(
        authority=AclPolicy.parse(rules + "allow put bob RESULTS\nallow browse bob *")
    )
    retained_scores(allowed)
    allowed.register_subscriber(
        SCORES, queue="RESULTS", sub_name="s", options="VariableUserId PubOnReqOnly"
    )
    assert allowed.request_update(SCORES, sub_name="s", user="bob", options="VariableUserId").ok


# The rules of "SubName ... If VariableUserId is set, and the userid differs": bob names
# alice's subscription by SubName alone, without repeating VariableUserId ("This is
# overridden, along with the other subscriber identifiers, if a subscription name is
# supplied"). (alice's options, ACL rules for bob or None for allow-all, reason, copies)
_OPEN = "allow * alice *\nallow put * SYSTEM.BROKER.*\nallow put * APP.REPLY\n"
_OPEN += "allow subscribe * *\nallow publish * *\n"
_VARIABLE = "VariableUserId PubOnReqOnly"
SUB_NAME_OTHER_USER = [
    (_VARIABLE, None, RC.NONE, 2),
    (_VARIABLE, _OPEN + "allow browse bob *\nallow put bob RESULTS", RC.NONE, 2),
    (_VARIABLE, _OPEN + "allow put bob RESULTS", RC.CF_NOT_AUTHORIZED, 0),
    (_VARIABLE, _OPEN + "allow browse bob *", RC.CF_NOT_AUTHORIZED, 0),
    ("PubOnReqOnly", None, RC.CF_DUPLICATE_IDENTITY, 0),
]


@pytest.mark.parametrize(
    ("options", "acl", "reason", "copies"),
    SUB_NAME_OTHER_USER,
    ids=["allow-all", "acl-allows", "acl-no-browse", "acl-no-put", "not-variable"],
)
def test_sub_name_with_variable_user_id_needs_no_option_on_the_request(
    options: str, acl: str | None, reason: int, copies: int
) -> None:
    """SubName: "If VariableUserId is set, and the userid differs from that of the
    subscription, the command succeeds if the userid of the new command message has authority
    to browse the stream queue and put to the subscriber queue of the subscription. Otherwise,
    the command fails with return code MQRCCF_NOT_AUTHORIZED." """
    authority = AclPolicy.parse(acl) if acl is not None else ALLOW_ALL
    broker = BrokerDriver(authority=authority)
    retained_scores(broker)
    assert broker.register_subscriber(
        SCORES, queue="RESULTS", sub_name="scores", options=options, user="alice"
    ).ok
    outcome = broker.request_update(SCORES, queue="ELSEWHERE", sub_name="scores", user="bob")
    assert outcome.reason == reason
    assert len(broker.drain("RESULTS")) == copies


def test_traditional_match_without_sub_name_is_sub_name_error(broker: BrokerDriver) -> None:
    """SubName: "If a subscription exists that matches the traditional identity of this
    command, but has no SubName, the Request Update command fails with return code
    MQRCCF_SUB_NAME_ERROR." """
    retained_scores(broker)
    broker.register_subscriber(SCORES, queue="RESULTS", options="PubOnReqOnly")
    assert broker.request_update(SCORES, queue="RESULTS", sub_name="scores").reason == (
        RC.CF_SUB_NAME_ERROR
    )


def test_named_subscription_by_traditional_identity_alone_succeeds(broker: BrokerDriver) -> None:
    """SubName: "If an attempt is made to request an update for a subscription that has a
    SubName using a command message that matches the traditional identity, but with no SubName
    specified, the command succeeds." """
    retained_scores(broker)
    broker.register_subscriber(SCORES, queue="RESULTS", sub_name="scores", options="PubOnReqOnly")
    assert broker.request_update(SCORES, queue="RESULTS").ok
    assert len(broker.drain("RESULTS")) == 2


def test_the_example_request_update_message() -> None:
    """Example: "The subscriber's identity, including the CorrelId, is taken from the defaults
    in the MQMD." """
    md = MQMD(ReplyToQ="RESULTS.Q", CorrelId=A, UserIdentifier="results")
    cmd = command_from_psc(
        [("Command", "ReqUpdate"), ("RegOpt", "CorrelAsId"), ("Topic", SCORES)], md, local_qmgr=QMGR
    )
    assert isinstance(cmd, ReqUpdate)
    assert (cmd.topic, cmd.q_name, cmd.q_mgr_name, cmd.correl_id) == (SCORES, "RESULTS.Q", QMGR, A)


def test_the_example_request_update_on_the_wire() -> None:
    """The example message as bytes: register, publish retained, request, expect the copies."""
    broker = BrokerDriver(wire=True)
    broker.register_subscriber(SCORES, correl_id=A, options="PubOnReqOnly")
    retained_scores(broker)
    assert broker.request_update(SCORES, correl_id=A).ok
    assert len(broker.drain("APP.REPLY", correl_id=A)) == 2
    assert B != A
