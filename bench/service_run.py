"""One timed run of ``mqk serve`` workers over the benchmark corpus, and what it measured.

``throughput`` starts the workers (``Service``: a real ``mqk serve`` subprocess each), fills
the stream queue with the corpus while they hold their partitions, releases it at once and
times the run from the first to the last copy committed on the subscriber queues; the
workers' CPU (process, Python thread), the broker JVM's, each worker's partitions and
transactions are left in the module's lists (``CPU_US``, ``CPU_SPLIT``, ``LAST_WORKERS``,
...). ``bench_service`` makes its figures from such runs; other benchmarks use the runs
alone. ``MQK`` is the command the workers run (a benchmark may swap it, as
``bench_resilience`` does for a service without its checks).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, TopicPartition
from prometheus_client.parser import text_string_to_metric_families

from bench import corpus
from bench.bench_relay import RELAYS, RelayFigures, plain_relay, relay_rate
from bench.kafka_env import (
    committed_reader,
    cpu_seconds,
    create_topic,
    kafka_settings,
    local_broker_pid,
)
from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.kafka import clients, topicadmin
from mqkafka.kafka.clientconfig import load_client_config
from mqkafka.kafka.localbroker import free_port
from mqkafka.kafka.provision import apply_catalogue
from mqkafka.mq.commands import DEFAULT_STREAM
from mqkafka.wire.names import queue_to_topic

MQK = str(Path(sys.executable).with_name("mqk"))


class Service:
    def __init__(
        self,
        bootstrap: str,
        namespace: str,
        state_dir: Path,
        *extra: str,
        env: dict[str, str] | None = None,
        instance: str = "bench",
    ) -> None:
        self.env = {**os.environ, **(env or {})}
        self.instance = instance
        self.metrics_port = free_port()  # its transactions, read per worker
        self.args = [
            MQK, "serve", "--bootstrap-servers", bootstrap, "--namespace", namespace,
            "--state-dir", str(state_dir), "--instance-id", instance,
            "--metrics-port", str(self.metrics_port), *extra,
        ]  # fmt: skip
        self.proc: subprocess.Popen[bytes] | None = None

    def counters(self) -> dict[str, float]:
        """Its transactions and publications so far (its Prometheus endpoint)."""
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as answer:
            text = answer.read().decode()
        found = {"transactions": 0.0, "publications": 0.0}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                for name in found:
                    if sample.name == f"mqk_{name}_total":
                        found[name] += sample.value
        return found

    def start(self) -> float:
        began = time.perf_counter()
        self.proc = subprocess.Popen(
            self.args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=self.env
        )
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

    def peak_rss_kb(self) -> int:
        """The service process's peak resident memory so far (VmHWM, kB)."""
        assert self.proc is not None
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return 0

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(120)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)


def delivered_span(
    bootstrap: str, topics: list[str], expect: int, timeout: float = 600
) -> tuple[int, int, float]:
    """Read ``expect`` committed records from ``topics``: (records read, copies timed,
    seconds from the first timed copy to the last, by the times the service wrote them).

    Warm-up copies are read, not timed; nor is any copy written before the last warm-up
    copy: the warm-ups come first in each partition of the stream, but the service reads the
    partitions side by side, so the first timed copies are written while it still makes the
    plans of other partitions' warm-ups (the engine's path: that time is not the replayed
    path's). What follows the last warm-up copy is replayed plans only."""
    consumer = committed_reader(bootstrap)
    consumer.subscribe(topics)
    seen, warm_until, times = 0, 0, []
    deadline = time.monotonic() + timeout
    try:
        while seen < expect and time.monotonic() < deadline:
            for message in consumer.consume(10000, 0.5):
                if message.error() is None:
                    seen += 1
                    ts = message.timestamp()[1]
                    if (message.value() or b"").endswith(corpus.WARM_UP):
                        warm_until = max(warm_until, ts)
                    else:
                        times.append(ts)
    finally:
        consumer.close()
    timed = sorted(t for t in times if t > warm_until)
    return seen, len(timed), (timed[-1] - timed[0]) / 1000.0 if timed else 0.0


CPU_US: list[float] = []  # the service's CPU µs per publication, one entry per throughput run
# per copy written, one entry per throughput run: CPU µs of the service's Python thread, of
# its other threads (librdkafka's), and of the broker's JVM when it runs on this machine
CPU_SPLIT: list[tuple[float, float, float | None]] = []


def wait_committed(
    bootstrap: str,
    group: str,
    topic: str,
    records: int,
    timeout: float = 600,
    interval: float = 0.2,
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
            time.sleep(interval)
        raise TimeoutError(f"{group} committed too little of {topic}")
    finally:
        consumer.close()


def partitions_of(bootstrap: str, topic: str) -> int:
    admin = clients.admin(load_client_config(bootstrap))
    return len(admin.list_topics(topic, timeout=10).topics[topic].partitions)


def wait_members(
    bootstrap: str, group: str, topic: str, members: int, timeout: float = 300
) -> None:
    """Until ``group`` has ``members`` members, each assigned a partition of ``topic``."""
    admin = clients.admin(load_client_config(bootstrap))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = admin.describe_consumer_groups([group])[group].result(10).members or []
        workers = {m.client_id for m in found}  # a worker is a member per topic it reads
        holding = {
            m.client_id
            for m in found
            if any(tp.topic == topic for tp in m.assignment.topic_partitions)
        }
        if len(workers) == members and len(holding) == members:
            return
        time.sleep(0.2)
    raise TimeoutError(f"{group} never had {members} members holding {topic}")


def namespace_for(bootstrap: str) -> str:
    ns = f"b{uuid.uuid4().hex[:6]}."
    apply_catalogue(load_client_config(bootstrap), prefix=ns)
    return ns


LAST_RELAYS: dict[str, RelayFigures] = {}
# per worker of the last throughput run: its partitions, CPU µs per publication of the run,
# transactions/s, publications per transaction
LAST_WORKERS: list[dict[str, Any]] = []


def holdings(bootstrap: str, group: str) -> dict[str, list[str]]:
    """Per worker (its instance), the partitions it holds: "topic[p]", namespace left off."""
    admin = clients.admin(load_client_config(bootstrap))
    members = admin.describe_consumer_groups([group])[group].result(10).members or []
    held: dict[str, list[str]] = {}
    for m in members:
        worker = m.client_id.split("@")[0].removeprefix("mqk-serve-")
        for tp in m.assignment.topic_partitions:
            short = tp.topic.rsplit(".", 1)[-1] if tp.topic.count(".") else tp.topic
            held.setdefault(worker, []).append(f"{short}[{tp.partition}]")
    return {w: sorted(p) for w, p in sorted(held.items())}


LAST_RSS: list[int] = []  # the service's peak RSS (kB) of the last throughput run


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
    best: bool = False,
    relays: bool = False,
    max_message_bytes: int | None = None,
    warm: bool = False,
    workers: int = 1,
) -> float:
    """Publications per second through the service (fan-out copies counted once) on the
    corpus (``size`` 0: its mix; ``best``: the old repeated lz4 body); the service's CPU time
    per publication is left in ``CPU_US`` (µs). With ``relays``, the relays of
    ``bench_relay`` read the same stream after it (``LAST_RELAYS``). With ``max_message_bytes``,
    the stream and the subscriber queues take records that large, and so does the service's
    producer. With ``warm``, one publication per topic of the tree goes first, and the
    figures are of what follows it (a service that has seen its topics: plans made). With
    ``workers``, that many ``mqk serve`` processes share the stream's 4 partitions (as an
    operator scales out); the CPU figures are their sums."""
    del persistent, new_msg_ids  # the corpus is non-persistent, each publication its own MsgId
    ns = namespace_for(bootstrap)
    extra = [*(["--in-memory-state"] if memory else []), *([] if activity else ["--no-activity"])]
    env = {}
    if max_message_bytes:
        env = {"MQK_KAFKA_MESSAGE_MAX_BYTES": str(max_message_bytes + 100_000)}
    with tempfile.TemporaryDirectory() as state:
        services = [
            Service(bootstrap, ns, Path(state), *extra, env=env, instance=f"bench{i}")
            for i in range(workers)
        ]
        try:
            service = services[0]
            queues = [f"BENCH.SUB{i}" for i in range(fanout)]
            stream = queue_to_topic(DEFAULT_STREAM, ns)
            if max_message_bytes:  # as an operator raises them: before the queues are used
                admin = clients.admin(load_client_config(bootstrap))
                big = {"max.message.bytes": str(max_message_bytes)}
                for topic in [queue_to_topic(q, ns) for q in queues]:
                    create_topic_named(bootstrap, topic, big)
                topicadmin.set_topic_configs(admin, stream, big)
            service.start()
            client = KafkaPubSub(load_client_config(bootstrap), namespace=ns)
            corpus.subscribe(client, queues)
            client.close()
            service.stop()
            limit = max_message_bytes + 100_000 if max_message_bytes else None
            producing = {"message.max.bytes": limit} if limit else {}
            # each worker sees every topic of the tree (more than one: in each partition)
            spread = 1 if workers == 1 else partitions_of(bootstrap, stream)
            for worker in services:
                worker.start()
            group = ns + "mqk-broker"
            wait_members(bootstrap, group, stream, workers)
            # The warm-ups once the group has settled: each worker makes the plans of its own
            # partitions. Put before, they were read by the first worker up before the second
            # joined, and the second made its plans in the timed run (issue 34: most of the CPU
            # per publication that a second worker seemed to add).
            warmed = corpus.fill_warm_up(bootstrap, stream, spread) if warm else 0
            if warmed:  # the warm-ups are first in each partition: read once they are done
                wait_committed(bootstrap, group, stream, warmed, interval=0.02)
            # The input shows all at once, the workers running: a full stream, as when a stopped
            # service starts again, but the workers hold their partitions, and no producer
            # competes with them for the CPU.
            _, release = corpus.fill_held(
                bootstrap, stream, records, size, best=best, producer_config=producing
            )
            jvm = local_broker_pid(bootstrap)
            jvm_stat = None if jvm is None else f"/proc/{jvm}/stat"

            def cpu() -> tuple[float, float]:  # the workers' processes and Python threads
                return (
                    sum(w.cpu_seconds() for w in services),
                    sum(w.main_thread_cpu_seconds() for w in services),
                )

            held = holdings(bootstrap, group)
            each_before = [
                (w.cpu_seconds(), w.main_thread_cpu_seconds(), w.counters()) for w in services
            ]
            before = cpu()
            jvm_before = 0.0 if jvm_stat is None else cpu_seconds(jvm_stat)
            began = time.monotonic()
            release()
            profiles = _profile(services)
            # The copies are read once the service is done (their timestamps are when it wrote
            # them), so no reader competes with it for the CPU either.
            wait_committed(bootstrap, group, stream, records + warmed)
            after = cpu()
            seconds = time.monotonic() - began
            for spy in profiles:
                spy.wait(60)
            LAST_WORKERS.clear()
            for w, (cpu_was, main_was, counted) in zip(services, each_before, strict=True):
                now = w.counters()
                busy = (w.main_thread_cpu_seconds() - main_was) / seconds
                txs = now["transactions"] - counted["transactions"]
                pubs = now["publications"] - counted["publications"]
                LAST_WORKERS.append({
                    "worker": w.instance,
                    "partitions": held.get(w.instance, []),
                    "CPU µs per publication (of all)": round(
                        (w.cpu_seconds() - cpu_was) / records * 1e6, 1
                    ),
                    "publications": int(pubs),
                    "transactions/s": round(txs / seconds, 1),
                    "publications per transaction": round(pubs / txs, 1) if txs else 0,
                    # the rest of the run its Python thread waited: for Kafka, or for a core
                    "Python thread busy": round(busy, 2),
                })  # fmt: skip
            total, main = after[0] - before[0], after[1] - before[1]
            LAST_RSS[:] = [max(w.peak_rss_kb() for w in services)]
            jvm_used = None if jvm_stat is None else cpu_seconds(jvm_stat) - jvm_before
            CPU_US.append(total / records * 1e6)
            per_copy = 1e6 / (records * fanout)  # µs per copy of one CPU second
            jvm_per_copy = None if jvm_used is None else jvm_used * per_copy
            CPU_SPLIT.append((main * per_copy, (total - main) * per_copy, jvm_per_copy))
            for worker in services:
                worker.stop()
            LAST_RELAYS.clear()
            if relays:  # the same input, read by each relay's own group, the service stopped
                for name, relay in RELAYS.items():
                    LAST_RELAYS[name] = relay_rate(bootstrap, relay, stream, records + warmed)
            expect = (records + warmed) * fanout
            topics = [queue_to_topic(q, ns) for q in queues]
            seen, timed, span = delivered_span(bootstrap, topics, expect)
        except BaseException:  # a failed run leaves no worker behind
            for worker in services:
                worker.kill()
            raise
    assert seen == expect, f"{seen} of {expect} delivered"
    return timed / fanout / max(span, 1e-3)


_PROFILED: list[int] = []  # the runs profiled so far


def _profile(services: list[Service]) -> list[subprocess.Popen[bytes]]:
    """With ``MQK_BENCH_PYSPY=DIR``: each worker's Python stacks for the first 10 s of the
    timed run, as py-spy's raw (collapsed) counts in DIR/<instance>-<run>.txt (``run``
    counts the throughput runs of this process: an activity-off run beside keeps its own)."""
    folder = os.environ.get("MQK_BENCH_PYSPY")
    spy = str(Path(sys.executable).with_name("py-spy"))
    if not folder or not Path(spy).exists():
        return []
    _PROFILED.append(len(_PROFILED))
    run = len(_PROFILED)
    # native frames (librdkafka's, the interpreter's) need the process paused at each sample
    native = ["--native"] if os.environ.get("MQK_BENCH_PYSPY_NATIVE") else ["--nonblocking"]
    return [
        subprocess.Popen(
            [
                spy,
                "record",
                "-p",
                str(w.proc.pid),
                "-d",
                "10",
                "-r",
                os.environ.get("MQK_BENCH_PYSPY_RATE", "50"),
                "-f",
                "raw",
                *native,
                "--threads",
                "-o",
                f"{folder}/{w.instance}-{run}.txt",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for w in services
        if w.proc is not None
    ]


def create_topic_named(bootstrap: str, topic: str, config: dict[str, str]) -> None:
    admin = clients.admin(load_client_config(bootstrap))
    request = topicadmin.TopicRequest(topic, 1, -1, config)
    topicadmin.create_topics(admin, [request])


def relay_baseline(bootstrap: str, records: int, size: int) -> float:
    """The batched plain relay's records/s on the corpus, timed as the service is."""
    source = create_topic(bootstrap, partitions=4)  # as the default stream
    corpus.fill(bootstrap, source, records, size)
    return relay_rate(bootstrap, plain_relay, source, records).rate
