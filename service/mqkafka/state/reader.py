"""Read a compacted state topic to its end, folding it into its latest value per key.

What ``mqk sub list`` and ``mqk retained list`` show, read straight from Kafka (any Kafka
consumer can do the same with the schemas in ``schemas/``): no broker service needed.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from confluent_kafka import Consumer, TopicPartition


def read_compacted(bootstrap: str, topic: str, timeout: float = 60.0) -> dict[bytes, bytes]:
    consumer: Any = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"mqk-inspect-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
        }
    )
    try:
        metadata = consumer.list_topics(topic, timeout=10).topics.get(topic)
        if metadata is None or metadata.error is not None:
            raise RuntimeError(f"topic {topic} does not exist (run 'mqk topics apply')")
        partitions = [TopicPartition(topic, p) for p in metadata.partitions]
        ends = {
            tp.partition: consumer.get_watermark_offsets(tp, timeout=10, cached=False)[1]
            for tp in partitions
        }
        consumer.assign([TopicPartition(topic, p, -2) for p in ends])
        latest: dict[bytes, bytes] = {}
        pending = {p for p, end in ends.items() if end > 0}
        deadline = time.monotonic() + timeout
        while pending and time.monotonic() < deadline:
            for message in consumer.consume(10000, 0.2):
                if message.error() is not None or message.key() is None:
                    continue
                if message.value() is None:
                    latest.pop(message.key(), None)
                else:
                    latest[message.key()] = message.value()
            for position in consumer.position([TopicPartition(topic, p) for p in pending]):
                if position.offset >= ends[position.partition]:
                    pending.discard(position.partition)
        return latest
    finally:
        consumer.close()
