"""Issue 19's figures: how soon the service serves again, and whether anything is lost or
duplicated, when it is killed and when its Kafka restarts; prints figures, asserts nothing.

    python -m bench.bench_resilience [--subscriptions 100000] [--outage 60]
        [--publications 100000] [--records 100000] [--repeats 4]
        [--only restart|outage|faults|regsub|checks]

Every part runs on a throw-away local broker of its own (its JVM is killed and started
again), never on $MQK_BOOTSTRAP_SERVERS:

- restart: the state holds ``--subscriptions`` subscriptions (written to the state topic as
  the service writes them); the service is SIGKILLed and started again with its RocksDB
  directory (left unclean by the kill, so rebuilt from Kafka); the figure is from the new
  process's start to the first command answered (target <= 10 s).
- outage: the broker's JVM is killed, kept down ``--outage`` seconds and started again on the
  same port and data; the figure is from the broker answering again to the service answering
  a command (target <= 10 s), with the service's log lines while Kafka was away.
- faults: ``--publications`` persistent publications, put at a steady rate by an application
  producer with default settings, to 10 subscribers; meanwhile the service is SIGKILLed and
  restarted 3 times and the broker restarted 3 times; each subscriber queue is then read
  (read_committed) and its copies counted: lost and duplicated (target 0 and 0).
- regsub: RegSub/s through the service in bursts at the 1st, 1,000th and 3,000th
  subscription of one identity (bench_identity's service driver).
- checks: what point 1's destination checks (reserved names, ``max.message.bytes``) cost:
  fan-out-1 publications/s of ``bench_service.throughput`` (256 B corpus records) with them
  and without them (``bench/serve_unchecked.py``), ``--repeats`` alternating pairs on one
  broker; the ratio of the medians (target: under 3% lost).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.bench_identity import SERVICE_BURST, ServiceDriver
from mqkafka.client.kafka_pubsub import KafkaPubSub, command_message
from mqkafka.kafka import clients
from mqkafka.kafka.brokerjars import BrokerError
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.localbroker import LocalBroker, port_in_use
from mqkafka.kafka.provision import apply_catalogue
from mqkafka.mq.commands import DEFAULT_STREAM
from mqkafka.mq.mqmd import MQMD, MQPER
from mqkafka.wire.headers import mqmd_to_headers
from mqkafka.wire.names import queue_to_topic

MQK = str(Path(sys.executable).with_name("mqk"))


class Served:
    """One ``mqk serve`` whose log lines are kept (JSON lines on stderr)."""

    def __init__(
        self, bootstrap: str, namespace: str, state_dir: Path, debug: Path | None = None
    ) -> None:
        self.args = [
            MQK, "serve", "--bootstrap-servers", bootstrap, "--namespace", namespace,
            "--state-dir", str(state_dir), "--instance-id", "bench",
            *(["--log-level", "DEBUG"] if debug is not None else []),
        ]  # fmt: skip
        self.proc: subprocess.Popen[str] | None = None
        self.lines: list[str] = []  # what it says at INFO and above
        self.timed: list[tuple[float, str]] = []  # (monotonic time read, line)
        self._debug = debug.open("a") if debug is not None else None  # every line, with time
        self.ready = threading.Event()

    def start(self) -> float:
        """Starts the process; returns the monotonic time it was spawned."""
        self.ready.clear()
        began = time.monotonic()
        self.proc = subprocess.Popen(
            self.args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()
        return began

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if self._debug is not None:
                self._debug.write(f"{time.monotonic():.3f} {line}")
                self._debug.flush()
            try:
                entry = json.loads(line)
                said, level = str(entry.get("msg", "")), entry.get("level")
            except ValueError:
                said, level = line.rstrip(), None
            if level == "debug":
                continue
            self.lines.append(said)
            self.timed.append((time.monotonic(), said))
            if said.startswith("broker ready"):
                self.ready.set()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.kill()


class Broker:
    """A local broker that can be killed and started again on its port and data."""

    def __init__(self, home: Path) -> None:
        self.local = LocalBroker(home / "kafka", heap="1g")
        info = self.local.start(timeout=300)
        self.bootstrap, self.port = info.bootstrap, info.port

    def kill(self) -> None:
        info = self.local.info()
        if info is not None:
            os.kill(info.pid, signal.SIGKILL)
        self.local.stop()

    def start(self) -> float:
        """Starts it again; returns the monotonic time it answered."""
        free_by = time.monotonic() + 60  # the killed JVM's sockets may take a moment to go
        while port_in_use(self.port) and time.monotonic() < free_by:
            time.sleep(0.5)
        for attempt in range(3):  # a JVM that dies while starting on a loaded machine
            try:
                self.local.start(port=self.port, timeout=300)
                return time.monotonic()
            except BrokerError:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def stop(self) -> None:
        self.local.stop()


def first_answer(client: KafkaPubSub, since: float, limit: float = 600.0) -> float:
    """Seconds from ``since`` until the service answers a command."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            answer = client.register(f"Probe/{uuid.uuid4().hex}", queue="BENCH.PROBE", wait=2.0)
        except TimeoutError:
            continue
        if answer is not None:
            return time.monotonic() - since
    return float("inf")


def answer_after(bootstrap: str, namespace: str, since: float, limit: float = 600.0) -> float:
    """Seconds from ``since`` until the service answers one command put now by a new client:
    one probe, waited for (no resends, so no 2 s steps), from a client made now (so none of an
    old client's own waits to reconnect is counted)."""
    deadline = time.monotonic() + limit
    while True:  # a client cannot even be made while Kafka does not answer
        try:
            client = KafkaPubSub(bootstrap, namespace=namespace, user="bench")
            break
        except clients.KafkaException:
            if time.monotonic() > deadline:
                return float("inf")
    try:
        client.register(
            f"Probe/{uuid.uuid4().hex}",
            queue="BENCH.PROBE",
            wait=max(1.0, deadline - time.monotonic()),
        )
    except (TimeoutError, clients.KafkaException):
        return float("inf")
    finally:
        client.close()
    return time.monotonic() - since


class KafkaReady:
    """When Kafka itself serves again after a broker's return, beyond metadata: a new
    transactional producer initialised (the transaction coordinator loaded) and a new
    consumer group's member given its partitions (the group coordinator loaded); measured
    beside the service, from ``since``. No service can answer before both."""

    def __init__(self, bootstrap: str, topic: str, since: float) -> None:
        self.seconds: dict[str, float] = {}
        self._bootstrap, self._topic, self._since = bootstrap, topic, since
        self._threads = [
            threading.Thread(target=self._transactions, daemon=True),
            threading.Thread(target=self._group, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _transactions(self) -> None:
        producer = clients.producer(
            ClientConfig(self._bootstrap),
            {"transactional.id": f"bench-ready-{uuid.uuid4().hex}", "log_level": 0},
        )
        while True:
            try:
                producer.init_transactions(10)
                break
            except clients.KafkaException:
                continue
        self.seconds["transactions"] = time.monotonic() - self._since

    def _group(self) -> None:
        consumer = clients.consumer(
            ClientConfig(self._bootstrap),
            {"group.id": f"bench-ready-{uuid.uuid4().hex}", "log_level": 0},
        )
        consumer.subscribe([self._topic])
        while not consumer.assignment():
            consumer.consume(1, 0.2)
        self.seconds["consumer group"] = time.monotonic() - self._since
        consumer.close()

    def result(self, limit: float = 600.0) -> dict[str, float]:
        for thread in self._threads:
            thread.join(limit)
        return {name: round(s, 1) for name, s in self.seconds.items()}


def seed_subscriptions(bootstrap: str, namespace: str, count: int) -> None:
    """``count`` subscriptions in the state topic, as the service writes them."""
    from mqkafka.engine.identity import Identity
    from mqkafka.engine.records import Subscription, SubscriptionKey
    from mqkafka.engine.topicspace import ROOT
    from mqkafka.mq.commands import Interface, RegOpt
    from mqkafka.mq.topics import Scheme, TopicFilter
    from mqkafka.state import recordcodec as codec

    producer = clients.producer(
        ClientConfig(bootstrap),
        {"linger.ms": 50, "queue.buffering.max.messages": 2_000_000, "compression.type": "lz4"},
    )
    topic = namespace + "mqk-subscriptions"
    for i in range(count):  # as bench_service's restart figures seed them
        key = SubscriptionKey(
            ROOT, Identity(f"Q{i % 500}", "QM1", None), TopicFilter(f"Sub/{i}/#", Scheme.TOPIC)
        )
        sub = Subscription(
            key, "bench", RegOpt.NONE, Interface.RFH2, b"MQKC" + i.to_bytes(20, "big")
        )
        value, record_key = codec.encode_subscription(sub), codec.subscription_key(key)
        while True:
            try:
                producer.produce(topic, value, record_key)
                break
            except BufferError:
                producer.poll(0.1)
        producer.poll(0)
    producer.flush(300)


def restart_figure(home: Path, subscriptions: int) -> dict[str, Any]:
    broker = Broker(home)
    ns = f"r{uuid.uuid4().hex[:6]}."
    try:
        apply_catalogue(broker.bootstrap, prefix=ns)
        seed_subscriptions(broker.bootstrap, ns, subscriptions)
        service = Served(broker.bootstrap, ns, home / "state")
        client = KafkaPubSub(broker.bootstrap, namespace=ns, user="bench")
        try:
            first = first_answer(client, service.start())
            service.kill()
            again = first_answer(client, service.start())
        finally:
            client.close()
            service.kill()
        return {
            "subscriptions": subscriptions,
            "first start to first answer (s)": round(first, 1),
            "after SIGKILL: start to first answer (s)": round(again, 1),
        }
    finally:
        broker.stop()


class Publisher:
    """An application putting persistent publications at a steady rate, numbered (the body
    starts with the number, as ``read_all`` reads it), through Kafka's outages: its producer
    is idempotent and keeps what it cannot send yet."""

    def __init__(self, bootstrap: str, namespace: str, topic: str, rate: float) -> None:
        self.sent = 0
        self.failed: list[str] = []  # deliveries Kafka refused the application
        self.stream = self._stream = queue_to_topic(DEFAULT_STREAM, namespace)
        self._topic, self._pause = topic, 1.0 / rate
        self._producer = clients.producer(
            ClientConfig(bootstrap), {"enable.idempotence": True, "log_level": 0}
        )
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._put, daemon=True)
        self._thread.start()

    def _put(self) -> None:
        while not self._done.wait(self._pause):
            md, value = command_message(
                [("Command", "Publish"), ("Topic", self._topic)],
                body=f"{self.sent:09d}".encode() + os.urandom(200),
                md=MQMD(Persistence=MQPER.PERSISTENT),
            )
            try:
                self._producer.produce(
                    self._stream, value, headers=mqmd_to_headers(md), on_delivery=self._sent
                )
            except BufferError:
                continue
            self._producer.poll(0)
            self.sent += 1

    def _sent(self, error: Any, message: Any) -> None:
        if error is not None:  # the application's loss, not the service's
            self.failed.append(error.str())

    def stop(self) -> int:
        """Stops putting; returns how many were put (all sent: flushed)."""
        self._done.set()
        self._thread.join()
        left = self._producer.flush(600)
        assert left == 0, f"{left} publications not sent"
        return self.sent


class StackWatch:
    """Where a service that has not answered yet waits: ``py-spy dump`` of it after 10 s, and
    every 20 s after that, until stopped (the dumps are kept in ``folder``)."""

    def __init__(self, pid: int, folder: Path, name: str) -> None:
        self.dumps: list[str] = []
        self._pid, self._folder, self._name = pid, folder, name
        self._done = threading.Event()
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        spy = Path(sys.executable).with_name("py-spy")
        wait = 10.0
        while spy.exists() and not self._done.wait(wait):
            dump = subprocess.run(
                [str(spy), "dump", "--pid", str(self._pid)], capture_output=True, text=True
            )
            path = self._folder / f"{self._name}-{len(self.dumps) + 1}.txt"
            path.write_text(dump.stdout + dump.stderr)
            self.dumps.append(str(path))
            wait = 20.0

    def stop(self) -> list[str]:
        self._done.set()
        return self.dumps


def _hogs(count: int) -> list[subprocess.Popen[bytes]]:
    """``count`` processes that each keep a core busy: load on the machine."""
    return [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(count)]


def outage_figure(
    home: Path,
    outage: float,
    runs: int = 1,
    how: str = "kill",
    hogs: int = 0,
    debug: bool = False,
) -> dict[str, Any]:
    """``runs`` outages of one broker under one service, each ``outage`` seconds, the broker's
    JVM killed (``kill``) or stopped cleanly (``stop``; ``both``: in turn), publications put at
    a steady rate throughout; with ``hogs`` CPU-bound processes beside it."""
    broker = Broker(home)
    ns = f"o{uuid.uuid4().hex[:6]}."
    stacks = Path(tempfile.mkdtemp(prefix="mqk-outage-stacks-"))
    busy = _hogs(hogs)
    try:
        apply_catalogue(broker.bootstrap, prefix=ns)
        log = stacks / "serve-debug.log" if debug else None  # beside the py-spy dumps
        service = Served(broker.bootstrap, ns, home / "state", log)
        client = KafkaPubSub(broker.bootstrap, namespace=ns, user="bench")
        figures: list[dict[str, Any]] = []
        try:
            first_answer(client, service.start())
            answer = client.register("Outage/#", queue="BENCH.OUTAGE", wait=120.0)
            assert answer is not None and answer.ok, answer
            publisher = Publisher(broker.bootstrap, ns, "Outage/x", rate=20.0)
            for turn in range(runs):
                kind = how if how != "both" else ("kill", "stop")[turn % 2]
                time.sleep(5)  # serving, publications flowing
                usual = answer_after(broker.bootstrap, ns, time.monotonic())  # the same, Kafka up
                went = len(service.lines)
                gone = time.monotonic()
                broker.kill() if kind == "kill" else broker.stop()
                time.sleep(outage)
                back = broker.start()
                assert service.proc is not None
                watch = StackWatch(service.proc.pid, stacks, f"run{turn + 1}")
                ready = KafkaReady(broker.bootstrap, publisher.stream, back)
                serving = answer_after(broker.bootstrap, ns, back)
                dumps = watch.stop()
                said = [(round(at - gone, 1), line) for at, line in service.timed[went:]]
                figures.append(
                    {
                        "run": turn + 1,
                        "broker": kind,
                        "broker answering to service answering (s)": round(serving, 1),
                        "the same probe before the stop (s)": round(usual, 1),
                        "load average (1 min) at the answer": round(os.getloadavg()[0], 1),
                        "Kafka itself serving after (s)": ready.result(),
                        "broker down to answering again (s)": round(back - gone, 1),
                        "broker answering again (monotonic)": round(back, 3),
                        "service log lines from the stop to the answer": len(said),
                        "most lines in any 30 s while away": _most_in(said, 30.0),
                        "lines (s after the stop, line)": said,
                        **({"py-spy dumps while not answering": dumps} if dumps else {}),
                    }
                )
                print(f"outage: {json.dumps(figures[-1], ensure_ascii=False)}", flush=True)
            sent = publisher.stop()
            # read while the service runs: it handles what was put last before it stops
            seen = read_all(broker.bootstrap, queue_to_topic("BENCH.OUTAGE", ns))
            missing = [i for i in range(sent) if f"{i:09d}".encode() not in seen]
            put = read_all(broker.bootstrap, publisher.stream) if missing else seen
            alive = service.proc is not None and service.proc.poll() is None
        finally:
            client.close()
            service.stop()
        lost = [i for i in missing if f"{i:09d}".encode() in put]  # on the stream: the service's
        duplicated = sum(n - 1 for n in seen.values() if n > 1)
        return {
            "broker down (s)": outage,
            "CPU hogs beside it": hogs,
            "py-spy dumps and debug log in": str(stacks),
            "answers after the broker's return (s, each run)": [
                f["broker answering to service answering (s)"] for f in figures
            ],
            "service up throughout": alive,
            "publications put (before, during and after)": sent,
            "lost": len(lost),
            "duplicated": duplicated,
            "not on the stream (the application's producer failed)": len(missing) - len(lost),
            "application delivery errors": publisher.failed[:5],
            **({"lost numbers": lost[:20]} if lost else {}),
            "runs": figures,
        }
    finally:
        for hog in busy:
            hog.kill()
        broker.stop()
        if broker.local.log_file.exists():  # what the broker went through (fenced, slow, ...)
            shutil.copy(broker.local.log_file, stacks / "kafka.log")


def _most_in(said: list[tuple[float, str]], window: float) -> int:
    """The most lines said within any ``window`` seconds."""
    times = [at for at, _ in said]
    return max((sum(1 for t in times if s <= t < s + window) for s in times), default=0)


def faults_figure(home: Path, publications: int, subscribers: int = 10) -> dict[str, Any]:
    broker = Broker(home)
    ns = f"f{uuid.uuid4().hex[:6]}."
    try:
        apply_catalogue(broker.bootstrap, prefix=ns)
        service = Served(broker.bootstrap, ns, home / "state")
        client = KafkaPubSub(broker.bootstrap, namespace=ns, user="bench")
        queues = [f"BENCH.F{i}" for i in range(subscribers)]
        first_answer(client, service.start())
        for queue in queues:
            answer = client.register("Faults/#", queue=queue, wait=120.0)
            assert answer is not None and answer.ok, answer
        stream = queue_to_topic(DEFAULT_STREAM, ns)
        producer = clients.producer(ClientConfig(broker.bootstrap))  # defaults: acks all
        done = threading.Event()
        body_size = 200

        def put() -> None:
            for i in range(publications):
                md, value = command_message(
                    [("Command", "Publish"), ("Topic", f"Faults/{i % 7}")],
                    body=f"{i:09d}".encode() + os.urandom(body_size),
                    md=MQMD(Persistence=MQPER.PERSISTENT),
                )
                while True:
                    try:
                        producer.produce(stream, value, headers=mqmd_to_headers(md))
                        break
                    except BufferError:
                        producer.poll(0.1)
                producer.poll(0)
                if i % 200 == 199:
                    time.sleep(0.02)  # a steady stream: the faults land in the middle of it
            producer.flush(600)
            done.set()

        began = time.monotonic()
        sender = threading.Thread(target=put, daemon=True)
        sender.start()
        faults = []
        for round_ in range(3):
            time.sleep(5)
            service.kill()
            first_answer(client, service.start())
            faults.append(f"service SIGKILL {round_ + 1}")
            time.sleep(5)
            broker.kill()
            broker.start()
            faults.append(f"broker restart {round_ + 1}")
        done.wait(3600)
        put_seconds = time.monotonic() - began
        lost = duplicated = 0
        counts_per_queue = []
        for queue in queues:
            seen = read_all(broker.bootstrap, queue_to_topic(queue, ns))
            lost += sum(1 for i in range(publications) if f"{i:09d}".encode() not in seen)
            duplicated += sum(n - 1 for n in seen.values() if n > 1)
            counts_per_queue.append(sum(seen.values()))
        client.close()
        service.stop()
        return {
            "publications": publications,
            "subscribers": subscribers,
            "faults": faults,
            "copies expected": publications * subscribers,
            "copies delivered": sum(counts_per_queue),
            "lost": lost,
            "duplicated": duplicated,
            "seconds putting (faults included)": round(put_seconds),
        }
    finally:
        broker.stop()


def read_all(bootstrap: str, topic: str, quiet: float = 20.0) -> collections.Counter[bytes]:
    """Every committed copy on ``topic`` by its sequence number, read until the log's end has
    not moved for ``quiet`` seconds (the service has handled all there was)."""
    consumer = clients.consumer(
        ClientConfig(bootstrap),
        {"group.id": f"bench-{uuid.uuid4().hex}", "isolation.level": "read_committed",
         "enable.auto.commit": False},
    )  # fmt: skip
    partitions = consumer.list_topics(topic, timeout=30).topics[topic].partitions
    consumer.assign(
        [clients.TopicPartition(topic, p, clients.OFFSET_BEGINNING) for p in partitions]
    )
    seen: collections.Counter[bytes] = collections.Counter()
    last_end, moved_at = -1, time.monotonic()
    while True:
        for message in consumer.consume(1000, 0.5):
            if message.error() is None:
                body = message.value() or b""
                seen[body[-(9 + 200) :][:9]] += 1  # the body ends the record
        ends = sum(consumer.get_watermark_offsets(clients.TopicPartition(topic, p))[1]
                   for p in partitions)  # fmt: skip
        at = sum(max(tp.offset, 0) for tp in consumer.position(
            [clients.TopicPartition(topic, p) for p in partitions]))  # fmt: skip
        if ends != last_end:
            last_end, moved_at = ends, time.monotonic()
        if at >= ends and time.monotonic() - moved_at > quiet:
            break
    consumer.close()
    return seen


def regsub_figure(home: Path, at: list[int]) -> dict[str, Any]:
    broker = Broker(home)
    ns = f"s{uuid.uuid4().hex[:6]}."
    try:
        apply_catalogue(broker.bootstrap, prefix=ns)
        service = Served(broker.bootstrap, ns, home / "state")
        client = KafkaPubSub(broker.bootstrap, namespace=ns, user="bench")
        first_answer(client, service.start())
        client.close()
        driver = ServiceDriver(broker.bootstrap, ns)
        rates: dict[str, Any] = {"burst": SERVICE_BURST}
        try:
            held = 0
            for k in at:
                fill = [f"Bench/Held/{i}" for i in range(held, k - 1)]
                for i in range(0, len(fill), 500):
                    driver.burst("RegSub", fill[i : i + 500])
                held = max(held, k - 1)
                new = [f"Bench/New/{k}/{j}" for j in range(SERVICE_BURST)]
                seconds = driver.burst("RegSub", new)
                driver.burst("DeregSub", new)
                rates[f"RegSub/s at subscription {k:,}"] = round(SERVICE_BURST / seconds)
        finally:
            driver.close()
            service.stop()
        return rates
    finally:
        broker.stop()


def checks_figure(home: Path, records: int, repeats: int) -> dict[str, Any]:
    from bench import service_run

    broker = Broker(home)
    unchecked = home / "mqk-unchecked"
    script = Path(__file__).with_name("serve_unchecked.py")
    unchecked.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{script}" "$@"\n')
    unchecked.chmod(0o755)
    rates: dict[str, list[float]] = {"checked": [], "unchecked": []}
    cpu: dict[str, list[float]] = {"checked": [], "unchecked": []}  # service µs/publication
    try:
        for turn in range(repeats):  # alternating, the order swapped each turn
            order = ("checked", "unchecked") if turn % 2 == 0 else ("unchecked", "checked")
            for kind in order:
                service_run.MQK = MQK if kind == "checked" else str(unchecked)
                rate = service_run.throughput(broker.bootstrap, records, 256, 1, warm=True)
                rates[kind].append(rate)
                cpu[kind].append(service_run.CPU_US[-1])
                print(f"checks: {kind} {rate:,.0f} publications/s, "
                      f"{cpu[kind][-1]:.1f} service CPU µs each", flush=True)  # fmt: skip
    finally:
        service_run.MQK = MQK
        broker.stop()
    with_checks, without = (statistics.median(rates[k]) for k in ("checked", "unchecked"))
    cpu_with, cpu_without = (statistics.median(cpu[k]) for k in ("checked", "unchecked"))
    return {
        "records per run": records,
        "publications/s with the checks (runs)": [round(r) for r in rates["checked"]],
        "publications/s without them (runs)": [round(r) for r in rates["unchecked"]],
        "median with / median without": round(with_checks / without, 4),
        "service CPU µs per publication with the checks (runs)": [
            round(c, 1) for c in cpu["checked"]
        ],
        "service CPU µs per publication without them (runs)": [
            round(c, 1) for c in cpu["unchecked"]
        ],
        "median CPU with / median CPU without": round(cpu_with / cpu_without, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--subscriptions", type=int, default=100_000)
    parser.add_argument("--outage", type=float, default=60.0)
    parser.add_argument("--outage-runs", type=int, default=3, help="outage: broker restarts")
    parser.add_argument(
        "--how",
        choices=("kill", "stop", "both"),
        default="both",
        help="outage: the broker's JVM SIGKILLed, stopped cleanly, or in turn",
    )
    parser.add_argument(
        "--debug-log", action="store_true",
        help="outage: the service logs at DEBUG to a file beside the py-spy dumps",
    )  # fmt: skip
    parser.add_argument(
        "--hogs", type=int, default=0, help="outage: CPU-bound processes running beside it (load)"
    )
    parser.add_argument("--publications", type=int, default=100_000)
    parser.add_argument("--records", type=int, default=100_000, help="per checks run")
    parser.add_argument("--repeats", type=int, default=4, help="checks: pairs of runs")
    parser.add_argument("--only", choices=("restart", "outage", "faults", "regsub", "checks"))
    args = parser.parse_args()
    parts: dict[str, Callable[[Path], dict[str, Any]]] = {
        "restart": lambda home: restart_figure(home, args.subscriptions),
        "outage": lambda home: outage_figure(
            home, args.outage, args.outage_runs, args.how, args.hogs, args.debug_log
        ),
        "faults": lambda home: faults_figure(home, args.publications),
        "regsub": lambda home: regsub_figure(home, [1, 1000, 3000]),
        "checks": lambda home: checks_figure(home, args.records, args.repeats),
    }
    for name, run in parts.items():
        if args.only not in (None, name):
            continue
        with tempfile.TemporaryDirectory(prefix=f"mqk-bench-{name}-") as home:
            began = time.monotonic()
            figures = run(Path(home))
            figures["bench seconds"] = round(time.monotonic() - began)
            print(f"{name}: {json.dumps(figures, indent=1, ensure_ascii=False)}", flush=True)


if __name__ == "__main__":
    main()
