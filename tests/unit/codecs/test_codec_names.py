"""Queue names ↔ Kafka topic names (wire contract §1) and MQ object-name rules (§9.5)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.wire.names import (
    queue_to_topic,
    topic_to_queue,
    validate_namespace,
    validate_object_name,
)

OBJECT_NAMES = st.from_regex(r"[A-Za-z0-9._/%]{1,48}", fullmatch=True).filter(
    lambda n: n not in (".", "..")
)
NAMESPACES = st.from_regex(r"[A-Za-z0-9._-]{0,20}", fullmatch=True)


def test_contract_example() -> None:
    """Wire contract §1: "queue APP/REPLY%1 is topic APP-2FREPLY-251"."""
    assert queue_to_topic("APP/REPLY%1") == "APP-2FREPLY-251"
    assert topic_to_queue("APP-2FREPLY-251") == "APP/REPLY%1"


MAPPINGS = [
    ("SYSTEM.BROKER.CONTROL.QUEUE", "", "SYSTEM.BROKER.CONTROL.QUEUE"),
    ("SYSTEM.BROKER.DEFAULT.STREAM", "", "SYSTEM.BROKER.DEFAULT.STREAM"),
    ("a_b", "", "a_b"),
    ("%%", "", "-25-25"),
    ("//", "", "-2F-2F"),
    ("Q1", "qm1.", "qm1.Q1"),
    ("A/B", "ns-", "ns-A-2FB"),
    ("Q1   ", "", "Q1"),  # trailing blanks of the padded field are not part of the name
    ("Q1\x00junk", "", "Q1"),  # a NUL ends the significant part (§9.5)
]


@pytest.mark.parametrize(("queue", "namespace", "topic"), MAPPINGS)
def test_queue_topic_mapping(queue: str, namespace: str, topic: str) -> None:
    assert queue_to_topic(queue, namespace) == topic
    assert topic_to_queue(topic, namespace) == validate_object_name(queue)


@given(OBJECT_NAMES, NAMESPACES)
def test_round_trip(queue: str, namespace: str) -> None:
    topic = queue_to_topic(queue, namespace)
    assert re.fullmatch(r"[A-Za-z0-9._-]{1,249}", topic)
    assert topic_to_queue(topic, namespace) == queue


@given(OBJECT_NAMES, OBJECT_NAMES)
def test_mapping_is_injective(a: str, b: str) -> None:
    assert (queue_to_topic(a) == queue_to_topic(b)) == (a == b)


INVALID_NAMES = [
    "",
    "   ",
    " LEADING",
    "EMB EDDED",
    "A" * 49,
    "Q-1",
    "Q*",
    "Qé",
    "\x00Q",
]


@pytest.mark.parametrize("name", INVALID_NAMES)
def test_invalid_object_names(name: str) -> None:
    """§9.5: 1-48 characters of A-Z a-z 0-9 . / _ %; no leading or embedded blanks."""
    with pytest.raises(MQError) as caught:
        validate_object_name(name)
    assert caught.value.reason == RC.OBJECT_NAME_ERROR
    with pytest.raises(MQError):
        queue_to_topic(name)


def test_longest_name_is_valid() -> None:
    assert validate_object_name("A" * 48 + "   ") == "A" * 48


@pytest.mark.parametrize("queue", [".", ".."])
def test_queues_kafka_reserves_are_refused(queue: str) -> None:
    with pytest.raises(MQError) as caught:
        queue_to_topic(queue)
    assert caught.value.reason == RC.OBJECT_NAME_ERROR


BAD_TOPICS = [
    ("APP-2fREPLY", ""),  # lower-case escape is not what the writer produces
    ("APP-REPLY", ""),  # a '-' that is no escape
    ("APP-2", ""),
    ("other.Q1", "qm1."),  # outside the namespace
    ("qm1.", "qm1."),  # namespace only: empty queue name
    ("", ""),
    ("A" * 49, ""),
]


@pytest.mark.parametrize(("topic", "namespace"), BAD_TOPICS)
def test_topics_that_name_no_queue(topic: str, namespace: str) -> None:
    with pytest.raises(MQError) as caught:
        topic_to_queue(topic, namespace)
    assert caught.value.reason == RC.OBJECT_NAME_ERROR


@pytest.mark.parametrize("namespace", ["a/b", "ns ", "x" * 106, "é"])
def test_invalid_namespaces(namespace: str) -> None:
    with pytest.raises(MQError) as caught:
        validate_namespace(namespace)
    assert caught.value.reason == RC.OBJECT_NAME_ERROR


@given(st.text(max_size=60), NAMESPACES)
def test_fuzz_topic_to_queue(topic: str, namespace: str) -> None:
    try:
        queue = topic_to_queue(topic, namespace)
    except MQError as error:
        assert error.reason == RC.OBJECT_NAME_ERROR
    else:
        assert queue_to_topic(queue, namespace) == topic
