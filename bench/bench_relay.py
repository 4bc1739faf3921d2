"""The ceiling of the publication path: relaying the corpus from one topic to another.

Prints records/s and MB/s per body size of the corpus (``bench/corpus.py``), side by side in
one run on one broker, reading the same input, for
- the batched plain relay: consume 5,000 at a time, produce with linger 5 ms, no
  transactions (the anchor of issue 21),
- the batched transactional relay: the same, with a transaction per 100 ms / 50,000 records /
  64 MB (whichever first) or per lull in the input: the exactly-once ceiling,
- ``TransactionalLoop`` relaying with an identity handler (the service's loop, exactly once,
  with its own batching and settings).

Run: ``python -m bench.bench_relay [--records N] [--sizes 256 4096 65536 0] [--best-case]``.
"""

from __future__ import annotations

import argparse
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from confluent_kafka import Consumer, Producer

from bench import corpus
from bench.kafka_env import committed_reader, create_topic, kafka, kafka_settings
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.txloop import OutRecord, TransactionalLoop

RELAY_BATCH = 5000  # records per consume()
TX_RECORDS, TX_BYTES, TX_SECONDS = 50_000, 64 << 20, 0.1  # the transactional relay's commits


def _consumer(bootstrap: str, transactional: bool = False) -> Any:
    return Consumer(
        {
            **kafka_settings(bootstrap),
            "group.id": uuid.uuid4().hex,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
        }
    )


def _producer(bootstrap: str, compression: str, **extra: Any) -> Any:
    return Producer(
        {
            **kafka_settings(bootstrap),
            "linger.ms": 5,
            "compression.type": compression,
            "queue.buffering.max.messages": 500_000,
            "delivery.report.only.error": True,  # as the service's producer
            **extra,
        }
    )


def _produce(producer: Any, target: str, message: Any) -> None:
    while True:
        try:  # the same records: key, value and MQMD headers
            producer.produce(
                target, value=message.value(), key=message.key(), headers=message.headers()
            )
            return
        except BufferError:
            producer.poll(0.05)


def plain_relay(
    bootstrap: str, source: str, target: str, count: int, compression: str = "none"
) -> float:
    """Consume 5,000 at a time, produce with linger 5 ms, commit offsets asynchronously;
    records/s from the first record read to the last one acknowledged."""
    consumer = _consumer(bootstrap)
    producer = _producer(bootstrap, compression)
    consumer.subscribe([source])
    moved, started = 0, None
    while moved < count:
        batch = consumer.consume(RELAY_BATCH, 0.02)
        if batch and started is None:
            started = time.perf_counter()
        for message in batch:
            if message.error() is None:
                _produce(producer, target, message)
                moved += 1
        if batch:
            producer.poll(0)
            consumer.commit(asynchronous=True)
    producer.flush(60)
    elapsed = time.perf_counter() - (started or time.perf_counter())
    consumer.close()
    return count / elapsed


def transactional_relay(
    bootstrap: str, source: str, target: str, count: int, compression: str = "none"
) -> float:
    """The plain relay inside transactions (offsets committed in them): exactly once."""
    consumer = _consumer(bootstrap)
    producer = _producer(bootstrap, compression, **{"transactional.id": uuid.uuid4().hex})
    producer.init_transactions(30)
    consumer.subscribe([source])
    moved, started = 0, None
    in_tx, tx_records, tx_bytes, tx_began = False, 0, 0, 0.0
    while moved < count or in_tx:
        batch = consumer.consume(RELAY_BATCH, 0.02) if moved < count else []
        if batch and started is None:
            started = time.perf_counter()
        for message in batch:
            if message.error() is None:
                if not in_tx:
                    producer.begin_transaction()
                    in_tx, tx_records, tx_bytes, tx_began = True, 0, 0, time.perf_counter()
                _produce(producer, target, message)
                moved += 1
                tx_records += 1
                tx_bytes += len(message.value())
        producer.poll(0)
        if in_tx and (
            not batch
            or tx_records >= TX_RECORDS
            or tx_bytes >= TX_BYTES
            or time.perf_counter() - tx_began >= TX_SECONDS
        ):
            offsets = consumer.position(consumer.assignment())
            producer.send_offsets_to_transaction(offsets, consumer.consumer_group_metadata(), 30)
            producer.commit_transaction(30)
            in_tx = False
    elapsed = time.perf_counter() - (started or time.perf_counter())
    consumer.close()
    return count / elapsed


class Identity:
    def __init__(self, target: str) -> None:
        self.target = target

    def handle(self, batch: Sequence[Any]) -> list[OutRecord]:
        return [OutRecord(self.target, m.value(), m.key(), m.headers()) for m in batch]


def loop_relay(bootstrap: str, source: str, target: str, count: int) -> float:
    """The service's loop relaying with an identity handler, exactly once."""
    loop = TransactionalLoop(
        client=ClientConfig(bootstrap),
        group_id=uuid.uuid4().hex,
        topics=[source],
        handler=Identity(target),
        transactional_id=f"bench-{uuid.uuid4().hex}",
    )
    thread = threading.Thread(target=loop.run, daemon=True)
    thread.start()
    while loop.stats.records_in == 0:
        time.sleep(0.001)
    started = time.perf_counter()
    while loop.stats.records_in < count:
        time.sleep(0.002)
    elapsed = time.perf_counter() - started
    loop.stop()
    thread.join(30)
    first_batch = loop.stats.batch_seconds[0] if loop.stats.batch_seconds else 0.0
    return count / (elapsed + first_batch)


def written_span(bootstrap: str, topics: list[str], expect: int, timeout: float = 600) -> float:
    """Read ``expect`` committed records of ``topics``; seconds from the first record's
    timestamp to the last's (as a relay or the service wrote them)."""
    consumer = committed_reader(bootstrap)
    consumer.subscribe(topics)
    seen, first, last = 0, None, 0.0
    deadline = time.monotonic() + timeout
    try:
        while seen < expect and time.monotonic() < deadline:
            for message in consumer.consume(10000, 0.5):
                if message.error() is None:
                    seen += 1
                    ts = message.timestamp()[1] / 1000.0
                    first = ts if first is None else min(first, ts)
                    last = max(last, ts)
    finally:
        consumer.close()
    if seen != expect:
        raise RuntimeError(f"{seen} of {expect} records arrived on {topics}")
    return last - (first or last)


Relay = Callable[[str, str, str, int], float]
RELAYS: dict[str, Relay] = {
    "plain relay": plain_relay,
    "transactional relay": transactional_relay,
}


def relay_rate(bootstrap: str, relay: Relay, source: str, count: int) -> tuple[float, float]:
    """records/s of ``relay`` reading ``source`` (the same input the service reads), timed
    as the service is: from the first to the last record written, read back committed; and
    the relay's CPU µs per record (this process: its Python thread and librdkafka's)."""
    target = create_topic(bootstrap)
    cpu = time.process_time()
    relay(bootstrap, source, target, count)
    cpu = time.process_time() - cpu
    return count / max(written_span(bootstrap, [target], count), 1e-3), cpu / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=200_000, help="at 256 B; fewer above")
    parser.add_argument("--sizes", type=int, nargs="*", default=list(corpus.SIZES.values()))
    parser.add_argument("--best-case", action="store_true", help="also the old lz4 input")
    args = parser.parse_args()
    runs: dict[str, Relay] = {
        **RELAYS,
        "plain relay, lz4": lambda b, s, t, n: plain_relay(b, s, t, n, "lz4"),
        "TransactionalLoop": loop_relay,
    }
    inputs = [(f"{s or 'mix'}", s, False) for s in args.sizes]
    inputs += [(corpus.BEST_CASE, 256, True)] if args.best_case else []
    with kafka() as bootstrap:
        for label, size, best in inputs:
            count = corpus.records_for(size, most=args.records)
            source = create_topic(bootstrap, partitions=4)  # as the default stream
            volume = corpus.fill(bootstrap, source, count, size, best=best)
            print(f"\n{label}: {count} records, {volume / count:,.0f} B each on average")
            rates = {name: relay_rate(bootstrap, run, source, count) for name, run in runs.items()}
            base = rates["plain relay"][0]
            for name, (rate, cpu) in rates.items():
                mb = rate * volume / count / 1e6
                print(
                    f"  {name:24} {rate:>10,.0f} records/s {mb:8.1f} MB/s {rate / base:6.1%}"
                    f"  CPU {cpu:6.1f} µs/record"
                )


if __name__ == "__main__":
    main()
