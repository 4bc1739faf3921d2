"""Put-to-delivery latency at a steady rate, and its parts (issue 21 point 2).

A publisher thread puts the corpus's publications at ``rate`` per second, each with its put
time in its last 17 bytes (they reach the subscriber unchanged); a read_committed consumer of
the subscriber's queue takes each copy as it comes. Per copy three times are kept: put, the
copy's timestamp (when the service, or a relay, produced it: Kafka's CreateTime) and read.
So the latency splits into put → written (the publisher's send, the broker's append, the
service's fetch, its wait for the transaction in flight, its handling) and written → read
(the rest of the service's transaction, its commit, the reader's fetch).

The same measurement runs through a baseline: ``TransactionalLoop`` relaying each record
unchanged (an identity handler, the service's own loop and settings, exactly once), as a
process of its own (``python -m bench.latency --relay SOURCE TARGET``). What the service adds
on top is its dispatcher and state; what both share is Kafka's transactions on this machine.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator

from confluent_kafka import Consumer, Producer, TopicPartition

from bench import corpus
from bench.kafka_env import kafka_settings

STAMP = 17  # bytes of put time at the end of a latency run's bodies
Sample = tuple[float, float, float]  # put, copy written, read: epoch seconds


def measure(
    bootstrap: str, stream: str, topic: str, rate: int, seconds: float, size: int
) -> tuple[list[Sample], int]:
    """Puts ``rate`` × (``seconds`` + 1) corpus publications (``size`` 0: the mix) on
    ``stream`` at a steady rate and reads their copies from ``topic`` (one partition);
    returns the samples, sorted by put time, and how many were put."""
    consumer = Consumer(
        {
            **kafka_settings(bootstrap),
            "group.id": uuid.uuid4().hex,
            "isolation.level": "read_committed",
            # A read_committed fetch waits on the broker until the last stable offset moves
            # (a commit) and returns then, so a long wait adds no latency (measured: p50 of
            # written → read the same at 1 ms and 100 ms); 1 ms made a fetch request per ms.
            "fetch.wait.max.ms": 100,
            "enable.auto.commit": False,
        }
    )
    consumer.assign([TopicPartition(topic, 0, -1)])
    consumer.consume(1, 1.0)  # connected and positioned before the first publication
    producer = Producer(kafka_settings(bootstrap))  # librdkafka's defaults, as the corpus's
    total = int(rate * (seconds + 1))
    pubs = list(corpus.publications(total, size))
    samples: list[Sample] = []

    def put() -> None:
        start = time.perf_counter()
        for i, pub in enumerate(pubs):
            target = start + i / rate
            while time.perf_counter() < target:
                time.sleep(max(0.0, min(0.001, target - time.perf_counter())))
            value = pub.value[:-STAMP] + f"{time.time():17.6f}".encode()
            producer.produce(stream, value=value, key=pub.key, headers=pub.headers)
            producer.poll(0)
        producer.flush(30)

    sender = threading.Thread(target=put)
    sender.start()
    deadline = time.monotonic() + seconds + 30
    try:
        while len(samples) < total and time.monotonic() < deadline:
            # what has arrived, or the first to arrive: consume(n, t) alone waits for all n
            for message in consumer.consume(1000, 0) or consumer.consume(1, 0.1):
                value = message.value() if message.error() is None else None
                if value is not None and not value.endswith(corpus.WARM_UP):
                    now = time.time()
                    written = message.timestamp()[1] / 1000.0
                    samples.append((float(value[-STAMP:]), written, now))
    finally:
        sender.join()
        consumer.close()
    samples.sort()
    return samples, total


def pct(ordered: list[float], percent: float) -> float:
    """The ``percent``th percentile of sorted ``ordered`` (nearest rank)."""
    if not ordered:
        return math.inf
    return ordered[max(0, math.ceil(len(ordered) * percent / 100) - 1)]


def summary(samples: list[Sample], total: int, rate: int) -> dict[str, float]:
    """p50 / p99 / max in all (ms), p50 / p99 of each part, after the first second (the
    first publications open partitions and make plans: that second's p99 is apart). What
    had not arrived is counted as infinitely late, so the percentiles say so."""
    whole = [(r - p) * 1000 for p, _, r in samples] + [math.inf] * (total - len(samples))
    first, rest = sorted(whole[:rate]), sorted(whole[rate:])
    later = samples[rate:]
    to_copy = sorted((w - p) * 1000 for p, w, _ in later)
    to_read = sorted((r - w) * 1000 for _, w, r in later)
    return {
        "p50 ms": pct(rest, 50),
        "p99 ms": pct(rest, 99),
        "max ms": rest[-1] if rest else math.inf,
        "put → copy written, p50 ms": pct(to_copy, 50),
        "put → copy written, p99 ms": pct(to_copy, 99),
        "written → read committed, p50 ms": pct(to_read, 50),
        "written → read committed, p99 ms": pct(to_read, 99),
        "p99 ms in the first second": pct(first, 99),
    }


def per_second_p99(samples: list[Sample], rate: int) -> list[int]:
    """p99 (ms) of each second's publications: where in the run the late ones were."""
    whole = [(r - p) * 1000 for p, _, r in samples]
    return [round(pct(sorted(whole[i : i + rate]), 99)) for i in range(0, len(whole), rate)]


@contextlib.contextmanager
def relay_process(bootstrap: str, source: str, target: str) -> Iterator[None]:
    """The identity ``TransactionalLoop`` relaying ``source`` to ``target``, in a process of
    its own, until the block ends."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.latency", "--relay", bootstrap, source, target],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            raise RuntimeError("the relay did not start")
        yield
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)


def _relay(bootstrap: str, source: str, target: str) -> None:
    from bench.bench_relay import Identity
    from mqkafka.kafka.clientconfig import load_client_config
    from mqkafka.kafka.txloop import TransactionalLoop

    loop = TransactionalLoop(
        client=load_client_config(bootstrap),
        group_id=uuid.uuid4().hex,
        topics=[source],
        handler=Identity(target),
        transactional_id=f"bench-{uuid.uuid4().hex}",
        on_joined=lambda: print("ready", flush=True),
    )
    signal.signal(signal.SIGTERM, lambda *_: loop.stop())
    loop.run()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--relay", nargs=3, metavar=("BOOTSTRAP", "SOURCE", "TARGET"))
    args = parser.parse_args()
    if args.relay:
        _relay(*args.relay)
