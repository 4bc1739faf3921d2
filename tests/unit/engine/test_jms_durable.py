"""A JMS v6 durable subscriber closes and comes back (issue 33, design README "Observed
since"): its RegSub names the subscription, carries a new CorrelId each time and RegOpts
1409025 (CorrelAsId NoAlter FullResp JoinExcl VariableUserId); it then gets with the CorrelId
the full response names."""

from __future__ import annotations

import pytest

from mqkafka.mq.responses import Completion
from tests.unit.engine.driver import BrokerDriver

FIRST, SECOND, OTHER = b"1" * 24, b"2" * 24, b"3" * 24
DURABLE = "SYSTEM.JMS.D.SUBSCRIBER.QUEUE"
JMS = "NoAlter FullResp JoinExcl VariableUserId"
NAME = "JMS:QM1:client:dur"


def attach(broker: BrokerDriver, correl: bytes, topic: str = "news", options: str = JMS):  # type: ignore[no-untyped-def]
    return broker.register_subscriber(
        topic, queue=DURABLE, correl_id=correl, options=options, sub_name=NAME,
        sub_identity="<null>",
    )  # fmt: skip


def leave(broker: BrokerDriver, correl: bytes) -> None:
    """What JMS sends when the subscriber closes: LeaveOnly, the subscription stays."""
    outcome = broker.deregister_subscriber(
        "news", queue=DURABLE, correl_id=correl, options="LeaveOnly VariableUserId",
        sub_name=NAME, sub_identity="<null>",
    )  # fmt: skip
    assert outcome.completion is Completion.OK, outcome.response


@pytest.mark.parametrize(
    ("options", "delivered_under"),
    [
        (JMS, FIRST),  # NoAlter: the subscription keeps its CorrelId, the response says it
        ("FullResp JoinExcl VariableUserId", SECOND),  # without: re-pointed to the new one
    ],
)
def test_a_durable_subscriber_gets_what_was_published_while_it_was_away(
    any_broker: BrokerDriver, options: str, delivered_under: bytes
) -> None:
    broker = any_broker
    attach(broker, FIRST, options=options)
    leave(broker, FIRST)
    assert broker.publish("news", body=b"kept").ok
    again = attach(broker, SECOND, options=options)
    assert again.completion is Completion.OK, again.response
    named = dict(again.response.full)["CorrelId"]
    assert named == delivered_under.hex().upper()
    assert broker.publish("news", body=b"after").ok
    got = [m.body for m in broker.drain(DURABLE, bytes.fromhex(named))]
    assert got[-1] == b"after"
    if delivered_under == FIRST:
        assert got == [b"kept", b"after"]  # nothing lost, nothing under another CorrelId
        assert broker.drain(DURABLE) == []


def test_no_alter_with_another_topic_answers_with_the_named_subscription(
    any_broker: BrokerDriver,
) -> None:
    """How JMS v6 unsubscribes: a RegSub naming the subscription, topic "JMS:SYS:Unknown",
    no CorrelAsId, NoAlter FullResp; the full response gives the real topic and CorrelId,
    the subscription stays as it was; the DeregSub by SubName that follows removes it."""
    broker = any_broker
    attach(broker, FIRST)
    leave(broker, FIRST)  # the subscriber closed first
    asked = broker.register_subscriber(
        "JMS:SYS:Unknown", options=JMS, sub_name=NAME, sub_identity="<null>"
    )
    full = dict(asked.response.full)
    assert (full["Topic"], full["CorrelId"]) == ("news", FIRST.hex().upper())
    (sub,) = list(broker.state.subscriptions)
    assert sub.key.topic.text == "news" and sub.delivery_correl_id == FIRST
    gone = broker.deregister_subscriber(
        "JMS:SYS:Unknown", options="FullResp VariableUserId", sub_name=NAME,
        sub_identity="<null>",
    )  # fmt: skip
    assert gone.completion is Completion.OK, gone.response
    assert list(broker.state.subscriptions) == []
