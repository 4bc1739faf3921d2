"""Reading a topic's records as Kafka has them, beside the product's own readers: the tests
that check what lands on a queue (dead letters, headers, partitions) look below the API."""

from __future__ import annotations

import time
import uuid
from typing import Any

from confluent_kafka import Consumer


def read_records(bootstrap: str, topic: str, count: int, timeout: float = 30.0) -> list[Any]:
    """Up to ``count`` committed records of ``topic`` from its start, every partition, as
    confluent-kafka Messages (in order within a partition)."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"raw-{uuid.uuid4().hex}",
            "isolation.level": "read_committed",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    consumer.subscribe([topic])
    found: list[Any] = []
    deadline = time.monotonic() + timeout
    try:
        while len(found) < count and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                found.append(message)
    finally:
        consumer.close()
    return found
