"""JMS v6 (migration mode) publish-to-receive through ``mqk listen`` and ``mqk serve``: the
rate and p50/p99 latency of non-persistent publications from a JMS producer to a JMS message
listener on the same connection (issue 33's figure); prints figures.

    python -m bench.bench_channel_jms [--n 1000] [--size 256] [--broker-version 2]

Uses the broker in $MQK_BOOTSTRAP_SERVERS, or starts a throw-away local one. Needs Maven and
a JDK (IBM's client from Maven Central, as bench_channel). Two phases: one publication at a
time (each one's own latency), then ``--n`` flat out (the rate from the first send to the last
receive, and the latencies under that load). The one-at-a-time phase is cut into hops by the
wall clock against the Kafka records: the stream record's and the subscriber-queue record's
create times, and when a read_committed reader of the subscriber queue first saw it (the
service's transaction committed). Then the same two phases from a Python MQI program on the
same service (a publisher connection; a subscriber getting by CorrelId from
``SYSTEM.JMS.ND.SUBSCRIBER.QUEUE``, as JMS does): what the listener and IBM's client add is
the difference.
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from confluent_kafka import OFFSET_END, Consumer, TopicPartition
from devsupport.javaclient import client_jars, compile_programs, java_command

from bench.kafka_env import kafka, kafka_settings
from mqkafka.kafka.localbroker import free_port
from mqkafka.kafka.provision import apply_catalogue
from mqkafka.mq.commands import RegOpt
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD, MQMIError
from mqkafka.mqi.kafkaqm.pubsub import PubSub, raise_for
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

ROOT = Path(__file__).resolve().parents[1]
SUBSCRIBERS = "SYSTEM.JMS.ND.SUBSCRIBER.QUEUE"  # JMS's shared non-durable subscriber queue
WARM_UP = 10  # publications before the one-at-a-time phase, on both sides


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


@contextmanager
def committed_watch(bootstrap: str, topic: str) -> Iterator[list[tuple[int, int]]]:
    """(create time, wall time first read) in ms of each record written to ``topic`` while the
    block runs, read by a read_committed consumer: when the record's transaction committed,
    as any reader of the queue can see."""
    seen: list[tuple[int, int]] = []
    stop = threading.Event()
    consumer = Consumer(
        {**kafka_settings(bootstrap), "group.id": f"bench-{uuid.uuid4().hex[:6]}",
         "enable.auto.commit": False, "isolation.level": "read_committed",
         "fetch.wait.max.ms": 100}  # a read_committed fetch returns at the commit
    )  # fmt: skip
    partitions = list(consumer.list_topics(topic, timeout=10).topics[topic].partitions)
    consumer.assign([TopicPartition(topic, p, OFFSET_END) for p in partitions])

    def watch() -> None:
        while not stop.is_set():
            # what has arrived, or the first to arrive: consume(n, t) alone waits for all n
            for record in consumer.consume(1000, 0) or consumer.consume(1, 0.1):
                if record.error() is None:
                    seen.append((record.timestamp()[1], int(time.time() * 1000)))

    watcher = threading.Thread(target=watch, daemon=True)
    consumer.consume(1, 1.0)  # positioned before the first publication
    watcher.start()
    try:
        yield seen
    finally:
        stop.set()
        watcher.join(10)
        consumer.close()


HOPS = ("JMS send -> stream record", "stream -> subscriber-queue record (engine)",
        "subscriber-queue record -> committed (read)",
        "committed -> listener call (MQGET, listener, JMS)")  # fmt: skip


def hops(
    stdout: str, stream: list[int], delivered: list[int], seen: list[tuple[int, int]]
) -> list[tuple[str, list[int]]]:
    """Per publication of the one-at-a-time phase, the time of each hop (ms). Its publications
    are the last ones before the flat-out phase, and nothing else is published meanwhile."""
    walls = [(int(a), int(b)) for a, b in re.findall(r"^ONE (\d+) (\d+)$", stdout, re.M)]
    read = dict(seen)  # create time -> first read: one at a time, each create time its own
    rows = [
        (stream[WARM_UP + i] - sent, delivered[WARM_UP + i] - stream[WARM_UP + i],
         read[delivered[WARM_UP + i]] - delivered[WARM_UP + i],
         got - read[delivered[WARM_UP + i]])
        for i, (sent, got) in enumerate(walls[WARM_UP:])
        if WARM_UP + i < min(len(stream), len(delivered)) and delivered[WARM_UP + i] in read
    ]  # fmt: skip
    return [(name, sorted(row[k] for row in rows)) for k, name in enumerate(HOPS)]


def percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, max(0, int(len(ordered) * fraction + 0.999999) - 1))]


class PythonSide:
    """The Python MQI doing what the JMS program does: a publisher connection, and a
    subscriber connection whose thread waits in MQGET by CorrelId on the shared subscriber
    queue; each arrival's latency from the send time the body carries."""

    def __init__(self, bootstrap: str, namespace: str, size: int) -> None:
        self.topic = "bench/jms/python"
        self.body = os.urandom(max(size - 8, 0))  # a body that does not compress
        self.sub = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace)
        self.pub = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace)
        self.correl = uuid.uuid4().bytes + bytes(8)
        self.commands = PubSub(self.sub)
        raise_for(self.commands.register_subscriber(
            [self.topic], queue=SUBSCRIBERS, options=RegOpt.CORREL_ID_AS_IDENTITY,
            correl_id=self.correl))  # fmt: skip
        self.publisher = PubSub(self.pub)
        self.arrived: queue.Queue[float] = queue.Queue()
        self._stop = threading.Event()
        self._getter = threading.Thread(target=self._get, daemon=True)
        self._getter.start()

    def _get(self) -> None:
        q = Queue(self.sub, SUBSCRIBERS, C.MQOO_INPUT_SHARED)
        while not self._stop.is_set():
            gmo = GMO(Version=2, Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT,
                      MatchOptions=C.MQMO_MATCH_CORREL_ID, WaitInterval=1000)  # fmt: skip
            try:
                value = q.get(None, MD(CorrelId=self.correl), gmo)
            except MQMIError as error:
                if error.reason == C.MQRC_NO_MSG_AVAILABLE:
                    continue
                raise
            (sent,) = struct.unpack(">d", value[-8:])
            self.arrived.put(time.perf_counter() - sent)
        q.close()

    def send(self) -> None:
        self.publisher.publish([self.topic], self.body + struct.pack(">d", time.perf_counter()))

    def run(self, count: int) -> tuple[list[float], list[float], float]:
        """Latencies (ms) one at a time and flat out, and the flat-out rate (a second)."""
        single = max(count // 10, 20)  # as JmsPubSubBench
        one = []
        for i in range(-WARM_UP, single):
            self.send()
            took = self.arrived.get(timeout=60)
            if i >= 0:
                one.append(took * 1000)
        began = time.perf_counter()
        for _ in range(count):
            self.send()
        flat = [self.arrived.get(timeout=120) * 1000 for _ in range(count)]
        return sorted(one), sorted(flat), count / (time.perf_counter() - began)

    def close(self) -> None:
        self._stop.set()
        self._getter.join(10)
        raise_for(self.commands.deregister_subscriber(
            [self.topic], queue=SUBSCRIBERS, options=RegOpt.CORREL_ID_AS_IDENTITY,
            correl_id=self.correl))  # fmt: skip
        self.commands.close()
        self.publisher.close()
        self.sub.disconnect()
        self.pub.disconnect()


def line(phase: str, p50: float, p99: float) -> str:
    return f"{phase:<26} publish-to-receive p50 {p50:8.1f} ms   p99 {p99:8.1f} ms"


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
            with committed_watch(bootstrap, f"{namespace}{SUBSCRIBERS}") as seen:
                done = subprocess.run(
                    java_command(jars, Path(classes), "JmsPubSubBench", "127.0.0.1",
                                 str(port), args.broker_version, str(args.n), str(args.size)),
                    capture_output=True, text=True, check=False, cwd=classes,
                )  # fmt: skip
            if done.returncode != 0:
                raise SystemExit(done.stdout + done.stderr[-3000:])
            python = PythonSide(bootstrap, namespace, args.size)
            try:
                py_one, py_flat, py_rate = python.run(args.n)
            finally:
                python.close()
        finally:
            for proc in (listener, serve):
                proc.send_signal(signal.SIGTERM)
                proc.wait(60)
        stream = record_times(bootstrap, f"{namespace}SYSTEM.BROKER.DEFAULT.STREAM")
        delivered = record_times(bootstrap, f"{namespace}{SUBSCRIBERS}")
        rate = re.search(r"^RATE ([\d.]+)$", done.stdout, re.M)
        print(f"{args.size}-byte non-persistent publications, broker version V{args.broker_version}"
              f" (JMS; the Python MQI's are RFH2 commands), load average "
              f"{os.getloadavg()[0]:.1f} at the end")  # fmt: skip
        print("JMS v6 via mqk listen, producer and listener on one connection:")
        for phase, p50, p99 in re.findall(
            r"^LAT (\S+) p50 ([\d.]+) p99 ([\d.]+)$", done.stdout, re.M
        ):
            print("  " + line(phase, float(p50), float(p99)))
        for name, times in hops(done.stdout, stream, delivered, seen):
            if times:
                print(f"    one at a time, {name:<50} p50 {times[len(times) // 2]:5d} ms"
                      f"   max {times[-1]:5d} ms")  # fmt: skip
        if rate:
            print(f"  flat out ({args.n}): {float(rate.group(1)):,.0f} publications/s")
        print("Python MQI, publisher and subscriber connections, MQGET by CorrelId:")
        for phase, took in (("one-at-a-time", py_one), ("flat-out", py_flat)):
            print("  " + line(phase, percentile(took, 0.5), percentile(took, 0.99)))
        print(f"  flat out ({args.n}): {py_rate:,.0f} publications/s")


if __name__ == "__main__":
    main()
