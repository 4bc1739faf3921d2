"""Seed 002, "Subscription name and identity": one test per rule, citing its sentence."""

from __future__ import annotations

from mqkafka.mq.commands import RegOpt
from mqkafka.mq.reasons import RC
from tests.unit.engine.driver import BrokerDriver

A = b"A" * 24
B = b"B" * 24


def only_subscription(broker: BrokerDriver):  # type: ignore[no-untyped-def]
    (sub,) = list(broker.state.subscriptions)
    return sub


def test_traditional_identity_and_topic_identify_a_subscription(broker: BrokerDriver) -> None:
    """ "subscribers can be identified by their queue name, queue manager name, and optional
    correlation identifier. This, in conjunction with a topic, identifies an individual
    subscription, referred to here as the traditional identity of the subscription." """
    broker.register_subscriber("News", "Sport", queue="Q", correl_id=A)
    assert sorted(s.key.topic.text for s in broker.state.subscriptions) == ["News", "Sport"]
    broker.register_subscriber("News", queue="Q", correl_id=A)  # the same one again
    assert len(broker.state.subscriptions) == 2


def test_subscription_name_references_a_subscription(broker: BrokerDriver) -> None:
    """ "An additional attribute to subscriptions, known as the subscription name, can be used
    instead of the traditional identity to reference a subscription." """
    broker.register_subscriber("News", queue="Q", correl_id=A, sub_name="news")
    assert broker.register_subscriber(sub_name="news", options="NewPubsOnly", reply_to="ANY").ok
    assert RegOpt.NEW_PUBLICATIONS_ONLY in only_subscription(broker).options


def test_subscription_name_is_unique_within_a_stream(broker: BrokerDriver) -> None:
    """ "The subscription name must be unique within the stream for which the subscription
    applies." - a second subscription cannot take a name in use (AddName: 3152)."""
    broker.register_subscriber("News", queue="Q1", sub_name="n")
    broker.register_subscriber("Sport", queue="Q2")
    assert broker.register_subscriber(
        "Sport", queue="Q2", sub_name="n", options="AddName"
    ).reason == (RC.CF_DUPLICATE_SUBSCRIPTION)
    names = [s.name for s in broker.state.subscriptions]
    assert names.count("n") == 1


def test_first_registration_needs_the_traditional_identity(broker: BrokerDriver) -> None:
    """ "On first registration, the traditional identity must be specified." """
    outcome = broker.register_subscriber("News", sub_name="news", reply_to=None)
    assert [d.reason for d in outcome.dead_letters] == [RC.CF_Q_NAME_ERROR]
    assert len(broker.state.subscriptions) == 0


def test_name_given_on_first_registration_or_added_later(broker: BrokerDriver) -> None:
    """ "The subscription name can be specified on the first registration or added to the
    subscription subsequently (at which time the traditional identity must also be specified
    to tie the two together)." """
    assert broker.register_subscriber("News", queue="Q1", sub_name="first").ok
    broker.register_subscriber("Sport", queue="Q2")
    assert broker.register_subscriber("Sport", queue="Q2", sub_name="later", options="AddName").ok
    assert sorted(str(s.name) for s in broker.state.subscriptions) == ["first", "later"]


def test_name_alone_modifies_or_deregisters(broker: BrokerDriver) -> None:
    """ "When the subscription name has been defined for the subscription, subsequent commands
    need specify only the subscription name to access (modify or deregister) the
    subscription." """
    broker.register_subscriber("News", queue="Q", correl_id=A, sub_name="news")
    assert broker.register_subscriber(sub_name="news", options="PubOnReqOnly", reply_to="X").ok
    assert RegOpt.PUBLISH_ON_REQUEST_ONLY in only_subscription(broker).options
    assert broker.deregister_subscriber(sub_name="news", reply_to="X").ok
    assert len(broker.state.subscriptions) == 0


def test_same_name_with_new_traditional_identity_repoints(any_broker: BrokerDriver) -> None:
    """ "The underlying traditional identity for the subscription can now be changed by
    specifying the same subscription name with new traditional identity information on a
    Register Subscriber command." """
    broker = any_broker
    broker.register_subscriber("News", queue="OLD", sub_name="news")
    assert broker.register_subscriber("News", queue="NEW", correl_id=B, sub_name="news").ok
    broker.publish("News", body=b"x")
    assert broker.messages("OLD") == []
    assert [m.md.CorrelId for m in broker.drain("NEW")] == [B]
    assert only_subscription(broker).name == "news"


def test_a_name_has_one_traditional_identity_and_one_topic(broker: BrokerDriver) -> None:
    """ "A subscription name can be associated only with a single traditional identity at any
    one time within any stream of a broker (and in particular, with a single topic at a
    time)" """
    broker.register_subscriber("News", queue="Q", sub_name="n")
    broker.register_subscriber("Sport", queue="Q", sub_name="n")  # re-pointed to Sport
    assert [s.key.topic.text for s in broker.state.subscriptions] == ["Sport"]
    assert broker.register_subscriber("A", "B", queue="Q", sub_name="m").reason == (
        RC.CF_SUB_NAME_ERROR
    )


def test_name_reusable_after_deregistration(broker: BrokerDriver) -> None:
    """ "it is possible to reuse a subscription name for a different subscription after the
    original has been deregistered" """
    broker.register_subscriber("News", queue="Q1", sub_name="n")
    broker.deregister_subscriber(sub_name="n")
    assert broker.register_subscriber("Sport", queue="Q2", sub_name="n", user="bob").ok
    assert only_subscription(broker).key.identity.q_name == "Q2"


def test_same_name_in_different_streams(broker: BrokerDriver) -> None:
    """ "it is possible to use the same subscription name in different streams on the same
    broker" - streams (RFH1) and subscription points (RFH2) alike."""
    assert broker.register_subscriber("News", queue="Q1", sub_name="n").ok
    assert broker.register_subscriber("News", queue="Q2", sub_name="n", sub_point="SP").ok
    assert len(broker.state.subscriptions) == 2
    broker.publish("News", body=b"root")
    broker.publish("News", body=b"sp", sub_point="SP")
    assert [m.body for m in broker.drain("Q1")] == [b"root"]
    assert [m.body for m in broker.drain("Q2")] == [b"sp"]


def test_names_have_no_length_limit(broker: BrokerDriver) -> None:
    """ "Subscription names are arbitrary character strings with no length limit." """
    name = "subscription " * 2000
    assert broker.register_subscriber("News", queue="Q", sub_name=name).ok
    assert only_subscription(broker).name == name


def test_mq_prefixed_names_are_reserved(broker: BrokerDriver) -> None:
    """ "Subscription names that start with "MQ" are reserved for internal use." """
    assert broker.register_subscriber("News", queue="Q", sub_name="MQmine").reason == (
        RC.CF_SUB_NAME_ERROR
    )


def test_subscriber_identity_joins_and_leaves(broker: BrokerDriver) -> None:
    """ "A subscribing application can specify a subscriber identity ... on a Register
    Subscriber [or] Deregister Subscriber command to add or remove itself from the
    broker-managed list of interested applications." """
    broker.register_subscriber("News", queue="Q", sub_identity="app1", options="JoinShared")
    broker.register_subscriber("News", queue="Q", sub_identity="app2", options="JoinShared")
    assert only_subscription(broker).identities == {"app1", "app2"}
    broker.deregister_subscriber("News", queue="Q", sub_identity="app1")
    assert only_subscription(broker).identities == {"app2"}


def test_shared_and_exclusive_access(broker: BrokerDriver) -> None:
    """ "The concepts of shared and exclusive access to a subscription are supported by the
    broker in much the same way as shared and exclusive access to WebSphere MQ objects" """
    broker.register_subscriber("News", queue="Q", sub_identity="a", options="JoinShared")
    assert broker.register_subscriber(
        "News", queue="Q", sub_identity="b", options="JoinExcl"
    ).reason == (RC.CF_SUBSCRIPTION_IN_USE)
    broker.deregister_subscriber("News", queue="Q", sub_identity="a", options="LeaveOnly")
    assert broker.register_subscriber("News", queue="Q", sub_identity="b", options="JoinExcl").ok
    assert broker.register_subscriber(
        "News", queue="Q", sub_identity="c", options="JoinShared"
    ).reason == (RC.CF_SUBSCRIPTION_LOCKED)


def test_one_copy_whatever_the_number_of_identities(any_broker: BrokerDriver) -> None:
    """ "a single copy of each publication is still sent to the defined subscription queue no
    matter how many subscriber identities are currently registered." """
    broker = any_broker
    for name in ("a", "b", "c"):
        broker.register_subscriber("News", queue="Q", sub_identity=name, options="JoinShared")
    broker.publish("News", body=b"x")
    assert [m.body for m in broker.drain("Q")] == [b"x"]


def test_subscription_goes_when_the_last_identity_leaves(broker: BrokerDriver) -> None:
    """ "Deregistering with a subscription identity from a subscription does not delete the
    subscription unless the subscription identity list becomes empty as a result of removing
    the identity from that list." """
    broker.register_subscriber("News", queue="Q", sub_identity="a", options="JoinShared")
    broker.register_subscriber("News", queue="Q", sub_identity="b", options="JoinShared")
    broker.deregister_subscriber("News", queue="Q", sub_identity="a")
    assert len(broker.state.subscriptions) == 1
    broker.deregister_subscriber("News", queue="Q", sub_identity="b")
    assert len(broker.state.subscriptions) == 0


def test_mq_prefixed_identities_are_reserved(broker: BrokerDriver) -> None:
    """ "Identity names that start with "MQ" are reserved for internal use." """
    assert broker.register_subscriber(
        "News", queue="Q", sub_identity="MQx", options="JoinShared"
    ).reason == (RC.CF_SUB_IDENTITY_ERROR)
