"""How many committed records lie between two offsets of a partition.

Offsets are not records: each committed transaction leaves a marker that takes an offset and
is no record, and an aborted one leaves records a read_committed reader never sees. Kafka's
share-group lag counts records (measured on 4.2: one record put in a transaction, start 0,
end 2, lag 1), so a browser that compares the lag with ``end - start`` takes the markers for
messages got and hides real ones. It compares the lag with these counts instead.
"""

from __future__ import annotations

import time

from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import KafkaException, TopicPartition
from mqkafka.kafka.groups import reader_group

_PARTITION_EOF = -191


def committed_records(
    config: ClientConfig, topic: str, spans: dict[int, tuple[int, int]], timeout: float = 10.0
) -> dict[int, int]:
    """Per partition, the records a read_committed reader sees in ``[start, end)`` of
    ``spans``; a partition not read to its end in ``timeout`` is left out (not known)."""
    wanted = {p: span for p, span in spans.items() if span[1] > span[0] >= 0}
    counts = {p: 0 for p in wanted}
    if not wanted:
        return counts
    consumer = clients.consumer(
        config,
        {
            "group.id": reader_group("count"),  # assign only: never commits
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
            "enable.partition.eof": True,
            "fetch.wait.max.ms": 50,
        },
    )
    done: set[int] = set()
    try:
        consumer.assign([TopicPartition(topic, p, start) for p, (start, _) in wanted.items()])
        deadline = time.monotonic() + timeout
        while len(done) < len(wanted) and time.monotonic() < deadline:
            for record in consumer.consume(1000, 0.1):
                p = record.partition()
                if p in done:
                    continue
                error = record.error()
                if error is not None:
                    if error.code() == _PARTITION_EOF:
                        done.add(p)  # read_committed: the end is the last stable offset
                    continue
                if record.offset() >= wanted[p][1]:
                    done.add(p)
                    continue
                counts[p] += 1
    except KafkaException:
        return {}
    finally:
        consumer.close()
    return {p: n for p, n in counts.items() if p in done}


__all__ = ["committed_records"]
