"""JMS v6 (migration mode) publish-to-receive through ``mqk listen`` and ``mqk serve``: the
rate and p50/p99 latency of non-persistent publications from a JMS producer to a JMS message
listener on the same connection (issue 33's figure); prints figures.

    python -m bench.bench_channel_jms [--n 1000] [--size 256] [--broker-version 2]

Uses the broker in $MQK_BOOTSTRAP_SERVERS, or starts a throw-away local one. Needs Maven and
a JDK (IBM's client from Maven Central, as bench_channel). Two phases: one publication at a
time (each one's own latency), then ``--n`` flat out (the rate from the first send to the last
receive, and the latencies under that load).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from confluent_kafka import Consumer, TopicPartition
from devsupport.javaclient import client_jars, compile_programs, java_command

from bench.kafka_env import kafka, kafka_settings
from mqkafka.kafka.localbroker import free_port
from mqkafka.kafka.provision import apply_catalogue

ROOT = Path(__file__).resolve().parents[1]


def _started(log: Path, marker: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while marker not in log.read_text(errors="replace"):
        if time.monotonic() > deadline:
            raise SystemExit(f"no {marker!r} in {log}")
        time.sleep(0.3)


def record_times(bootstrap: str, topic: str) -> list[int]:
    """The create times (ms) of every record of ``topic``, oldest first."""
    consumer = Consumer(
        {**kafka_settings(bootstrap), "group.id": f"bench-{uuid.uuid4().hex[:6]}",
         "enable.auto.commit": False, "enable.partition.eof": True}
    )  # fmt: skip
    try:
        partitions = list(consumer.list_topics(topic, timeout=10).topics[topic].partitions)
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        times: list[int] = []
        ended: set[int] = set()
        deadline = time.monotonic() + 60
        while len(ended) < len(partitions) and time.monotonic() < deadline:
            for record in consumer.consume(1000, 0.5):
                if record.error() is not None:
                    ended.add(record.partition())
                else:
                    times.append(record.timestamp()[1])
        return sorted(times)
    finally:
        consumer.close()


def hops(stdout: str, stream: list[int], delivered: list[int]) -> list[tuple[str, list[int]]]:
    """Per publication of the one-at-a-time phase, the time of each hop (ms). Its publications
    are the last ones before the flat-out phase, and nothing else is published meanwhile."""
    walls = [(int(a), int(b)) for a, b in re.findall(r"^ONE (\d+) (\d+)$", stdout, re.M)]
    first = 10  # the warm-up's publications come first
    rows = [
        (stream[first + i] - sent, delivered[first + i] - stream[first + i],
         got - delivered[first + i])
        for i, (sent, got) in enumerate(walls[first:])
        if first + i < min(len(stream), len(delivered))
    ]  # fmt: skip
    names = ("JMS send -> stream record", "stream -> subscriber-queue record (engine)",
             "subscriber-queue record -> listener call")  # fmt: skip
    return [(name, sorted(row[k] for row in rows)) for k, name in enumerate(names)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--broker-version", choices=("1", "2"), default="2")
    args = parser.parse_args()
    jars = client_jars()
    with kafka() as bootstrap, tempfile.TemporaryDirectory() as classes:
        compile_programs(jars, Path(classes), [ROOT / "bench/java/JmsPubSubBench.java"])
        namespace = f"b{uuid.uuid4().hex[:6]}."
        apply_catalogue(bootstrap, prefix=namespace)
        common = ["--bootstrap-servers", bootstrap, "--namespace", namespace]
        mqk = [sys.executable, "-m", "mqkafka.cli"]
        env = {**os.environ, "MQK_HOME": str(Path(classes) / "home")}  # never the user's ~/.mqk
        serve_log, listen_log = Path(classes) / "serve.log", Path(classes) / "listen.log"
        serve = subprocess.Popen(
            [*mqk, "serve", *common, "--instance-id", "bench", "--state-dir",
             str(Path(classes) / "state")],
            stdout=subprocess.DEVNULL, stderr=serve_log.open("w"), env=env,
        )  # fmt: skip
        port = free_port()
        listener = subprocess.Popen(
            [*mqk, "listen", *common, "--port", str(port)],
            stdout=subprocess.DEVNULL, stderr=listen_log.open("w"), env=env,
        )  # fmt: skip
        try:
            _started(serve_log, "broker ready")
            _started(listen_log, "listening on")
            done = subprocess.run(
                java_command(jars, Path(classes), "JmsPubSubBench", "127.0.0.1", str(port),
                             args.broker_version, str(args.n), str(args.size)),
                capture_output=True, text=True, check=False, cwd=classes,
            )  # fmt: skip
        finally:
            for proc in (listener, serve):
                proc.send_signal(signal.SIGTERM)
                proc.wait(60)
        stream = record_times(bootstrap, f"{namespace}SYSTEM.BROKER.DEFAULT.STREAM")
        delivered = record_times(bootstrap, f"{namespace}SYSTEM.JMS.ND.SUBSCRIBER.QUEUE")
        if done.returncode != 0:
            raise SystemExit(done.stdout + done.stderr[-3000:])
        rate = re.search(r"^RATE ([\d.]+)$", done.stdout, re.M)
        print(f"JMS v6 broker version V{args.broker_version}, {args.size}-byte non-persistent "
              f"publications, producer and listener on one connection")  # fmt: skip
        for phase, p50, p99 in re.findall(
            r"^LAT (\S+) p50 ([\d.]+) p99 ([\d.]+)$", done.stdout, re.M
        ):
            print(
                f"{phase:<14} publish-to-receive p50 {float(p50):8.1f} ms"
                f"   p99 {float(p99):8.1f} ms"
            )
        for name, times in hops(done.stdout, stream, delivered):
            if times:
                print(f"  one at a time, {name:<44} p50 {times[len(times) // 2]:6d} ms"
                      f"   max {times[-1]:6d} ms")  # fmt: skip
        if rate:
            print(f"flat out ({args.n}): {float(rate.group(1)):,.0f} publications/s")


if __name__ == "__main__":
    main()
