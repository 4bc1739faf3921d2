"""The ceiling of the publication path: relaying records from one topic to another.

Prints records/s, side by side in one run on one broker, for
- a batched confluent-kafka consume-then-produce relay (the yardstick of issue 4), and
- the same relay through ``TransactionalLoop`` (one transaction per batch, exactly once).

Run: ``python -m bench.bench_relay [--records N]``.
"""

from __future__ import annotations

import argparse
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from confluent_kafka import Consumer, Producer

from bench.kafka_env import create_topic, drain_count, fill, kafka, kafka_settings
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.txloop import OutRecord, TransactionalLoop


def plain_relay(bootstrap: str, source: str, target: str, count: int) -> float:
    consumer = Consumer(
        {
            **kafka_settings(bootstrap),
            "group.id": uuid.uuid4().hex,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "fetch.wait.max.ms": 10,
            "queued.min.messages": 20000,
        }
    )
    producer = Producer(
        {
            **kafka_settings(bootstrap),
            "linger.ms": 2,
            "batch.num.messages": 10000,
            "queue.buffering.max.messages": 500000,
            "compression.type": "lz4",
            "delivery.report.only.error": True,  # as the service's producer
        }
    )
    consumer.subscribe([source])
    moved = 0
    started = None
    while moved < count:
        batch = consumer.consume(5000, 0.02)
        if batch and started is None:
            started = time.perf_counter()
        for message in batch:
            if message.error() is None:
                while True:
                    try:
                        producer.produce(
                            target,
                            value=message.value(),
                            key=message.key(),
                            headers=message.headers(),  # the same records: MQMD headers too
                        )
                        break
                    except BufferError:
                        producer.poll(0.05)
                moved += 1
        if batch:
            producer.poll(0)
            consumer.commit(asynchronous=True)
    producer.flush(60)
    elapsed = time.perf_counter() - (started or time.perf_counter())
    consumer.close()
    return count / elapsed


class Identity:
    def __init__(self, target: str) -> None:
        self.target = target

    def handle(self, batch: Sequence[Any]) -> list[OutRecord]:
        return [OutRecord(self.target, m.value(), m.key()) for m in batch]


def loop_relay(bootstrap: str, source: str, target: str, count: int, transactional: bool) -> float:
    loop = TransactionalLoop(
        client=ClientConfig(bootstrap),
        group_id=uuid.uuid4().hex,
        topics=[source],
        handler=Identity(target),
        transactional_id=f"bench-{uuid.uuid4().hex}" if transactional else None,
    )
    thread = threading.Thread(target=loop.run, daemon=True)
    thread.start()
    while loop.stats.records_in == 0:
        time.sleep(0.001)
    started = time.perf_counter()
    while loop.stats.records_in < count:
        time.sleep(0.005)
    elapsed = time.perf_counter() - started
    loop.stop()
    thread.join(30)
    first_batch = loop.stats.batch_seconds[0] if loop.stats.batch_seconds else 0.0
    return (count - 0) / (elapsed + first_batch)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=200_000)
    args = parser.parse_args()
    with kafka() as bootstrap:
        source = create_topic(bootstrap)
        fill(bootstrap, source, args.records)
        results = {}
        runs: list[tuple[str, Callable[[str], float]]] = [
            (
                "batched confluent-kafka relay",
                lambda t: plain_relay(bootstrap, source, t, args.records),
            ),
            (
                "TransactionalLoop, no transactions",
                lambda t: loop_relay(bootstrap, source, t, args.records, False),
            ),
            (
                "TransactionalLoop, exactly once",
                lambda t: loop_relay(bootstrap, source, t, args.records, True),
            ),
        ]
        for name, run in runs:
            target = create_topic(bootstrap)
            rate = run(target)
            drain_count(bootstrap, target, args.records)
            results[name] = rate
        base = results["batched confluent-kafka relay"]
        print(f"records: {args.records} x 256 B, 1 partition")
        for name, rate in results.items():
            print(f"{name:40} {rate:>10,.0f} records/s  {rate / base:6.1%} of the relay")


if __name__ == "__main__":
    main()
