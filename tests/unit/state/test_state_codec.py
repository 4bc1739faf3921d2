"""The state codec: exact round trips of every record, keys that are stable, injective and
ordered as the stores need, damaged bytes reported as MQRC_OBJECT_DAMAGED, and schemas any
Avro reader can use."""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Callable
from typing import Any

import fastavro
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqkafka import resources
from mqkafka.engine.identity import Identity
from mqkafka.engine.records import PublisherKey, SubscriptionKey
from mqkafka.engine.topicspace import ROOT, Namespace, Scheme, TopicFilter, TopicString
from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import MQMD
from mqkafka.mq.reasons import RC
from mqkafka.state import recordcodec as codec
from tests.unit.state.strategies import (
    IDENTITIES,
    NAMESPACES,
    PUBLISHERS,
    TOPIC_TEXTS,
    TOPICS,
    pub,
    publications,
    publisher,
    sub,
    subscriptions,
    topic_filters,
)

# ---- round trips ---------------------------------------------------------------------------


# Large values (an MQMD and a body): slow to draw on a busy machine, which is not a failure.
_LARGE = settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)


@_LARGE
@given(publications())
def test_retained_publication_round_trips_exactly(p: Any) -> None:
    assert codec.decode_retained(codec.encode_retained(p)) == p


@_LARGE
@given(subscriptions())
def test_subscription_round_trips_exactly(s: Any) -> None:
    assert codec.decode_subscription(codec.encode_subscription(s)) == s


@given(PUBLISHERS)
def test_publisher_round_trips_exactly(p: Any) -> None:
    assert codec.decode_publisher(codec.encode_publisher(p)) == p


@given(subscriptions())
def test_equal_subscriptions_encode_to_equal_bytes(s: Any) -> None:
    """Subscriber identities are a set: the encoding sorts them, so a compacted topic and a
    replayed one hold the same bytes for the same subscription."""
    rebuilt = codec.decode_subscription(codec.encode_subscription(s))
    assert codec.encode_subscription(rebuilt) == codec.encode_subscription(s)


def test_publication_keeps_the_publishers_whole_mqmd() -> None:
    md = MQMD(
        Format="MQSTR",
        Encoding=273,
        CodedCharSetId=819,
        MsgId=b"M" * 24,
        CorrelId=b"C" * 24,
        UserIdentifier="fred",
        PutDate="20240102",
        PutTime="13450000",
        ApplIdentityData="app",
    )
    p = dataclasses.replace(pub("Sport/Soccer"), md=md)
    assert codec.decode_retained(codec.encode_retained(p)).md == md


# ---- keys ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("namespace", "topic", "key"),
    [
        (ROOT, "Sport/Soccer", b"subpoint:\x00Sport/Soccer"),
        (Namespace.subpoint("Sport"), "Soccer", b"subpoint:Sport\x00Soccer"),
        (Namespace.stream("Sport"), "Soccer", b"stream:Sport\x00Soccer"),
        (Namespace.stream(), "a", b"stream:SYSTEM.BROKER.DEFAULT.STREAM\x00a"),
        (ROOT, "caf\u00e9/#", "subpoint:\x00caf\u00e9/#".encode()),
    ],
)
def test_retained_key_is_namespace_nul_topic(namespace: Namespace, topic: str, key: bytes) -> None:
    """Catalogue: mqk-retained holds retained publications "keyed by stream and topic
    string"; the key is the documented UTF-8 string <namespace> U+0000 <topic>."""
    assert codec.retained_key(namespace, topic) == key
    assert codec.parse_retained_key(key) == (namespace, topic)


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (
            SubscriptionKey(ROOT, Identity("Q1", "QM1"), TopicFilter("Sport/#", Scheme.TOPIC)),
            b"subpoint:\x00Q1\x00QM1\x00\x00topic\x00Sport/#",
        ),
        (
            SubscriptionKey(
                Namespace.stream("S"),
                Identity("Q1", "QM1", b"\x01" * 24),
                TopicFilter("a%*", Scheme.CHAR),
                "colour = 'red'",
            ),
            b"stream:S\x00Q1\x00QM1\x00" + b"01" * 24 + b"\x00char\x00a%*\x00colour = 'red'",
        ),
        (
            SubscriptionKey(ROOT, Identity("Q1", "QM1"), TopicFilter("t", Scheme.TOPIC), ""),
            b"subpoint:\x00Q1\x00QM1\x00\x00topic\x00t\x00",
        ),
    ],
    ids=["plain", "correl-char-filter", "empty-filter"],
)
def test_subscription_key_is_documented_string(key: SubscriptionKey, expected: bytes) -> None:
    assert codec.subscription_key(key) == expected
    assert codec.parse_subscription_key(expected) == key


def test_publisher_key_is_documented_string() -> None:
    key = PublisherKey(Namespace.stream("S"), Identity("P.Q", "QM1"), TopicString("a/b"))
    assert codec.publisher_key(key) == b"stream:S\x00P.Q\x00QM1\x00\x00a/b"
    assert codec.parse_publisher_key(codec.publisher_key(key)) == key


@given(NAMESPACES, TOPIC_TEXTS)
def test_retained_keys_parse_back(namespace: Namespace, topic: str) -> None:
    assert codec.parse_retained_key(codec.retained_key(namespace, topic)) == (namespace, topic)


@given(NAMESPACES, IDENTITIES, topic_filters(), st.none() | st.text(max_size=10))
def test_subscription_keys_parse_back(
    namespace: Namespace, identity: Identity, flt: TopicFilter, selector: str | None
) -> None:
    """A Filter may hold any text, NUL included: it comes last, so it parses back whole."""
    key = SubscriptionKey(namespace, identity, flt, selector)
    assert codec.parse_subscription_key(codec.subscription_key(key)) == key


@given(NAMESPACES, IDENTITIES, TOPICS)
def test_publisher_keys_parse_back(
    namespace: Namespace, identity: Identity, topic: TopicString
) -> None:
    key = PublisherKey(namespace, identity, topic)
    assert codec.parse_publisher_key(codec.publisher_key(key)) == key


@given(NAMESPACES, TOPIC_TEXTS, NAMESPACES, TOPIC_TEXTS)
def test_retained_prefix_selects_exactly_its_namespace_and_topics(
    ns: Namespace, topic: str, other_ns: Namespace, prefix: str
) -> None:
    """RocksDB key order groups a namespace: a key starts with the namespace's prefix exactly
    when it is that namespace's, and with (namespace, literal prefix) exactly when the topic
    starts with that literal prefix."""
    key = codec.retained_key(ns, topic)
    assert key.startswith(codec.retained_prefix(other_ns)) == (ns == other_ns)
    assert key.startswith(codec.retained_prefix(ns, prefix)) == topic.startswith(prefix)


@given(NAMESPACES, TOPIC_TEXTS, TOPIC_TEXTS)
def test_retained_keys_sort_as_topics_within_a_namespace(ns: Namespace, a: str, b: str) -> None:
    """UTF-8 byte order is code point order, so a prefix scan yields topics sorted as str."""
    assert (codec.retained_key(ns, a) < codec.retained_key(ns, b)) == (a < b)


def test_a_stream_and_a_subpoint_of_one_name_have_different_keys() -> None:
    """Reference §1.4: a stream and a subpoint never share a namespace, even with one name."""
    assert codec.retained_key(Namespace.stream("X"), "t") != codec.retained_key(
        Namespace.subpoint("X"), "t"
    )


# ---- damaged bytes -----------------------------------------------------------------------

DECODERS: list[tuple[str, Callable[[bytes], object], bytes]] = [
    ("retained", codec.decode_retained, codec.encode_retained(pub("Sport/Soccer", body=b"1-0"))),
    ("subscription", codec.decode_subscription, codec.encode_subscription(sub(name="n"))),
    ("publisher", codec.decode_publisher, codec.encode_publisher(publisher("a"))),
]


@pytest.mark.parametrize(
    ("decode", "valid"), [(d, v) for _, d, v in DECODERS], ids=[n for n, _, _ in DECODERS]
)
@pytest.mark.parametrize(
    "damage",
    [
        lambda v: b"",
        lambda v: v[: len(v) // 2],
        lambda v: v[:-1],
        lambda v: v + b"\x00",
        lambda v: b"\xff" * len(v),
        lambda v: b"\x07" + v[1:],  # an enum index / string length out of place
        lambda v: b'{"not": "avro"}',
    ],
    ids=["empty", "half", "short-by-one", "trailing-byte", "all-ff", "first-byte", "json"],
)
def test_damaged_bytes_are_object_damaged(
    decode: Callable[[bytes], object], valid: bytes, damage: Callable[[bytes], bytes]
) -> None:
    with pytest.raises(MQError) as caught:
        decode(damage(valid))
    assert caught.value.reason == RC.OBJECT_DAMAGED
    assert "does not decode" in caught.value.detail


@pytest.mark.parametrize(
    ("decode", "valid"), [(d, v) for _, d, v in DECODERS], ids=[n for n, _, _ in DECODERS]
)
@given(data=st.data())
def test_any_mutation_decodes_or_is_object_damaged(
    decode: Callable[[bytes], object], valid: bytes, data: st.DataObject
) -> None:
    """Fuzzing: a mutated value is either still a valid record or MQRC_OBJECT_DAMAGED, never
    another exception."""
    mutated = bytearray(valid)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(mutated) - 1))
        mutated[at] = data.draw(st.integers(0, 255))
    try:
        decode(bytes(mutated))
    except MQError as error:
        assert error.reason == RC.OBJECT_DAMAGED


def test_an_invalid_value_inside_valid_avro_is_object_damaged() -> None:
    """Well-formed Avro whose content breaks a value's rule (a stream name with a blank)."""
    record = codec._publication_out(pub("t"))
    record["namespace"] = {"kind": "STREAM", "name": "NOT A NAME"}
    out = io.BytesIO()
    fastavro.schemaless_writer(out, codec.RETAINED_SCHEMA, record)
    with pytest.raises(MQError) as caught:
        codec.decode_retained(out.getvalue())
    assert caught.value.reason == RC.OBJECT_DAMAGED


@pytest.mark.parametrize(
    ("parse", "key"),
    [
        (codec.parse_retained_key, b"no separator"),
        (codec.parse_retained_key, b"planet:X\x00t"),
        (codec.parse_retained_key, b"subpoint:\x00"),  # an empty topic
        (codec.parse_retained_key, b"subpoint:\x00a\x00b"),  # NUL inside a topic
        (codec.parse_subscription_key, b"subpoint:\x00Q\x00QM\x00zz\x00topic\x00t"),
        (codec.parse_subscription_key, b"subpoint:\x00Q\x00QM\x00\x00glob\x00t"),
        (codec.parse_publisher_key, b"stream:S\x00Q\x00QM"),
        (codec.parse_publisher_key, b"\xff\xfe"),
    ],
)
def test_damaged_keys_are_object_damaged(parse: Callable[[bytes], object], key: bytes) -> None:
    with pytest.raises(MQError) as caught:
        parse(key)
    assert caught.value.reason == RC.OBJECT_DAMAGED


# ---- the schema files ----------------------------------------------------------------------

SCHEMA_FILES = ["retained_publication", "subscription", "publisher"]


def _records(schema: Any) -> list[dict[str, Any]]:
    """Every record definition inside a schema (named types appear once, where defined)."""
    found: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "record":
                found.append(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return found


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_every_schema_record_and_field_is_documented(name: str) -> None:
    """So that any Kafka consumer can read the broker's state from the schema alone."""
    schema = resources.schema(name)
    assert schema["namespace"] == "mqkafka"
    records = _records(schema)
    assert records
    for record in records:
        assert record.get("doc"), record["name"]
        for field in record["fields"]:
            assert field.get("doc"), f"{record['name']}.{field['name']}"


@pytest.mark.parametrize(
    ("name", "record_name", "key_doc"),
    [
        ("retained_publication", "RetainedPublication", "<namespace> U+0000 <topic>"),
        ("subscription", "Subscription", "<namespace> U+0000 <q_name>"),
        ("publisher", "Publisher", "<namespace> U+0000 <q_name>"),
    ],
)
def test_schema_documents_its_kafka_key(name: str, record_name: str, key_doc: str) -> None:
    schema = resources.schema(name)
    assert schema["name"] == record_name
    assert key_doc in schema["doc"]


def test_a_consumer_reads_a_retained_value_with_the_schema_file_alone() -> None:
    """Another Kafka consumer: parse the .avsc, read the value as plain Avro."""
    schema = fastavro.parse_schema(resources.schema("retained_publication"))
    p = pub("Sport/Soccer", namespace=Namespace.stream("Sport"), body=b"1-0")
    record = fastavro.schemaless_reader(io.BytesIO(codec.encode_retained(p)), schema, None)
    assert record["namespace"] == {"kind": "STREAM", "name": "Sport"}
    assert record["topic"] == "Sport/Soccer"
    assert record["content"]["body"] == b"1-0"
    assert record["md"]["Format"] == "        "
