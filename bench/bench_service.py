"""The broker service on a real Kafka: throughput, fan-out, latency, state backends, restart.

Every figure comes from one run on one broker, side by side, so the ratios hold on a noisy
machine. The service runs as a real ``mqk serve`` subprocess; publications are pre-filled on
the stream queue as datagrams (no replies) while it is stopped, and the run is timed from the
first to the last delivery committed on the subscriber queues.

Run: ``python -m bench.bench_service [--records N] [--only NAME ...]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition

from bench.bench_relay import plain_relay
from bench.kafka_env import Headers, committed_reader, create_topic, fill, kafka, kafka_settings
from mqkafka.client.kafka_pubsub import KafkaPubSub, command_message
from mqkafka.kafka.clientconfig import load_client_config
from mqkafka.kafka.provision import apply_catalogue
from mqkafka.mq.commands import DEFAULT_STREAM
from mqkafka.mq.mqmd import MQMD, MQPER
from mqkafka.wire.headers import mqmd_to_headers
from mqkafka.wire.names import queue_to_topic

MQK = str(Path(sys.executable).with_name("mqk"))


class Service:
    def __init__(self, bootstrap: str, namespace: str, state_dir: Path, *extra: str) -> None:
        self.args = [
            MQK, "serve", "--bootstrap-servers", bootstrap, "--namespace", namespace,
            "--state-dir", str(state_dir), "--instance-id", "bench", *extra,
        ]  # fmt: skip
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> float:
        began = time.perf_counter()
        self.proc = subprocess.Popen(self.args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            if b"broker ready" in line:
                threading.Thread(target=self._drain, daemon=True).start()
                return time.perf_counter() - began
        raise RuntimeError("mqk serve exited before it was ready")

    def _drain(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        for _ in self.proc.stderr:
            pass

    def cpu_seconds(self) -> float:
        """CPU time of the service process so far (all its threads)."""
        assert self.proc is not None
        return cpu_seconds(f"/proc/{self.proc.pid}/stat")

    def main_thread_cpu_seconds(self) -> float:
        """CPU time of the thread that runs Python (the one that holds the GIL)."""
        assert self.proc is not None
        return cpu_seconds(f"/proc/{self.proc.pid}/task/{self.proc.pid}/stat")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(120)


def cpu_seconds(stat: str) -> float:
    """User + system CPU seconds from a /proc stat file."""
    fields = Path(stat).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def local_broker_pid(bootstrap: str) -> int | None:
    """The process listening on the first bootstrap address's port when it runs on this
    machine (a broker elsewhere, or one this user cannot see: None)."""
    port = int(bootstrap.split(",")[0].rsplit(":", 1)[1])
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as rows:
            for row in list(rows)[1:]:
                fields = row.split()  # local address hex ip:port, state 0A = LISTEN
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(f"socket:[{fields[9]}]")
    if not inodes:
        return None
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if any(os.readlink(fd) in inodes for fd in (entry / "fd").iterdir()):
                    return int(entry.name)
    return None


def publication(size: int, persistent: bool, topic: str = "Bench/Topic") -> tuple[bytes, Headers]:
    md = MQMD(Persistence=MQPER.PERSISTENT if persistent else MQPER.NOT_PERSISTENT)
    md, value = command_message([("Command", "Publish"), ("Topic", topic)], body=b"x" * size, md=md)
    return value, mqmd_to_headers(md)


def delivered_span(
    bootstrap: str, topics: list[str], expect: int, timeout: float = 600
) -> tuple[int, float]:
    """Read ``expect`` committed records from ``topics``; (count, seconds first→last commit)."""
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
    return seen, last - (first or last)


CPU_US: list[float] = []  # the service's CPU µs per publication, one entry per throughput run
# per copy written, one entry per throughput run: CPU µs of the service's Python thread, of
# its other threads (librdkafka's), and of the broker's JVM when it runs on this machine
CPU_SPLIT: list[tuple[float, float, float | None]] = []


def wait_committed(
    bootstrap: str, group: str, topic: str, records: int, timeout: float = 600
) -> None:
    """Until ``group`` has committed ``records`` offsets of ``topic`` (all of its partitions)."""
    consumer = Consumer({**kafka_settings(bootstrap), "group.id": group})
    try:
        partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        asked = [TopicPartition(topic, p) for p in partitions]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            done = sum(max(tp.offset, 0) for tp in consumer.committed(asked, timeout=10))
            if done >= records:
                return
            time.sleep(0.2)
        raise TimeoutError(f"{group} committed too little of {topic}")
    finally:
        consumer.close()


def namespace_for(bootstrap: str) -> str:
    ns = f"b{uuid.uuid4().hex[:6]}."
    apply_catalogue(load_client_config(bootstrap), prefix=ns)
    return ns


def throughput(
    bootstrap: str,
    records: int,
    size: int,
    fanout: int,
    *,
    persistent: bool = False,
    memory: bool = False,
    activity: bool = True,
    new_msg_ids: bool = False,
) -> float:
    """Publications per second through the service (fan-out copies counted once); the
    service's CPU time per publication is left in ``CPU_US`` (µs)."""
    ns = namespace_for(bootstrap)
    extra = [*(["--in-memory-state"] if memory else []), *([] if activity else ["--no-activity"])]
    with tempfile.TemporaryDirectory() as state:
        service = Service(bootstrap, ns, Path(state), *extra)
        service.start()
        client = KafkaPubSub(load_client_config(bootstrap), namespace=ns)
        queues = [f"BENCH.SUB{i}" for i in range(fanout)]
        for queue in queues:
            assert client.register("Bench/#", queue=queue).ok  # type: ignore[union-attr]
        client.close()
        # The stream is filled while the service is stopped, as the relay's input is filled
        # before it runs: the producer does not compete with the service for the CPU.
        service.stop()
        value, fixed = publication(size, persistent)

        def with_msg_id(i: int) -> Headers:
            return [*fixed, ("mqmd.MsgId", (i + 1).to_bytes(24, "big"))]

        # with new_msg_ids, as MQ puts them (MQPMO_NEW_MSG_ID): a MsgId header per message
        headers = with_msg_id if new_msg_ids else fixed
        fill(bootstrap, queue_to_topic(DEFAULT_STREAM, ns), records, headers=headers, value=value)
        service.start()
        jvm = local_broker_pid(bootstrap)
        jvm_stat = None if jvm is None else f"/proc/{jvm}/stat"
        before = (service.cpu_seconds(), service.main_thread_cpu_seconds())
        jvm_before = 0.0 if jvm_stat is None else cpu_seconds(jvm_stat)
        # The copies are read once the service is done (their timestamps are when it wrote
        # them), so no reader competes with it for the CPU either.
        stream = queue_to_topic(DEFAULT_STREAM, ns)
        wait_committed(bootstrap, ns + "mqk-broker", stream, records)
        total = service.cpu_seconds() - before[0]
        main = service.main_thread_cpu_seconds() - before[1]
        jvm_used = None if jvm_stat is None else cpu_seconds(jvm_stat) - jvm_before
        CPU_US.append(total / records * 1e6)
        per_copy = 1e6 / (records * fanout)  # µs per copy of one CPU second
        jvm_per_copy = None if jvm_used is None else jvm_used * per_copy
        CPU_SPLIT.append((main * per_copy, (total - main) * per_copy, jvm_per_copy))
        service.stop()
        seen, span = delivered_span(
            bootstrap, [queue_to_topic(q, ns) for q in queues], records * fanout
        )
    assert seen == records * fanout, f"{seen} of {records * fanout} delivered"
    return records / span


def relay_baseline(bootstrap: str, records: int, size: int) -> float:
    """The relay's records/s, timed as the service is: first to last record it wrote."""
    value, headers = publication(size, False)
    source, target = create_topic(bootstrap), create_topic(bootstrap)
    fill(bootstrap, source, records, headers=headers, value=value)
    plain_relay(bootstrap, source, target, records)
    seen, span = delivered_span(bootstrap, [target], records)
    assert seen == records, f"the relay wrote {seen} of {records}"
    return records / span


def latency(
    bootstrap: str, rate: int, seconds: float, size: int
) -> tuple[float, float, float, float]:
    """p50 / p99 / max put-to-delivery (ms) at a steady ``rate`` of publications per second
    over ``seconds`` after a first second, and that first second's p99.

    In a full run this comes after the throughput runs, on a warm broker. Alone
    (``--only latency``) on a broker just started, it measures the broker's JVM warming up:
    p99 of seconds, whatever the service does; give such a broker a few minutes of load
    (``MQK_BOOTSTRAP_SERVERS`` to reuse it) before reading the figure. Publications not
    delivered by the deadline count as infinitely late, so the percentiles say so."""
    ns = namespace_for(bootstrap)
    with tempfile.TemporaryDirectory() as state:
        service = Service(bootstrap, ns, Path(state))
        service.start()
        client = KafkaPubSub(load_client_config(bootstrap), namespace=ns)
        assert client.register("Bench/#", queue="BENCH.LAT").ok  # type: ignore[union-attr]
        client.close()
        topic = queue_to_topic("BENCH.LAT", ns)
        consumer = Consumer(
            {
                **kafka_settings(bootstrap),
                "group.id": uuid.uuid4().hex,
                "isolation.level": "read_committed",
                "fetch.wait.max.ms": 1,
                "enable.auto.commit": False,
            }
        )
        consumer.assign([TopicPartition(topic, 0, -1)])
        consumer.consume(1, 1.0)  # connected and positioned before the first publication
        stream = queue_to_topic(DEFAULT_STREAM, ns)
        producer = Producer({**kafka_settings(bootstrap), "linger.ms": 0})
        # one second more at the start: the service's first publications take the engine's
        # path, open partitions and make plans; that second is reported apart
        total = int(rate * (seconds + 1))
        samples: list[float] = []

        def put() -> None:
            start = time.perf_counter()
            for i in range(total):
                target = start + i / rate
                while time.perf_counter() < target:
                    time.sleep(max(0.0, min(0.001, target - time.perf_counter())))
                # The put time travels in the body, which reaches the subscriber unchanged.
                body = f"{time.time():.6f}".encode().ljust(size, b" ")
                md, value = command_message(
                    [("Command", "Publish"), ("Topic", "Bench/Latency")], body=body
                )
                producer.produce(stream, value=value, headers=mqmd_to_headers(md))
                producer.poll(0)
            producer.flush(30)

        sender = threading.Thread(target=put)
        sender.start()
        deadline = time.monotonic() + seconds + 30
        while len(samples) < total and time.monotonic() < deadline:
            message = consumer.poll(0.01)  # one at a time: no waiting for a batch to fill
            if message is not None and message.error() is None:
                now = time.time()
                sent_at = float(message.value()[-size:].split(b" ", 1)[0])
                samples.append(now - sent_at)
        sender.join()
        consumer.close()
        if os.environ.get("MQK_BENCH_DEBUG"):
            per_second = [sorted(samples[i : i + rate]) for i in range(0, len(samples), rate)]
            p99s = [round(s[int(len(s) * 0.99) - 1] * 1000) for s in per_second]
            print("p99 per second (ms):", p99s)
        service.stop()
    # what had not arrived by the deadline is later than anything that had
    samples += [math.inf] * (total - len(samples))
    first = sorted(samples[:rate])
    samples = sorted(samples[rate:])
    return (
        statistics.median(samples) * 1000,
        samples[int(len(samples) * 0.99) - 1] * 1000,
        samples[-1] * 1000,
        first[int(len(first) * 0.99) - 1] * 1000,
    )


def restart(bootstrap: str, retained: int, subscriptions: int) -> dict[str, float]:
    """Serving again with the RocksDB directory kept, and the rebuild when it is lost."""
    from mqkafka.engine.identity import Identity
    from mqkafka.engine.records import Publication, Subscription, SubscriptionKey
    from mqkafka.engine.topicspace import ROOT
    from mqkafka.mq.commands import Interface, PublicationContent, RegOpt
    from mqkafka.mq.topics import Scheme, TopicFilter, TopicString
    from mqkafka.state import codec

    ns = namespace_for(bootstrap)
    producer = Producer(
        {
            **kafka_settings(bootstrap),
            "linger.ms": 50,
            "batch.num.messages": 10000,
            "queue.buffering.max.messages": 2000000,
            "compression.type": "lz4",
        }
    )

    def send(topic: str, key: bytes, value: bytes) -> None:
        while True:
            try:
                producer.produce(topic, key=key, value=value)
                return
            except BufferError:
                producer.poll(0.05)

    content = PublicationContent(body=b"x" * 64)
    for i in range(retained):
        pub = Publication(ROOT, TopicString(f"State/{i % 1000}/{i}"), content, Interface.RFH2, 0, 0)
        send(
            ns + "mqk-retained",
            codec.retained_key(ROOT, pub.topic.text),
            codec.encode_retained(pub),
        )
    for i in range(subscriptions):
        key = SubscriptionKey(
            ROOT, Identity(f"Q{i % 500}", "QM1", None), TopicFilter(f"Sub/{i}/#", Scheme.TOPIC)
        )
        sub = Subscription(
            key, "bench", RegOpt.NONE, Interface.RFH2, b"MQKC" + i.to_bytes(20, "big")
        )
        send(ns + "mqk-subscriptions", codec.subscription_key(key), codec.encode_subscription(sub))
    producer.flush(300)
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as state:
        service = Service(bootstrap, ns, Path(state))
        figures["rebuild from Kafka (no RocksDB)"] = service.start()
        service.stop()
        figures["restart with RocksDB kept"] = service.start()
        service.stop()
    return figures


def cpu_per_copy(label: str, runs: list[tuple[float, float, float | None]]) -> dict[str, Any]:
    """Where a copy's CPU goes (medians of the runs). The Python thread holds one core; what
    the client threads and a local broker do runs beside it, so on a 2-core machine their sum
    bounds the copies per second even if the Python thread cost nothing."""
    main = statistics.median(run[0] for run in runs)
    clients = statistics.median(run[1] for run in runs)
    jvms = [run[2] for run in runs if run[2] is not None]
    figures: dict[str, Any] = {
        f"{label} CPU µs per copy: service's Python thread": main,
        f"{label} CPU µs per copy: service's librdkafka threads": clients,
    }
    if jvms:
        jvm = statistics.median(jvms)
        figures[f"{label} CPU µs per copy: local broker JVM"] = jvm
        figures[f"{label} copies/s the second core allows (librdkafka + JVM)"] = 1e6 / (
            clients + jvm
        )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    # 300k: with 100k a relay's figure is mostly its start (350k/s, against 120-130k/s after)
    parser.add_argument("--records", type=int, default=300_000)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--retained", type=int, default=1_000_000)
    parser.add_argument("--subscriptions", type=int, default=100_000)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()

    def want(name: str) -> bool:
        return args.only is None or name in args.only

    results: dict[str, Any] = {}
    with kafka() as bootstrap:
        n, size = args.records, args.size
        if want("throughput"):
            # Short runs on a shared machine are noisy: the relay, fan-out 1 and the run
            # without activity events are each the median of three, interleaved.
            # So are the other variants measured against fan-out 1: a single run swings ±25%.
            relays, fan1s, quiets, memories, persistents, fan10s, mq_idss = ([] for _ in range(7))
            cpu_with, cpu_without, split1, split10 = [], [], [], []
            for _ in range(3):
                relays.append(relay_baseline(bootstrap, n, size))
                fan1s.append(throughput(bootstrap, n, size, 1))
                cpu_with.append(CPU_US[-1])
                split1.append(CPU_SPLIT[-1])
                quiets.append(throughput(bootstrap, n, size, 1, activity=False))
                cpu_without.append(CPU_US[-1])
                memories.append(throughput(bootstrap, n, size, 1, memory=True))
                persistents.append(throughput(bootstrap, n, size, 1, persistent=True))
                fan10s.append(throughput(bootstrap, n // 2, size, 10))  # 5 copies per record
                split10.append(CPU_SPLIT[-1])
                mq_idss.append(throughput(bootstrap, n, size, 1, new_msg_ids=True))
            relay, fan1, quiet, memory, persistent, fan10, mq_ids = (
                sorted(runs)[1]
                for runs in (relays, fan1s, quiets, memories, persistents, fan10s, mq_idss)
            )
            results |= {
                "batched confluent-kafka relay (records/s, median of 3)": relay,
                "relay runs (records/s)": [round(r) for r in relays],
                "fan-out 1 publications/s (median of 3)": fan1,
                "fan-out 1 runs": [round(r) for r in fan1s],
                "fan-out 1 / relay": fan1 / relay,
                "fan-out 10 copies/s (median of 3)": fan10 * 10,
                "fan-out 10 copies / fan-out 1 publications": fan10 * 10 / fan1,
                "in-memory state publications/s (median of 3)": memory,
                "RocksDB / in-memory": fan1 / memory,
                "persistent publications/s (median of 3)": persistent,
                "persistent / non-persistent": persistent / fan1,
                "fan-out 1 with a new MsgId per publication publications/s (median of 3)": mq_ids,
                "without activity events publications/s (median of 3)": quiet,
                "without activity runs": [round(r) for r in quiets],
                "activity events cost (1 - with / without)": 1 - fan1 / quiet,
                "service CPU µs per publication with / without activity (medians)": [
                    sorted(cpu_with)[1],
                    sorted(cpu_without)[1],
                ],
                "activity events' share of the service's CPU": 1
                - sorted(cpu_without)[1] / sorted(cpu_with)[1],
                **cpu_per_copy("fan-out 1", split1),
                **cpu_per_copy("fan-out 10", split10),
            }
        if want("latency"):
            p50, p99, worst, start_p99 = latency(bootstrap, 1000, 10.0, size)
            results |= {
                "latency p50 ms @1000/s": p50,
                "latency p99 ms @1000/s": p99,
                "latency max ms @1000/s": worst,
                "latency p99 ms in the first second after start": start_p99,
            }
        if want("restart"):
            results |= {
                f"{k} (s)": v
                for k, v in restart(bootstrap, args.retained, args.subscriptions).items()
            }
    print(json.dumps({"records": args.records, "size": args.size, **results}, indent=2))


if __name__ == "__main__":
    main()
