"""The Kafka-backed MQI against raw confluent-kafka, side by side in one run; prints figures.

    python -m bench.bench_mqi_kafka [--n 100000] [--size 256]

Uses the broker in $MQK_BOOTSTRAP_SERVERS, or starts a throw-away local one.

- MQPUT, non-persistent, one process, against a raw ``Producer.produce`` of the same records
  (same value, same MQMD headers, same producer settings), both measured to the last
  delivery (``flush``). Target: MQPUT >= 50% of raw.
- Destructive MQGET, one process (non-syncpoint, MQGMO_NO_WAIT/WAIT loop), against a raw
  ShareConsumer loop over the same records (explicit acknowledgement, ACCEPT each record).
  Target: MQGET >= 10,000 messages/s.
- The same under syncpoint (MQGMO_SYNCPOINT, MQCMIT every 10 gets), on a tenth as many.
- Non-syncpoint MQGET of persistent messages, on a tenth as many: each is acknowledged
  before MQGET returns (as MQ forces its log), so no other process's browse shows it after.
"""

from __future__ import annotations

import argparse
import os
import time
import uuid

from confluent_kafka import AcknowledgeType, Producer, ShareConsumer

from bench.kafka_env import kafka
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

MASK = 1023  # bodies in the pool, less one
MAX_DEPTH = 999_999_999  # MQ's largest: MQPUT enforces MAXDEPTH, 5000 by default
PRODUCER = {"acks": "all", "enable.idempotence": True, "linger.ms": 5}
UOW = 10  # gets per unit of work in the syncpoint figure


def line(
    label: str, n: int, seconds: float, base: float | None = None, cpu: float | None = None
) -> float:
    """One figure; ``cpu``: the calling thread's CPU seconds for the ``n`` (on a machine
    others share, wall time varies with their load, this much less)."""
    rate = n / seconds
    ratio = f"   {rate / base:6.1%} of raw" if base else ""
    mine = f", {cpu * 1e6 / n:6.2f} µs CPU" if cpu is not None else ""
    print(f"{label:<52} {rate:>12,.0f} msg/s  ({seconds * 1e6 / n:6.2f} µs each{mine}){ratio}")
    return rate


def bench_put(qmgr: QueueManager, bootstrap: str, n: int, bodies: list[bytes]) -> None:
    name = f"BENCH.PUT.{uuid.uuid4().hex[:8].upper()}"
    qmgr.define_queue(name, max_depth=MAX_DEPTH)
    queue = Queue(qmgr, name, C.MQOO_OUTPUT)
    sample = MD()
    payload = bodies[0]
    queue.put(payload, sample)
    topic = qmgr.connection.settings.topic_of(name)
    from mqkafka.mqi.rules.putmd import encode_headers

    record_headers = encode_headers(dict(sample.__dict__, Persistence=0, Priority=0))
    raw = Producer({"bootstrap.servers": bootstrap, **PRODUCER})
    raw.produce(topic, payload, headers=record_headers)
    raw.flush()
    start = time.perf_counter()
    for i in range(n):
        body = bodies[i & MASK]
        try:
            raw.produce(topic, body, None, headers=record_headers)
        except BufferError:
            raw.flush()
            raw.produce(topic, body, None, headers=record_headers)
    raw.flush(120)
    base = line("raw Producer.produce (+ flush)", n, time.perf_counter() - start)

    start = time.perf_counter()
    for i in range(n):
        queue.put(bodies[i & MASK])
    qmgr.connection.producer.flush(120)
    line("MQPUT q.put(msg) non-persistent (+ flush)", n, time.perf_counter() - start, base)

    start = time.perf_counter()
    for i in range(n):
        queue.put(bodies[i & MASK], MD())
    qmgr.connection.producer.flush(120)
    line("MQPUT q.put(msg, MD()) non-persistent (+ flush)", n, time.perf_counter() - start, base)
    queue.close()


def filled_queue(
    qmgr: QueueManager, prefix: str, n: int, bodies: list[bytes], persistent: bool = False
) -> str:
    """A new queue named ``prefix`` and a suffix, holding ``n`` messages."""
    name = f"{prefix}.{uuid.uuid4().hex[:8].upper()}"
    qmgr.define_queue(name, max_depth=MAX_DEPTH)
    queue = Queue(qmgr, name, C.MQOO_OUTPUT)
    for i in range(n):
        if persistent:
            queue.put(bodies[i & MASK], MD(Persistence=C.MQPER_PERSISTENT))
        else:
            queue.put(bodies[i & MASK])
    qmgr.connection.producer.flush(120)
    queue.close()
    return name


def timed_gets(
    qmgr: QueueManager, name: str, n: int, label: str, base: float, uow: int = 0
) -> None:
    """The ``n`` messages of ``name`` got, the first untimed (joining the share group is not
    measured); ``uow``: under syncpoint, MQCMIT after every ``uow`` gets (whole units only)."""
    queue = Queue(qmgr, name, C.MQOO_INPUT_SHARED)
    sync = C.MQGMO_SYNCPOINT if uow else C.MQGMO_NO_SYNCPOINT
    gmo = GMO(Options=C.MQGMO_WAIT | sync, WaitInterval=10_000)
    queue.get(None, MD(), gmo)
    if uow:
        qmgr.commit()
    got = n - 1 - (n - 1) % uow if uow else n - 1
    start, cpu = time.perf_counter(), time.thread_time()
    for i in range(got):
        queue.get(None, MD(), gmo)
        if uow and i % uow == uow - 1:
            qmgr.commit()
    seconds, cpu = time.perf_counter() - start, time.thread_time() - cpu
    line(label, got, seconds, base, cpu)
    queue.close()


def bench_get(qmgr: QueueManager, bootstrap: str, n: int, bodies: list[bytes]) -> None:
    raw_q = filled_queue(qmgr, "BENCH.RAWGET", n, bodies)
    mq_q = filled_queue(qmgr, "BENCH.GET", n, bodies)
    settings = qmgr.connection.settings
    topic = settings.topic_of(raw_q)
    consumer = ShareConsumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": settings.share_group_of(topic),
            "share.acknowledgement.mode": "explicit",
            "max.poll.records": settings.read_ahead,
        }
    )
    consumer.subscribe([topic])
    got, start, cpu = 0, None, 0.0
    while got < n:
        batch = consumer.poll(1.0)
        if start is None and batch:
            start = time.perf_counter()  # from the first record: joining is not measured
            cpu = time.thread_time()
        for message in batch:
            if message.error() is None:
                consumer.acknowledge(message, AcknowledgeType.ACCEPT)
                got += 1
    consumer.commit_sync(60)
    assert start is not None
    seconds, cpu = time.perf_counter() - start, time.thread_time() - cpu
    base = line("raw ShareConsumer poll + acknowledge(ACCEPT)", n, seconds, cpu=cpu)
    consumer.close()

    timed_gets(qmgr, mq_q, n, "MQGET destructive, non-syncpoint, one process", base)
    few = n // 10  # the slower ones (a commit, an acknowledgement round trip) on a tenth
    name = filled_queue(qmgr, "BENCH.GETSP", few, bodies)
    timed_gets(qmgr, name, few, f"MQGET destructive, syncpoint, MQCMIT every {UOW}", base, UOW)
    name = filled_queue(qmgr, "BENCH.GETPER", few, bodies, persistent=True)
    timed_gets(qmgr, name, few, "MQGET destructive, non-syncpoint, persistent", base)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--size", type=int, default=256)
    args = parser.parse_args()
    # random bodies do not compress; a pool of them, so no two neighbours are alike
    bodies = [os.urandom(args.size) for _ in range(MASK + 1)]
    with kafka() as bootstrap:
        namespace = f"bench{uuid.uuid4().hex[:6]}."
        qmgr = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace)
        print(f"{args.n:,} messages of {args.size} bytes, Kafka at {bootstrap}")
        bench_put(qmgr, bootstrap, args.n, bodies)
        bench_get(qmgr, bootstrap, args.n, bodies)
        qmgr.disconnect()


if __name__ == "__main__":
    main()
