"""Streaming job speed on local[2]: backlog throughput and live end-to-end lag. Prints figures.

    python -m bench.bench_pipeline [--backlog 600000] [--rate 20000] [--seconds 40]
        [--per-record 500]

Events are written as the service writes them: ActivityBatch records of ``--per-record``
events each, keyed by a worker id. Event counts come from the job's decode metric (Spark's
``numInputRows`` counts records).

1. Backlog: the activity topic holds ``--backlog`` events (publications with fan-out 4 over
   200 topics and 50 queues, 1% failed commands); the job works it off with ``once`` in
   batches of 200,000. Printed: events/s per batch after the first (steady state), the JVM's
   CPU seconds per million events, and the rate that CPU cost allows on two whole cores
   (the machine is shared, so wall-clock figures vary with what else runs).
2. Live: a producer writes ``--rate`` events/s with the current time for ``--seconds`` while
   the job runs with a 2 s trigger (a record every 50 ms, or sooner once it is full).
   Printed: the rate processed, and the lag from an event's processing time (``time_ms``) to
   the end of the micro-batch that counted it (p50, max).
   A minute's row is final once the watermark passes its end: that adds the watermark
   (``--watermark``) and up to one minute to the lag of the tables themselves.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from bench.kafka_env import kafka
from mqkafka.activity.events import COMMAND, DELIVERY, FastEncoder, encode_batch
from mqkafka.pipeline import stream_job
from mqkafka.pipeline.config import PipelineConfig
from mqkafka.pipeline.session import build_session

FANOUT = 4
TOPICS = [f"Sport/League{i % 10}/Team{i}" for i in range(200)]
QUEUES = [f"APP.SUB.{i}" for i in range(50)]


def events(encoder: FastEncoder, first: int, count: int, clock: Any) -> list[bytes]:
    """``count`` encoded events: one Publish then its FANOUT deliveries."""
    out = []
    for i in range(first, first + count):
        pub, copy = divmod(i, FANOUT + 1)
        now = clock(i)
        topic = TOPICS[pub % len(TOPICS)]
        msg_id = pub.to_bytes(24, "big")
        if copy == 0:
            failed = pub % 100 == 0
            queue = "SYSTEM.BROKER.DEFAULT.STREAM"
            value = encoder.event(
                COMMAND, now, now - 3, "QM1", queue, "Publish", "error" if failed else "ok",
                3081 if failed else 0, "app", None, None, None, (topic,), msg_id, False, 240, 3.0,
            )  # fmt: skip
        else:
            queue = QUEUES[(pub * FANOUT + copy) % len(QUEUES)]
            value = encoder.event(
                DELIVERY, now, now - 3, "QM1", queue, "Publish", "ok", 0, "sub", queue,
                b"\x01" * 24, None, (topic,), msg_id, False, 300, 3.0,
            )  # fmt: skip
        out.append(value)
    return out


def records(encoded: list[bytes], per_record: int, worker: int = 0) -> list[tuple[bytes, bytes]]:
    """Encoded events as activity records (key, ActivityBatch value) of ``per_record`` events,
    keyed by four worker ids in turn (one per partition, as four workers would)."""
    return [
        (f"worker-{(worker + n) % 4}".encode(), encode_batch(encoded[i : i + per_record]))
        for n, i in enumerate(range(0, len(encoded), per_record))
    ]


def producer(bootstrap: str) -> Any:
    return Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.num.messages": 10000,
         "queue.buffering.max.messages": 2000000, "compression.type": "lz4"}
    )  # fmt: skip


def send(p: Any, topic: str, records: list[tuple[bytes, bytes]]) -> None:
    for key, value in records:
        while True:
            try:
                p.produce(topic, value=value, key=key)
                break
            except BufferError:
                p.poll(0.05)
    p.poll(0)


def jvm_cpu_seconds(spark: Any) -> float:
    pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def progress(query: Any) -> list[dict[str, Any]]:
    return [json.loads(p.json) for p in query.recentProgress]


def counted(batch: dict[str, Any]) -> int:
    """The events a micro-batch decoded (its progress counts records)."""
    return stream_job.rows_of(batch)


def backlog(spark: Any, bootstrap: str, root: Path, count: int, per_record: int) -> None:
    config = new_config(bootstrap, root / "backlog", max_events_per_batch=200_000)
    start_ms = int(time.time() * 1000) - 10 * 60_000
    p = producer(bootstrap)
    encoder = FastEncoder()
    written = 0
    for first in range(0, count, 100_000):
        chunk = min(100_000, count - first)
        encoded = events(encoder, first, chunk, lambda i: start_ms + i // 1000)
        batch = records(encoded, per_record, written)
        send(p, config.activity_topic, batch)
        written += len(batch)
    p.flush(60)
    cpu_before, began = jvm_cpu_seconds(spark), time.monotonic()
    query = stream_job.start(spark, config, once=True)
    query.awaitTermination()
    wall, cpu = time.monotonic() - began, jvm_cpu_seconds(spark) - cpu_before
    batches = [b for b in progress(query) if b["numInputRows"] > 0]
    rates = [counted(b) / (b["durationMs"]["triggerExecution"] / 1000) for b in batches]
    steady = rates[1:] or rates
    got = sum(counted(b) for b in batches)
    print(f"backlog: {count:,} events in {written:,} records of {per_record}, {got:,} counted in "
          f"{len(batches)} batches, {wall:.1f}s wall "
          f"({count / wall:,.0f} events/s including start-up and the first batch)")  # fmt: skip
    print(f"  steady batches: {statistics.median(steady):,.0f} events/s median, "
          f"{min(steady):,.0f} slowest")  # fmt: skip
    per_million = cpu / count * 1e6
    print(f"  JVM CPU: {per_million:.1f} s per million events -> "
          f"{2e6 / per_million:,.0f} events/s on two whole cores")  # fmt: skip


def live(
    spark: Any,
    bootstrap: str,
    root: Path,
    rate: int,
    seconds: float,
    watermark: float,
    per_record: int,
) -> None:
    config = new_config(bootstrap, root / "live", trigger_s=2.0, watermark_s=watermark)
    query = stream_job.start(spark, config, once=False)
    time.sleep(5)  # the first (empty) batch has planned
    stop = threading.Event()
    sent = [0]

    def produce_live() -> None:
        p = producer(bootstrap)
        encoder = FastEncoder()
        began = last = time.monotonic()
        while not stop.is_set():
            due = int((time.monotonic() - began) * rate)
            full = due - sent[0] >= per_record
            if due > sent[0] and (full or time.monotonic() - last >= 0.05):
                n = min(due - sent[0], 10 * per_record)
                now = int(time.time() * 1000)
                encoded = events(encoder, sent[0], n, lambda i, now=now: now)
                send(p, config.activity_topic, records(encoded, per_record, sent[0]))
                sent[0] += n
                last = time.monotonic()
            else:
                time.sleep(0.005)
        p.flush(60)

    thread = threading.Thread(target=produce_live, daemon=True)
    began = time.monotonic()
    thread.start()
    time.sleep(seconds)
    stop.set()
    thread.join()
    produced_for = time.monotonic() - began
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # let the job catch up with what was sent
        if sum(counted(b) for b in progress(query)) >= sent[0]:
            break
        time.sleep(1)
    caught_up = time.monotonic() - began
    query.stop()
    batches = [b for b in progress(query) if b["numInputRows"] > 0]
    processed = sum(counted(b) for b in batches)
    lags = []
    for b in batches:
        end = datetime.fromisoformat(b["timestamp"].replace("Z", "+00:00")).timestamp()
        end += b["durationMs"]["triggerExecution"] / 1000
        newest = datetime.fromisoformat(b["eventTime"]["max"].replace("Z", "+00:00")).timestamp()
        oldest = datetime.fromisoformat(b["eventTime"]["min"].replace("Z", "+00:00")).timestamp()
        lags.append((end - newest, end - oldest))
    print(f"live: {sent[0]:,} events offered at {sent[0] / produced_for:,.0f}/s for "
          f"{produced_for:.0f}s; {processed:,} counted, the last "
          f"{caught_up - produced_for:.0f}s after the producer stopped")  # fmt: skip
    newest_lag = sorted(lag[0] for lag in lags)
    oldest_lag = sorted(lag[1] for lag in lags)
    print(f"  lag, event to counted (oldest event of a batch): "
          f"p50 {statistics.median(oldest_lag):.1f}s, max {max(oldest_lag):.1f}s; newest event "
          f"p50 {statistics.median(newest_lag):.1f}s; {len(batches)} batches")  # fmt: skip
    print(
        f"  tables: a minute is final {watermark:.0f}s (watermark) after its end, "
        "written at the next trigger"
    )


def new_config(bootstrap: str, root: Path, **extra: Any) -> PipelineConfig:
    config = PipelineConfig(
        bootstrap, namespace=f"b{uuid.uuid4().hex[:8]}.", tables=str(root / "tables"),
        checkpoints=str(root / "checkpoints"), shuffle_partitions=2, **extra,
    )  # fmt: skip
    admin = AdminClient({"bootstrap.servers": bootstrap})
    topic = NewTopic(config.activity_topic, 4, 1)
    admin.create_topics([topic], operation_timeout=30)[config.activity_topic].result()
    return config


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backlog", type=int, default=600_000)
    parser.add_argument("--rate", type=int, default=20_000)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--watermark", type=float, default=10.0)
    parser.add_argument("--per-record", type=int, default=500, help="events per Kafka record")
    args = parser.parse_args()
    with kafka() as bootstrap, tempfile.TemporaryDirectory(prefix="mqk-bench-pipe-") as tmp:
        began = time.monotonic()
        spark = build_session("bench-pipeline", master="local[2]", shuffle_partitions=2)
        print(f"spark session (connectors resolved): {time.monotonic() - began:.1f}s")
        try:
            backlog(spark, bootstrap, Path(tmp), args.backlog, args.per_record)
            live(
                spark, bootstrap, Path(tmp), args.rate, args.seconds, args.watermark,
                args.per_record,
            )  # fmt: skip
        finally:
            spark.stop()


if __name__ == "__main__":
    main()
