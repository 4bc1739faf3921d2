"""Seed rules end to end through raw Kafka messages, as an outside application sends them,
answered by a real ``mqk serve``: ReqUpdate by SubName from another userid (seed 000), the
always-false Filter (reference §8) and a command message without Command (§2.1.5)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mqkafka.client.kafka_pubsub import CommandResult, KafkaPubSub
from mqkafka.mq.reasons import RC

pytestmark = pytest.mark.kafka

SCORES = "Sport/Soccer/State/LatestScore/#"


@pytest.fixture
def as_user(kafka_bootstrap: str, namespace: str) -> Iterator[Callable[[str], KafkaPubSub]]:
    """``as_user(name)``: a raw Kafka client whose command messages carry that userid."""
    made: list[KafkaPubSub] = []

    def make(user: str) -> KafkaPubSub:
        made.append(
            KafkaPubSub(
                kafka_bootstrap, namespace=namespace, user=user, reply_queue=f"APP.{user}.REPLY"
            )
        )
        return made[-1]

    yield make
    for client in made:
        client.close()


def answered(result: CommandResult | None) -> int:
    assert result is not None
    return result.reason


def alice_subscribes_and_publishes(alice: KafkaPubSub) -> None:
    """alice's subscription "scores" (VariableUserId, PubOnReqOnly) and one retained score."""
    options = ["VariableUserId", "PubOnReqOnly"]
    registered = alice.register(SCORES, queue="APP.ALICE", options=options, sub_name="scores")
    assert answered(registered) == RC.NONE
    published = alice.publish("Sport/Soccer/State/LatestScore/Chelsea", b"4-1", retain=True)
    assert answered(published) == RC.NONE


@pytest.mark.parametrize(
    ("acl", "reason", "delivered"),
    [
        (None, RC.NONE, [b"4-1"]),  # the default authority: everybody may do everything
        (
            # each user's reply queue: a ReplyToQ is a queue its userid must be able to put to
            "allow * alice *\nallow put * SYSTEM.BROKER.*\nallow put * APP.*.REPLY\n"
            "allow subscribe * Sport/#\nallow publish * Sport/#\n",
            RC.CF_NOT_AUTHORIZED,  # bob may neither browse the stream nor put to APP.ALICE
            [],
        ),
    ],
    ids=["allow-all", "acl-denies-bob"],
)
def test_request_update_by_sub_name_from_another_user_of_a_variable_user_id_subscription(
    start_service: Callable[..., object],
    as_user: Callable[[str], KafkaPubSub],
    tmp_path: Path,
    acl: str | None,
    reason: int,
    delivered: list[bytes],
) -> None:
    """Seed 000, SubName: "If VariableUserId is set, and the userid differs from that of the
    subscription, the command succeeds if the userid of the new command message has authority
    to browse the stream queue and put to the subscriber queue of the subscription. Otherwise,
    the command fails with return code MQRCCF_NOT_AUTHORIZED." bob names the subscription by
    SubName alone: VariableUserId "is overridden, along with the other subscriber identifiers,
    if a subscription name is supplied"."""
    extra: list[str] = []
    if acl is not None:
        (tmp_path / "acl").write_text(acl)
        extra = ["--acl", str(tmp_path / "acl")]
    start_service("1", *extra)
    alice, bob = as_user("alice"), as_user("bob")
    alice_subscribes_and_publishes(alice)
    assert answered(bob.request_update(SCORES, queue="APP.BOB", sub_name="scores")) == reason
    if reason == RC.NONE:  # the copy goes to the subscription's queue, not to bob's
        assert [m.body for m in alice.read_queue("APP.ALICE", count=1, timeout=20)] == delivered
    assert [m.body for m in alice.read_queue("APP.ALICE", timeout=2)] == delivered


def test_a_constant_false_filter_is_selector_always_false_and_a_bad_one_filter_error(
    start_service: Callable[..., object], client: KafkaPubSub
) -> None:
    """Reference §8: "A selector that is constant-FALSE is rejected with
    MQRC_SELECTOR_ALWAYS_FALSE 2504" (decided by constant folding); "Invalid syntax ->
    MQRCCF_FILTER_ERROR 3150"."""
    start_service()
    cases = [
        ("1 = 2", RC.SELECTOR_ALWAYS_FALSE),
        ("NOT TRUE", RC.SELECTOR_ALWAYS_FALSE),
        ("'a' = 'b' AND x > 1", RC.SELECTOR_ALWAYS_FALSE),
        ("x > 1 AND 1 = 2", RC.SELECTOR_ALWAYS_FALSE),
        ("x >", RC.CF_FILTER_ERROR),
        ("x > 1 OR 1 = 2", RC.NONE),  # depends on x: kept
    ]
    for flt, reason in cases:
        assert answered(client.register("Filtered/#", queue="APP.F", filter=flt)) == reason, flt
    for flt, reason in cases:  # only the last was registered
        expected = RC.NONE if reason == RC.NONE else RC.CF_NOT_REGISTERED
        assert answered(client.deregister("Filtered/#", queue="APP.F", filter=flt)) == expected


@pytest.mark.parametrize(
    "pairs",
    [[("Topic", "Any/#"), ("QName", "APP.ANY")], []],
    ids=["other-properties", "empty-psc"],
)
def test_a_command_message_without_command_is_parm_missing(
    start_service: Callable[..., object], client: KafkaPubSub, pairs: list[tuple[str, str]]
) -> None:
    """Reference §2.1.5: "mandatory property missing -> MQRC_RFH_PARM_MISSING 2339" - Command
    "must be specified" (seed 000); 2336 is for a bad Command (choice, noted at the rule)."""
    start_service()
    assert answered(client.command(pairs)) == RC.RFH_PARM_MISSING
    assert answered(client.command([("Command", "Subscribe")])) == RC.RFH_COMMAND_ERROR
