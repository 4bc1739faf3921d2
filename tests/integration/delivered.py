"""Everything the service delivered to a queue, read once the service has taken all its input.

A test that checks "each publication once" read the queue for a whole fixed window (a count
one past the expected, so only the timeout ended it: 60 to 120 s each). Here the end is known:
the service's group has committed every input record (its outputs are committed in the same
transactions), so the queue's committed records up to its end are all it will write for them.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import Any

from confluent_kafka import Consumer, KafkaError, TopicPartition

from mqkafka.client.kafka_pubsub import Received, parse_received
from mqkafka.kafka.groups import SERVICE_GROUP
from mqkafka.mq.commands import DEFAULT_STREAM
from mqkafka.wire.names import queue_to_topic

INPUTS = ("SYSTEM.BROKER.CONTROL.QUEUE", DEFAULT_STREAM)


def _consumer(bootstrap: str, **settings: Any) -> Consumer:
    return Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"delivered-{uuid.uuid4().hex}",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            **settings,
        }
    )


def _read_to_end(
    consumer: Consumer, partitions: list[TopicPartition], deadline: float
) -> tuple[list[Any], bool]:
    """The committed records from the given positions to each partition's end (control
    records skipped), and whether every end was reached before the deadline."""
    consumer.assign(partitions)
    left = {(tp.topic, tp.partition) for tp in partitions}
    found: list[Any] = []
    while left:
        if time.monotonic() > deadline:
            return found, False
        for message in consumer.consume(500, 0.2):
            error = message.error()
            if error is None:
                found.append(message)
            elif error.code() == KafkaError._PARTITION_EOF:
                left.discard((message.topic(), message.partition()))
    return found, True


def _all_taken(bootstrap: str, namespace: str, inputs: Sequence[str], deadline: float) -> bool:
    """Whether the service's group has committed past every committed input record."""
    group = _consumer(bootstrap, **{"group.id": namespace + SERVICE_GROUP})
    peek = _consumer(bootstrap)
    try:
        topics = [queue_to_topic(q, namespace) for q in inputs]
        partitions = [
            TopicPartition(topic, p)
            for topic in topics
            for p in group.list_topics(topic, timeout=10).topics[topic].partitions
        ]
        committed = group.committed(partitions, timeout=10)
        # no commit yet: from the start (-1001 is "none")
        starts = [TopicPartition(tp.topic, tp.partition, max(tp.offset, 0)) for tp in committed]
        untaken, complete = _read_to_end(peek, starts, deadline)
        return complete and not untaken
    finally:
        group.close()
        peek.close()


def read_everything(
    bootstrap: str,
    namespace: str,
    queue: str,
    timeout: float = 120.0,
    inputs: Sequence[str] = INPUTS,
) -> list[Received]:
    """Every committed message on ``queue``, in order per partition, once the service's group
    (``mqk-broker`` of ``namespace``) has committed every record of ``inputs``; what was read
    when ``timeout`` ran out otherwise (the caller's assertion then shows what is missing)."""
    deadline = time.monotonic() + timeout
    while not _all_taken(bootstrap, namespace, inputs, deadline) and time.monotonic() < deadline:
        time.sleep(0.5)
    topic = queue_to_topic(queue, namespace)
    reader = _consumer(bootstrap)
    try:
        metadata = reader.list_topics(topic, timeout=10).topics[topic]
        starts = [TopicPartition(topic, p, -2) for p in metadata.partitions]
        records, _ = _read_to_end(reader, starts, max(deadline, time.monotonic() + 30))
    finally:
        reader.close()
    return [parse_received(m.value() or b"", m.headers(), m.offset()) for m in records]
