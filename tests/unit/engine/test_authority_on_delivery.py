"""Authority on every delivery and on the queues a command names (issue 20 points 2 and 3),
in the engine alone: a wildcard never delivers a topic its userid may not subscribe to; a
ReplyToQ or QName the userid may not put to refuses the command and nothing happens."""

from __future__ import annotations

import pytest

from mqkafka.engine.authority import AclPolicy
from mqkafka.mq.reasons import RC
from tests.unit.engine.driver import BrokerDriver

RULES = """
allow put       *     SYSTEM.BROKER.*
allow put       *     APP.REPLY
allow put       alice ALICE.*
allow put       bob   BOB.*
deny  subscribe bob   Secret/#
allow subscribe *     *
allow publish   *     *
"""


def broker() -> BrokerDriver:
    return BrokerDriver(authority=AclPolicy.parse(RULES))


# bob's subscription -> the topics of the publications it receives, in order
# (the rule is an MQ topic filter: Secret/# is Secret and everything below it)
WILDCARDS = [
    ("#", ["Public/Plans", "Public"]),
    ("+/Plans", ["Public/Plans"]),
    ("Secret", None),  # refused at RegSub: all it could receive is denied
    ("Secret/#", None),
    ("Secret/+/x", None),
    ("+", ["Public"]),  # overlaps the deny rule (Secret): accepted, Secret never delivered
]


@pytest.mark.parametrize(("flt", "received"), WILDCARDS)
def test_a_subscription_gets_only_topics_its_userid_may_subscribe_to(
    flt: str, received: list[str] | None
) -> None:
    b = broker()
    outcome = b.register_subscriber(flt, queue="BOB.Q", user="bob")
    if received is None:
        assert outcome.reason == RC.CF_NOT_AUTHORIZED
        return
    assert outcome.ok
    for topic in ("Secret/Plans", "Public/Plans", "Secret", "Public"):
        assert b.publish(topic, body=b"x", user="alice").ok
    assert [m.topic for m in b.drain("BOB.Q")] == received


def test_retained_copies_follow_the_same_rule_on_regsub_and_requpdate() -> None:
    b = broker()
    for topic in ("Secret/Plans", "Public/Plans"):
        assert b.publish(topic, body=b"x", retain=True, user="alice").ok
    assert b.register_subscriber("#", queue="BOB.Q", user="bob").ok
    assert [m.topic for m in b.drain("BOB.Q")] == ["Public/Plans"]
    assert b.request_update("#", queue="BOB.Q", user="bob").ok
    assert [m.topic for m in b.drain("BOB.Q")] == ["Public/Plans"]


def test_a_reply_queue_the_userid_may_not_put_to_gets_no_reply_and_nothing_happens() -> None:
    b = broker()
    outcome = b.register_subscriber("News/#", queue="ALICE.Q", user="alice", reply_to="BOB.REPLY")
    assert outcome.replies == []
    [dead] = outcome.dead_letters
    assert dead.reason == RC.CF_NOT_AUTHORIZED and "ReplyToQ" in dead.detail
    assert len(b.state.subscriptions) == 0


def test_a_subscriber_queue_the_userid_may_not_put_to_is_refused() -> None:
    b = broker()
    assert b.register_subscriber("News/#", queue="BOB.Q", user="alice").reason == (
        RC.CF_NOT_AUTHORIZED
    )
    assert len(b.state.subscriptions) == 0


def test_a_decision_is_cached_per_userid_and_resource() -> None:
    policy = AclPolicy.parse(RULES)
    assert not policy.may_set_identity("bob", "alice")  # never without a setid rule
    assert policy.decide("subscribe", "alice", "Secret/Plans") is True
    policy.rules = ()  # a decision made once does not walk the rules again
    assert policy.decide("subscribe", "alice", "Secret/Plans") is True
    assert policy.decide("subscribe", "alice", "Secret/Other") is False  # a new one does
