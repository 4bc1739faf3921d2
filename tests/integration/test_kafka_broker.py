"""The foundation against the real broker: share groups, compaction, and the MQMD headers."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import AcknowledgeType, Consumer, Producer, ShareConsumer
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
)

from mqkafka.kafka.clients import OFFSET_BEGINNING, TopicPartition, consume_arrived

pytestmark = pytest.mark.kafka


def produce_all(
    bootstrap: str, topic: str, records: list[tuple[bytes | None, bytes | None]]
) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for key, value in records:
        producer.produce(topic, key=key, value=value)
    assert producer.flush(30) == 0


def share_group(bootstrap: str, topic: str) -> str:
    """A new share group that starts from the earliest record (the default is 'latest')."""
    group = f"g-{uuid.uuid4().hex[:10]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    resource = ConfigResource(
        ConfigResource.Type.GROUP,
        group,
        incremental_configs=[
            ConfigEntry(
                "share.auto.offset.reset", "earliest", incremental_operation=AlterConfigOpType.SET
            )
        ],
    )
    for future in admin.incremental_alter_configs([resource]).values():
        future.result()
    return group


def read_topic(
    bootstrap: str, topic: str, expect: int | None = None, timeout: float = 30
) -> list[Any]:
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"r-{uuid.uuid4().hex}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
        }
    )
    consumer.subscribe([topic])
    messages, eof, deadline = [], set(), time.monotonic() + timeout
    partitions = None
    try:
        while time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error():
                if msg.error().code() == -191:  # _PARTITION_EOF
                    eof.add(msg.partition())
                    partitions = partitions or len(consumer.assignment())
                    if expect is None and partitions and len(eof) >= partitions:
                        break
                    continue
                raise AssertionError(msg.error())
            messages.append(msg)
            if expect is not None and len(messages) >= expect:
                break
    finally:
        consumer.close()
    return messages


def test_two_share_consumers_receive_each_record_exactly_once(
    kafka_bootstrap: str, new_topic: Callable[..., str]
) -> None:
    topic = new_topic(partitions=2)
    group = share_group(kafka_bootstrap, topic)
    produce_all(kafka_bootstrap, topic, [(None, str(i).encode()) for i in range(1000)])

    received: list[list[bytes]] = [[], []]
    done = threading.Event()

    def getter(slot: int) -> None:
        consumer = ShareConsumer({"bootstrap.servers": kafka_bootstrap, "group.id": group})
        consumer.subscribe([topic])
        try:
            deadline = time.monotonic() + 90
            while not done.is_set() and time.monotonic() < deadline:
                for msg in consumer.poll(0.5):
                    if msg.error() is None:
                        received[slot].append(msg.value())
                if len(received[0]) + len(received[1]) >= 1000:
                    done.set()
            consumer.commit_sync(30)
        finally:
            consumer.close()

    threads = [threading.Thread(target=getter, args=(i,)) for i in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)

    everything = received[0] + received[1]
    assert len(everything) == 1000, f"got {len(everything)} records"
    assert sorted(everything) == sorted(str(i).encode() for i in range(1000))


def test_released_record_comes_back_with_a_higher_delivery_count(
    kafka_bootstrap: str, new_topic: Callable[..., str]
) -> None:
    topic = new_topic()
    group = share_group(kafka_bootstrap, topic)
    produce_all(kafka_bootstrap, topic, [(b"k", b"only")])
    consumer = ShareConsumer(
        {
            "bootstrap.servers": kafka_bootstrap,
            "group.id": group,
            "share.acknowledgement.mode": "explicit",
        }
    )
    consumer.subscribe([topic])
    try:
        deliveries: list[tuple[int, int]] = []
        deadline = time.monotonic() + 60
        while len(deliveries) < 2 and time.monotonic() < deadline:
            for msg in consumer.poll(0.5):
                if msg.error() is not None:
                    continue
                deliveries.append((msg.offset(), msg.delivery_count()))
                ack = AcknowledgeType.RELEASE if len(deliveries) == 1 else AcknowledgeType.ACCEPT
                consumer.acknowledge(msg, ack)
            consumer.commit_sync(30)
    finally:
        consumer.close()
    assert len(deliveries) == 2, deliveries
    (first_offset, first_count), (second_offset, second_count) = deliveries
    assert first_offset == second_offset
    assert second_count > first_count


def test_compacted_topic_keeps_only_the_last_value_per_key_and_tombstones_remove(
    kafka_bootstrap: str, new_topic: Callable[..., str]
) -> None:
    topic = new_topic(
        cleanup_policy="compact",
        segment_ms="100",
        min_cleanable_dirty_ratio="0.01",
        delete_retention_ms="100",
        min_compaction_lag_ms="0",
    )
    history = [(f"k{k}".encode(), f"v{v}".encode()) for v in range(5) for k in range(10)]
    produce_all(kafka_bootstrap, topic, [*history, (b"k3", None)])
    expected = {f"k{k}".encode(): b"v4" for k in range(10) if k != 3}

    deadline = time.monotonic() + 90
    state: list[Any] = []
    while time.monotonic() < deadline:
        time.sleep(1)
        # A later record rolls the active segment (segment.ms elapsed), so the cleaner may run.
        produce_all(kafka_bootstrap, topic, [(b"roll", b"x")])
        state = read_topic(kafka_bootstrap, topic)
        values = [(m.key(), m.value()) for m in state if m.key() != b"roll"]
        live = [(k, v) for k, v in values if v is not None]
        if len(live) == len(expected) and dict(live) == expected:
            break
    values = [(m.key(), m.value()) for m in state if m.key() != b"roll"]
    assert dict((k, v) for k, v in values if v is not None) == expected
    assert len([k for k, v in values if v is not None]) == len(expected), "older values remain"
    assert all(v is None for k, v in values if k == b"k3")


def test_consume_arrived_hands_over_a_lone_record_without_waiting_out_its_wait(
    kafka_bootstrap: str,
) -> None:
    """``consume(500, t)`` holds a lone record until t runs out (an MQGET by CorrelId on a
    quiet queue answered ~0.2 s late, every time); ``consume_arrived`` hands it over."""
    topic = f"arrived-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    produce_all(kafka_bootstrap, topic, [(None, b"first")])
    consumer = Consumer(
        {
            "bootstrap.servers": kafka_bootstrap,
            "group.id": f"r-{uuid.uuid4().hex}",
            "auto.offset.reset": "earliest",
        }
    )
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    try:
        first: list[Any] = []
        deadline = time.monotonic() + 60
        while not first and time.monotonic() < deadline:  # joined, fetched
            first = [m for m in consume_arrived(consumer, 500, 1.0) if m.error() is None]
        assert [m.value() for m in first] == [b"first"]
        threading.Timer(0.5, produce_all, (kafka_bootstrap, topic, [(None, b"second")])).start()
        began = time.monotonic()
        second = [m for m in consume_arrived(consumer, 500, 60.0) if m.error() is None]
        waited = time.monotonic() - began
    finally:
        consumer.close()
    assert [m.value() for m in second] == [b"second"]
    assert waited < 30, f"the lone record waited {waited:.1f} s: the whole wait, not its arrival"
