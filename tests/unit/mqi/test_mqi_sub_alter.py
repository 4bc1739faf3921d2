"""Seed 003, MQSUB: "MQSO_NEW_PUBLICATIONS_ONLY is allowed in combination with: MQSO_CREATE;
MQSO_ALTER, if MQSO_NEW_PUBLICATIONS_ONLY was set on the original subscription".

The MQI learns the original subscription's options from a FullResp reply (RegSub NoAlter by
SubName); here that reply comes from the engine, through the reply codec, as on the wire.
"""

from __future__ import annotations

from typing import Any, cast

import pytest
from tests.unit.engine.driver import BrokerDriver

from mqkafka.mq.pscommands import CommandReply, parse_reply
from mqkafka.mq.reasons import RC
from mqkafka.mq.responses import Completion
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import SD
from mqkafka.mqi.kafkaqm.pubsub import Subscription, sub_options_of
from mqkafka.mqi.rules.errors import MQMIError
from mqkafka.mqi.rules.validation import check_sub_options
from mqkafka.wire.messagecodec import encode_reply

ALTER_NEW_ONLY = C.MQSO_ALTER | C.MQSO_NEW_PUBLICATIONS_ONLY


def original_options(created_with: str) -> int:
    """Register "keep" with ``created_with``, then read its options back as MQSUB would."""
    broker = BrokerDriver()
    assert broker.register_subscriber("T", queue="Q", sub_name="keep", options=created_with).ok
    outcome = broker.register_subscriber(sub_name="keep", options="NoAlter FullResp")
    (reply,) = outcome.replies
    md, value = encode_reply(reply)
    return sub_options_of(parse_reply(value, md).attributes)


@pytest.mark.parametrize(
    ("created_with", "options"),
    [
        ("NewPubsOnly", C.MQSO_NEW_PUBLICATIONS_ONLY),
        ("NewPubsOnly PubOnReqOnly", C.MQSO_NEW_PUBLICATIONS_ONLY | C.MQSO_PUBLICATIONS_ON_REQUEST),
        ("VariableUserId", C.MQSO_ANY_USERID),
        ("None", 0),
    ],
)
def test_a_subscriptions_options_are_read_back_from_fullresp(
    created_with: str, options: int
) -> None:
    assert original_options(created_with) == options


@pytest.mark.parametrize(
    ("created_with", "reason"),
    [
        ("NewPubsOnly", RC.NONE),  # the original had it: allowed
        ("None", RC.OPTIONS_ERROR),  # it did not: 2046
    ],
)
def test_alter_keeps_new_publications_only_only_when_the_original_had_it(
    created_with: str, reason: int
) -> None:
    try:
        check_sub_options(ALTER_NEW_ONLY, original_options(created_with))
    except MQMIError as error:
        assert error.reason == reason
    else:
        assert reason == RC.NONE


def test_alter_of_no_subscription_with_new_publications_only_is_an_options_error() -> None:
    with pytest.raises(MQMIError) as raised:
        check_sub_options(ALTER_NEW_ONLY, None)
    assert raised.value.reason == RC.OPTIONS_ERROR


class Service:
    """Stands in for the broker service's FullResp answer; counts the questions."""

    def __init__(self, created_with: str) -> None:
        self.created_with = created_with
        self.asked = 0

    def register_subscriber(self, *args: Any, **kwargs: Any) -> CommandReply:
        self.asked += 1
        return CommandReply(Completion.OK, attributes=(("RegOpt", self.created_with),))


@pytest.mark.parametrize(
    ("options", "name", "asked", "original"),
    [
        (ALTER_NEW_ONLY, b"keep", 1, C.MQSO_NEW_PUBLICATIONS_ONLY),  # the rule needs it
        (ALTER_NEW_ONLY, b"", 0, None),  # nothing named: no original
        (C.MQSO_ALTER, b"keep", 0, None),  # no rule depends on the original
        (C.MQSO_CREATE | C.MQSO_NEW_PUBLICATIONS_ONLY, b"keep", 0, None),
        (ALTER_NEW_ONLY | C.MQSO_ANY_USERID | C.MQSO_FIXED_USERID, b"keep", 0, None),  # 2046 first
    ],
)
def test_the_service_is_asked_only_when_the_rule_depends_on_the_original(
    options: int, name: bytes, asked: int, original: int | None
) -> None:
    subscription = Subscription(cast(Any, None))  # no connection: the service is stood in for
    service = Service("NewPubsOnly")
    subscription.pubsub = cast(Any, service)
    sd = SD(Options=options, SubName=name)
    assert subscription._original_options(sd, name.decode() or None) == original
    assert service.asked == asked
