"""When each subscription last had a publication delivered, from the tail of the activity
topic (``<ns>mqk-activity``, the events the service writes for the pipeline).

Only the newest ``tail`` records of each partition are read, so "last delivery" is known for
the subscriptions that were delivered to recently and blank for the others: a console
refreshes in a second, not after reading days of events. A delivered copy carries the
subscription's CorrelId (its own with CorrelAsId, else the broker's delivery CorrelId), so
(queue, CorrelId) names the subscription.
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterable
from typing import Any

import fastavro

from mqkafka.activity.events import batch_schema
from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import KafkaException, TopicPartition
from mqkafka.kafka.groups import reader_group

ACTIVITY_TOPIC = "mqk-activity"
PARTITION_EOF = -191
Delivered = dict[tuple[str, str], int]  # (queue, CorrelId hex) -> epoch ms of the newest


def newest_deliveries(events: Iterable[dict[str, Any]]) -> Delivered:
    """(queue, CorrelId hex) → time of the newest DELIVERY among ``events`` (decoded
    ActivityEvent records)."""
    found: Delivered = {}
    for event in events:
        if event.get("kind") != "DELIVERY" or not event.get("correl_id"):
            continue
        key = (str(event["queue"]), bytes(event["correl_id"]).hex())
        found[key] = max(found.get(key, 0), int(event["time_ms"]))
    return found


def decode_batch(value: bytes, schema: Any) -> list[dict[str, Any]]:
    try:
        batch = fastavro.schemaless_reader(io.BytesIO(value), schema)
    except (ValueError, EOFError, IndexError, KeyError):
        return []  # a record that is no ActivityBatch: the pipeline counts those, not us
    return list(batch.get("events", [])) if isinstance(batch, dict) else []


def last_deliveries(
    config: ClientConfig, namespace: str = "", tail: int = 2000, timeout: float = 5.0
) -> Delivered:
    """The newest delivery per (queue, CorrelId) among the last ``tail`` records of each
    partition of the activity topic; empty when there is no such topic."""
    topic = namespace + ACTIVITY_TOPIC
    schema = fastavro.parse_schema(batch_schema())
    consumer = clients.consumer(
        config,
        {
            "group.id": reader_group("activity"),  # assign only: never commits
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
            "enable.partition.eof": True,
            "fetch.wait.max.ms": 50,
        },
    )
    events: list[dict[str, Any]] = []
    try:
        metadata = consumer.list_topics(topic, timeout=timeout).topics.get(topic)
        if metadata is None or metadata.error is not None:
            return {}
        assigned = []
        for partition in metadata.partitions:
            low, high = consumer.get_watermark_offsets(
                TopicPartition(topic, partition), timeout=timeout
            )
            if high > low:
                assigned.append(TopicPartition(topic, partition, max(low, high - tail)))
        if not assigned:
            return {}
        consumer.assign(assigned)
        ended: set[int] = set()
        deadline = time.monotonic() + timeout
        while len(ended) < len(assigned) and time.monotonic() < deadline:
            for record in consumer.consume(500, 0.1):
                error = record.error()
                if error is not None:
                    if error.code() == PARTITION_EOF:
                        ended.add(record.partition())
                    continue
                events.extend(decode_batch(record.value() or b"", schema))
    except KafkaException:
        return {}  # "last delivery" is a nicety: unknown rather than a failed page
    finally:
        consumer.close()
    return newest_deliveries(events)


__all__ = ["ACTIVITY_TOPIC", "Delivered", "decode_batch", "last_deliveries", "newest_deliveries"]
