"""The destination checks of issue 19, without a cluster: which topics are no queues, and the
measure of a record against a topic's limit (librdkafka's own check as the judge)."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaException, Producer

from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import MQMD
from mqkafka.mq.reasons import RC
from mqkafka.service.limits import (
    HEADROOM,
    FixedLimits,
    headers_size,
    wire_size,
)
from mqkafka.service.queues import QueueDirectory
from mqkafka.wire.headers import mqmd_to_headers
from mqkafka.wire.names import reserved_topic
from tests.unit.service.test_dispatcher import EveryTopicExists


@pytest.mark.parametrize(
    ("topic", "namespace"),
    [
        ("__consumer_offsets", ""),
        ("__transaction_state", ""),
        ("t1.__consumer_offsets", "t1."),  # the same name in a namespace: never a queue either
        ("mqk-subscriptions", ""),
        ("t1.mqk-retained", "t1."),
        ("mqk-2Fanything", ""),  # queue mqk/anything: the state topics' prefix is the broker's
        ("x" * 250, ""),
        ("a b", ""),
        ("APP-2FQ%", ""),
        (".", ""),
        ("..", ""),
        ("", ""),
    ],
)
def test_kafka_internal_state_and_illegal_topics_are_no_queues(topic: str, namespace: str) -> None:
    assert reserved_topic(topic, namespace) is not None


@pytest.mark.parametrize(
    ("topic", "namespace"),
    [
        ("APP.REPLIES", ""),
        ("APP-2FREPLY-251", ""),
        ("t1.APP.Q", "t1."),
        ("_single.underscore", ""),
        ("__ns.APP.Q", "__ns."),  # an operator's namespace is theirs to choose
        ("x" * 249, ""),
    ],
)
def test_ordinary_queue_topics_are_not_reserved(topic: str, namespace: str) -> None:
    assert reserved_topic(topic, namespace) is None


@pytest.mark.parametrize("namespace", ["", "t1."])
def test_the_queue_directory_says_a_reserved_name_is_no_queue(namespace: str) -> None:
    queues = QueueDirectory(EveryTopicExists(), namespace=namespace, auto_create=True)
    assert not queues.exists("__consumer_offsets")
    assert queues.ensure("__consumer_offsets") is None
    with pytest.raises(MQError) as raised:
        queues.topic_of("__consumer_offsets")
    assert raised.value.reason == RC.UNKNOWN_OBJECT_NAME
    assert queues.exists("APP.REPLIES")
    assert queues.ensure("APP.REPLIES") == namespace + "APP.REPLIES"


LIMIT = 1_000_000  # librdkafka's default message.max.bytes (the issue's producer)


def _librdkafka_takes(value: int, key: bytes | None, headers: list[tuple[str, bytes]]) -> bool:
    """librdkafka's own size check, made when a record is produced (no broker needed)."""
    producer = Producer({"bootstrap.servers": "127.0.0.1:9", "message.max.bytes": LIMIT})
    try:
        producer.produce("t", b"x" * value, key, headers=headers)
    except KafkaException:
        return False
    finally:
        producer.purge()
    return True


@pytest.mark.parametrize(
    ("key", "headers"),
    [
        (None, []),
        (b"C" * 24, []),
        (b"C" * 24, [("mqmd.Format", b"MQHRF2"), ("mqmd.MsgId", b"M" * 24)]),
        (None, [("trace-" + "x" * 200, b"v" * 300), ("empty", b"")]),
    ],
)
def test_what_the_measure_lets_through_librdkafka_takes(
    key: bytes | None, headers: list[tuple[str, bytes]]
) -> None:
    limits = FixedLimits(LIMIT)
    longest = LIMIT - wire_size(b"", key, headers)
    assert limits.fits("t", b"x" * longest, key, headers)
    assert not limits.fits("t", b"x" * (longest + 1), key, headers)
    assert _librdkafka_takes(longest, key, headers)
    # never more than 10 bytes a header below librdkafka's own measure
    assert not _librdkafka_takes(longest + 1 + 8 * len(headers) + 1, key, headers)


def test_the_issues_999900_byte_message_does_not_fit_with_its_mqmd() -> None:
    headers = mqmd_to_headers(MQMD(Format="MQHRF2", MsgId=b"M" * 24, CorrelId=b"C" * 24))
    assert not FixedLimits(LIMIT).fits("t", b"x" * 999_900, b"C" * 24, headers)
    assert FixedLimits(LIMIT).fits("t", b"x" * 990_000, b"C" * 24, headers)


def test_headroom_covers_the_headers_of_any_record_made_from_an_mqmd() -> None:
    longest = MQMD(
        MsgType=1_000_000_000,
        Report=-1_000_000_000,
        Feedback=-1_000_000_000,
        Encoding=-1_000_000_000,
        CodedCharSetId=-1_000_000_000,
        Format="F" * 8,
        Priority=-1_000_000_000,
        Persistence=-1_000_000_000,
        MsgId=b"\xff" * 24,
        CorrelId=b"\xff" * 24,
        BackoutCount=-1_000_000_000,
        ReplyToQ="Q" * 48,
        ReplyToQMgr="M" * 48,
        UserIdentifier="U" * 12,
        AccountingToken=b"\xff" * 32,
        ApplIdentityData="A" * 32,
        PutApplType=-1_000_000_000,
        PutApplName="P" * 28,
        PutDate="D" * 8,
        PutTime="T" * 8,
        ApplOriginData="O" * 4,
        GroupId=b"\xff" * 24,
        MsgSeqNumber=-1_000_000_000,
        Offset=-1_000_000_000,
        MsgFlags=-1_000_000_000,
        OriginalLength=-1_000_000_000,
        Expiry=-1_000_000_000,
    )
    dead_letter = [
        ("mqk.reason", b"2030"),
        ("mqk.queue", b"Q" * 48),
        ("mqk.detail", b"d" * 1000),
    ]
    size = wire_size(b"", b"\xff" * 24, [*mqmd_to_headers(longest), *dead_letter])
    assert size < HEADROOM


def test_rooms_are_a_lookup_and_a_changed_limit_moves_the_generation() -> None:
    limits = FixedLimits(50_000)
    assert limits.rooms == {}
    assert limits.limit("APP.Q") == 50_000
    assert limits.rooms["APP.Q"] == 50_000 - HEADROOM
    generation = limits.generation
    limits.set("APP.Q", 10_000)
    assert limits.generation == generation + 1
    assert not limits.fits("APP.Q", b"x" * 10_000, None, None)
    assert headers_size([("ab", b"cd")]) == 2 + 2 + 10
