"""The dispatcher with topic limits (issue 19), without Kafka: a record that would not fit its
topic is answered before anything is written, and no message makes a record Kafka refuses."""

from __future__ import annotations

from typing import Any

from confluent_kafka import KafkaError

from mqkafka.kafka.txloop import OutRecord
from mqkafka.mq.commands import CONTROL_QUEUE, DEFAULT_STREAM
from mqkafka.mq.mqmd import MQMT, MQRO
from mqkafka.service.dispatcher import Dispatcher
from mqkafka.service.limits import FixedLimits
from tests.unit.service.test_dispatcher import (
    Message,
    publish,
    put,
    register,
    run,
)
from tests.unit.service.test_dispatcher import (
    dispatcher as make_dispatcher,
)

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
LIMIT = 1_000_000  # every topic's and the producer's, as librdkafka's default message.max.bytes
REQUEST: dict[str, Any] = {"MsgType": MQMT.REQUEST, "ReplyToQ": "APP.REPLIES"}


def dispatcher(limits: FixedLimits, *, plans: bool = True) -> Dispatcher:
    return make_dispatcher(plans=plans, limits=limits, activity=False)


def headers(record: OutRecord) -> dict[str, bytes | None]:
    return dict(record.headers or ())


def reasons(records: list[OutRecord], topic: str) -> list[bytes]:
    """The pscr Reason of each reply on ``topic``, or b"ok"."""
    found = []
    for record in records:
        if record.topic == topic:
            value = record.value or b""
            at = value.find(b"<Reason>")
            found.append(value[at + 8 : value.index(b"<", at + 8)] if at >= 0 else b"ok")
    return found


def fits_all(limits: FixedLimits, records: list[OutRecord]) -> bool:
    return all(limits.fits(r.topic, r.value, r.key, r.headers) for r in records)


def test_a_copy_too_large_for_its_queue_is_dead_lettered_and_the_others_delivered() -> None:
    limits = FixedLimits(LIMIT)
    limits.set("APP.SMALL", 20_000)
    d = dispatcher(limits)
    run(d, [[register("APP.SMALL", "News/#"), register("APP.BIG", "News/#")]])
    body = b"x" * 50_000
    out = run(d, [[publish("News/Today", body, **REQUEST)]])
    assert [r.topic for r in out if r.topic.startswith("APP.") and r.topic != "APP.REPLIES"] == [
        "APP.BIG"
    ]
    (dead,) = [r for r in out if r.topic == DLQ]
    assert headers(dead)["mqk.reason"] == b"2030" and headers(dead)["mqk.queue"] == b"APP.SMALL"
    assert (dead.value or b"").endswith(body)
    assert reasons(out, "APP.REPLIES") == [b"2030"]  # the publisher is told: a warning
    assert b"<Completion>warning</Completion>" in (
        next(r for r in out if r.topic == "APP.REPLIES").value or b""
    )
    assert fits_all(limits, out)


def test_a_plan_is_not_replayed_for_a_body_too_large_for_a_copy() -> None:
    limits = FixedLimits(LIMIT)
    limits.set("APP.SMALL", 20_000)
    d = dispatcher(limits)
    run(d, [[register("APP.SMALL", "News/#")]])
    out = run(d, [[publish("News/Today", b"x" * n) for n in (10, 20, 30, 25_000, 40)]])
    # the plan made for the first is found for the large one too, but not replayed
    assert [r.topic for r in out] == ["APP.SMALL"] * 3 + [DLQ, "APP.SMALL"]
    assert fits_all(limits, out)


def test_a_lowered_limit_drops_the_plans_made_under_the_old_one() -> None:
    limits = FixedLimits(LIMIT)
    d = dispatcher(limits)
    run(d, [[register("APP.A", "News/#")], [publish("News/Today", b"x" * 30_000)] * 2])
    limits.set("APP.A", 20_000)
    d.before_batch()
    out = run(d, [[publish("News/Today", b"x" * 30_000)]])
    assert [r.topic for r in out] == [DLQ]


def test_a_retained_publication_too_large_for_the_store_leaves_it_as_it_was() -> None:
    limits = FixedLimits(LIMIT)
    limits.set("mqk-retained", 30_000)
    d = dispatcher(limits)
    run(d, [[publish("News/Today", b"old", ("PubOpt", "RetainPub"))]])
    out = run(d, [[publish("News/Today", b"y" * 40_000, ("PubOpt", "RetainPub"), **REQUEST)]])
    assert [r.topic for r in out] == ["mqk-publishers", "APP.REPLIES"]
    assert reasons(out, "APP.REPLIES") == [b"2030"]
    assert len(d.journal) == 0 and len(d.state.retained) == 1
    # a new subscriber gets the publication retained before
    out = run(d, [[register("APP.NEW", "News/#")]])
    (copy,) = [r for r in out if r.topic == "APP.NEW"]
    assert (copy.value or b"").endswith(b"old")


def test_a_publication_answered_only_on_a_warning_is_answered_when_a_copy_did_not_fit() -> None:
    limits = FixedLimits(LIMIT)
    limits.set("APP.SMALL", 20_000)
    d = dispatcher(limits)
    run(d, [[register("APP.SMALL", "News/#")]])
    nan = {"MsgType": MQMT.DATAGRAM, "Report": MQRO.NAN, "ReplyToQ": "APP.REPLIES"}
    ok = run(d, [[publish("News/Today", b"x" * 100, **nan)]])
    assert reasons(ok, "APP.REPLIES") == []  # ok: no reply asked for
    big = run(d, [[publish("News/Today", b"x" * 30_000, **nan)]])
    assert reasons(big, "APP.REPLIES") == [b"2030"]


def test_a_subscription_too_large_for_its_changelog_fails_the_command() -> None:
    limits = FixedLimits(LIMIT)
    limits.set("mqk-subscriptions", 10_000)
    d = dispatcher(limits)
    out = run(d, [[register("APP.A", "News/#", ("SubUserData", "u" * 20_000))]])
    assert [r.topic for r in out] == ["APP.REPLIES"]
    assert reasons(out, "APP.REPLIES") == [b"2030"]
    assert b"<Completion>error</Completion>" in (out[0].value or b"")
    assert len(d.state.subscriptions) == 0


def test_a_reply_too_large_for_its_queue_is_dead_lettered() -> None:
    limits = FixedLimits(LIMIT)
    limits.set("APP.REPLIES", 5_000)
    d = dispatcher(limits)
    # an error reply echoes the command: a long one makes a long reply
    pairs = [("Command", "RegSub"), ("Topic", "A"), ("RegOpt", "Bogus")]
    pairs.append(("SubUserData", "u" * 9_000))
    out = run(d, [[put(CONTROL_QUEUE, pairs, **REQUEST)]])
    assert [r.topic for r in out] == [DLQ]
    assert headers(out[0])["mqk.reason"] == b"2030"
    assert headers(out[0])["mqk.queue"] == b"APP.REPLIES"


def test_a_dead_letter_too_large_for_the_dead_letter_queue_is_dropped_and_counted() -> None:
    d = dispatcher(FixedLimits(1_000_000))  # every topic: a dead letter's MQDLH passes it
    not_a_command = Message("SYSTEM.BROKER.CONTROL.QUEUE", b"z" * 999_900, [], 7)
    after = put(CONTROL_QUEUE, [("Command", "RegSub"), ("Topic", "A"), ("QName", "Q")], **REQUEST)
    out = run(d, [[not_a_command, after]])
    assert [r.topic for r in out] == ["mqk-subscriptions", "APP.REPLIES"]
    (dropped,) = [
        sample.value
        for metric in d.metrics.registry.collect()
        for sample in metric.samples
        if sample.name == "mqk_dropped_messages_total"
    ]
    assert dropped == 1


def test_the_issues_999900_byte_publication_reaches_nobody_and_its_publisher_is_told() -> None:
    limits = FixedLimits(LIMIT)
    d = dispatcher(limits)
    run(d, [[register("APP.A", "News/#")]])
    out = run(d, [[publish("News/Today", b"x" * 999_900, ("PubOpt", "RetainPub"), **REQUEST)]])
    assert [r.topic for r in out] == ["mqk-publishers", "APP.REPLIES"]  # the copy: dropped
    assert reasons(out, "APP.REPLIES") == [b"2030"]
    assert len(d.state.retained) == 0
    assert fits_all(limits, out)


def test_a_queue_name_that_is_kafkas_own_is_no_subscriber_queue() -> None:
    d = dispatcher(FixedLimits(LIMIT))
    out = run(d, [[register("__consumer_offsets", "News/#")]])
    assert reasons(out, "APP.REPLIES") == [b"3076"]
    assert len(d.state.subscriptions) == 0
    reply_to_internal = put(
        CONTROL_QUEUE,
        [("Command", "RegSub"), ("Topic", "A"), ("QName", "Q")],
        MsgType=MQMT.REQUEST,
        ReplyToQ="__consumer_offsets",
    )
    out = run(d, [[reply_to_internal]])
    assert [r.topic for r in out] == ["mqk-subscriptions", DLQ]
    assert headers(out[1])["mqk.reason"] == b"2085"
    assert headers(out[1])["mqk.queue"] == b"__consumer_offsets"


def test_what_kafka_refused_all_the_same_is_dead_lettered_with_the_nearest_reason() -> None:
    d = dispatcher(FixedLimits(LIMIT))
    message = publish("News/Today", b"body", **REQUEST)
    for error, reason in [
        (KafkaError.MSG_SIZE_TOO_LARGE, b"2030"),
        (KafkaError.TOPIC_AUTHORIZATION_FAILED, b"2035"),
        (KafkaError.INVALID_RECORD, b"2051"),
    ]:
        dead = d.refused(message, KafkaError(error))
        assert dead is not None and dead.topic == DLQ
        assert headers(dead)["mqk.reason"] == reason
        assert headers(dead)["mqk.queue"] == DEFAULT_STREAM.encode()
        assert b"Kafka refused" in (headers(dead)["mqk.detail"] or b"")
    huge = Message(message.topic(), b"x" * 999_900, message.headers(), 9)
    assert d.refused(huge, KafkaError(KafkaError.MSG_SIZE_TOO_LARGE)) is None
