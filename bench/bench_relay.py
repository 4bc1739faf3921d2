"""The ceiling of the publication path: relaying the corpus from one topic to another.

Prints records/s and MB/s per body size of the corpus (``bench/corpus.py``), side by side in
one run on one broker, reading the same input, with the CPU per record of the relay's process,
its Python thread and a local broker's JVM, for
- the batched plain relay: consume 5,000 at a time, produce with linger 5 ms, no
  transactions (the anchor of issue 21),
- the batched transactional relay: the same, with a transaction per 100 ms / 50,000 records /
  64 MB (whichever first) or per lull in the input: the exactly-once ceiling,
- the identity loop: ``TransactionalLoop`` (the service's loop, its batching and settings)
  relaying unchanged,
- the MQ floor loop: the same loop with ``MQFloor``, the least any service must do per
  publication (a copy with its MQMD headers, the activity events): what no implementation of
  the service on this loop can beat.

Run: ``python -m bench.bench_relay [--records N] [--sizes 256 4096 65536 0] [--best-case]``.
"""

from __future__ import annotations

import argparse
import itertools
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from confluent_kafka import Consumer, Producer

from bench import corpus
from bench.kafka_env import (
    committed_reader,
    cpu_seconds,
    create_topic,
    kafka,
    kafka_settings,
    local_broker_pid,
)
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
            # as every consumer of the product (mqkafka.kafka.clients.CONSUMER_DEFAULTS):
            # librdkafka's 1 s pause of a full prefetch queue starves a fast reader
            "fetch.queue.backoff.ms": 10,
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


_COPY_HEADERS = (  # what a copy to a RegSub subscriber carries besides MsgId, PutDate, PutTime
    [("mqmd.Format", b"MQHRF2"), ("mqmd.Priority", b"0"), ("mqmd.Persistence", b"0")],
    [
        ("mqmd.CorrelId", b"C0" + bytes(22)),
        ("mqmd.ReplyToQMgr", b"QM1"),
        ("mqmd.PutApplType", b"26"),
        ("mqmd.PutApplName", b"QM1"),
    ],
)


def _varint(value: int) -> bytes:
    """Avro's zigzag varint of a long."""
    value = (value << 1) ^ (value >> 63)
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


class MQFloor:
    """The least a service must do per publication, as a handler of the service's loop: the
    publication's topic found by its RFH2 bytes (a dict), a copy with the copy's ten MQMD
    headers (a new MsgId, PutDate and PutTime) and the body, and the publication's two
    activity events (Avro: the MsgIds and times around constant pieces), written per batch
    in blocks of ~1 MB to a topic of their own. No parsing, matching, checks or metrics: a
    floor, not a service. The copy's value is the publication's own (a delivered copy's
    head is the same size)."""

    def __init__(self, target: str, events_topic: str) -> None:
        self.target, self.events_topic = target, events_topic
        self.plans: dict[bytes, tuple[bytes, bytes]] = {}  # RFH2 head → event middles
        self.ids = itertools.count(1)
        self.prefix = b"MQKM" + uuid.uuid4().bytes[:12]
        self.tick = -1
        self.put = [("mqmd.PutDate", b""), ("mqmd.PutTime", b"")]

    def handle(self, batch: Sequence[Any]) -> list[OutRecord]:
        now = time.time()
        if int(now * 100) != self.tick:
            self.tick = int(now * 100)
            stamp = time.strftime("%Y%m%d%H%M%S", time.gmtime(now)).encode()
            hundredths = b"%02d" % (self.tick % 100)
            self.put = [("mqmd.PutDate", stamp[:8]), ("mqmd.PutTime", stamp[8:] + hundredths)]
        now_ms = _varint(int(now * 1000))
        before, after = _COPY_HEADERS
        put, plans, ids, prefix, target = self.put, self.plans, self.ids, self.prefix, self.target
        out: list[OutRecord] = []
        events: list[bytes] = []
        for message in batch:
            value = message.value()
            head = value[: int.from_bytes(value[8:12], "little")]
            plan = plans.get(head)
            if plan is None:  # the events' constant middles: the topic, queues, names
                plan = plans[head] = (b"\x00QM1" + head[36:100], b"\x02QM1" + head[36:100])
            publication = message.headers()[0][1]  # the corpus's MsgId comes first
            msg_id = prefix + next(ids).to_bytes(8, "big")
            headers = [*before, ("mqmd.MsgId", msg_id), *after, *put]
            out.append(OutRecord(target, value, b"C0", headers))
            put_ms = _varint(message.timestamp()[1])
            size = _varint(len(value))
            events.append(
                b"".join(
                    (b"\x04", now_ms, put_ms, plan[0], b"0", publication, size,
                     now_ms, put_ms, plan[1], b"0", publication, msg_id, size)
                )
            )  # fmt: skip
        for start in range(0, len(events), 4000):  # ~1 MB a block
            out.append(OutRecord(self.events_topic, b"".join(events[start : start + 4000])))
        return out


def mq_floor_relay(bootstrap: str, source: str, target: str, count: int) -> float:
    """The service's loop with the ``MQFloor`` handler, exactly once."""
    return loop_relay(bootstrap, source, target, count, MQFloor(target, create_topic(bootstrap)))


class Identity:
    def __init__(self, target: str) -> None:
        self.target = target

    def handle(self, batch: Sequence[Any]) -> list[OutRecord]:
        return [OutRecord(self.target, m.value(), m.key(), m.headers()) for m in batch]


def loop_relay(bootstrap: str, source: str, target: str, count: int, handler: Any = None) -> float:
    """The service's loop relaying with ``handler`` (an identity one by default), exactly
    once; returns once ``count`` records are read and the loop has stopped (committed)."""
    loop = TransactionalLoop(
        client=ClientConfig(bootstrap),
        group_id=uuid.uuid4().hex,
        topics=[source],
        handler=handler or Identity(target),
        transactional_id=f"bench-{uuid.uuid4().hex}",
    )
    timed: list[float] = []

    def watch() -> None:  # the loop runs on the calling thread: its CPU is measured
        while loop.stats.records_in == 0:
            time.sleep(0.001)
        started = time.perf_counter()
        while loop.stats.records_in < count:
            time.sleep(0.002)
        timed.append(time.perf_counter() - started)
        loop.stop()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    loop.run()
    watcher.join(30)
    first_batch = loop.stats.batch_seconds[0] if loop.stats.batch_seconds else 0.0
    return count / (timed[0] + first_batch)


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
    "identity loop": loop_relay,
    "MQ floor loop": mq_floor_relay,
}


class RelayFigures(NamedTuple):
    rate: float  # records/s
    cpu: float  # µs per record: this process (its Python thread and librdkafka's)
    main: float  # µs per record: the Python thread alone
    jvm: float | None  # µs per record: a local broker's JVM (None: the broker is elsewhere)


def relay_rate(bootstrap: str, relay: Relay, source: str, count: int) -> RelayFigures:
    """``relay`` reading ``source`` (the same input the service reads), timed as the service
    is: records/s from the first to the last record written, read back committed; and its
    CPU per record, split as ``bench_service`` splits the service's."""
    target = create_topic(bootstrap)
    jvm = local_broker_pid(bootstrap)
    jvm_stat = None if jvm is None else f"/proc/{jvm}/stat"
    jvm_cpu = 0.0 if jvm_stat is None else cpu_seconds(jvm_stat)
    cpu, main = time.process_time(), time.thread_time()
    relay(bootstrap, source, target, count)
    cpu, main = time.process_time() - cpu, time.thread_time() - main
    jvm_used = None if jvm_stat is None else (cpu_seconds(jvm_stat) - jvm_cpu) / count * 1e6
    rate = count / max(written_span(bootstrap, [target], count), 1e-3)
    return RelayFigures(rate, cpu / count * 1e6, main / count * 1e6, jvm_used)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=200_000, help="at 256 B; fewer above")
    parser.add_argument("--sizes", type=int, nargs="*", default=list(corpus.SIZES.values()))
    parser.add_argument("--best-case", action="store_true", help="also the old lz4 input")
    args = parser.parse_args()
    runs: dict[str, Relay] = {
        **RELAYS,
        "plain relay, lz4": lambda b, s, t, n: plain_relay(b, s, t, n, "lz4"),
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
            base = rates["plain relay"].rate
            for name, figures in rates.items():
                mb = figures.rate * volume / count / 1e6
                jvm = "-" if figures.jvm is None else f"{figures.jvm:.1f}"
                print(
                    f"  {name:24} {figures.rate:>10,.0f} records/s {mb:8.1f} MB/s"
                    f" {figures.rate / base:6.1%}  CPU µs/record: {figures.cpu:5.1f} process"
                    f" ({figures.main:5.1f} its Python thread), {jvm} broker JVM"
                )


if __name__ == "__main__":
    main()
