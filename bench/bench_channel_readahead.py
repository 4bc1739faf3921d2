"""MQGET per second from IBM's MQ classes for Java through ``mqk listen`` with read ahead
(MQOO_READ_AHEAD on a channel offered SHARECNV 1: the listener pushes the messages, module
``channel/readahead.py``) and without (a round trip a get), beside the Python MQI's get loop
on the same Kafka in the same run; prints figures.

    python -m bench.bench_channel_readahead [--n 20000] [--size 256] [--warmup 2000] [--rounds 3]

Uses the broker in $MQK_BOOTSTRAP_SERVERS, or starts a throw-away local one; needs Maven and
a JDK (IBM's client from Maven Central, devsupport/pom.xml). Non-persistent messages of
``--size`` bytes, outside syncpoint, MQGMO_WAIT, one connection each; every round puts ``--n``
messages (untimed: asynchronous puts on the Java side) and times their gets. The Python side
runs its rounds before and again after the Java ones (the machine's load moves meanwhile);
the medians are printed, with each round. Target: the listener's read-ahead gets at least 50%
of the Python MQI's.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from devsupport.javaclient import client_jars, compile_programs, java_command

from bench.bench_channel import cpu_between, run_sampled
from bench.kafka_env import kafka
from mqkafka.kafka.localbroker import free_port
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

ROOT = Path(__file__).resolve().parents[1]
READ_AHEAD_CHANNEL = "BENCH.RA.SVRCONN"  # offered SHARECNV 1
PLAIN_CHANNEL = "DEV.APP.SVRCONN"  # SHARECNV 0: a round trip a get


def python_gets(
    qmgr: QueueManager, name: str, n: int, body: bytes, warmup: int, rounds: int
) -> tuple[list[float], list[float]]:
    """The Python MQI's get loop: its rate and its process's CPU seconds a get, per round
    (each round's messages put first, untimed)."""
    queue = Queue(qmgr, name, C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF)
    gmo = GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=10_000)
    rates: list[float] = []
    cpus: list[float] = []
    for count in [warmup] + [n] * rounds:
        for _ in range(count):
            queue.put(body, MD(Persistence=C.MQPER_NOT_PERSISTENT))
        began, cpu = time.perf_counter(), time.process_time()
        for _ in range(count):
            queue.get(len(body), MD(), gmo)
        rates.append(count / (time.perf_counter() - began))
        cpus.append((time.process_time() - cpu) / count)
    queue.close()
    return rates[1:], cpus[1:]


def _line(label: str, rounds: list[float], python: float) -> str:
    rate = statistics.median(rounds)
    each = "  ".join(f"{r:,.0f}" for r in rounds)
    return (f"{label} {rate:>9,.0f} msg/s ({1e6 / rate:6.1f} us)   ratio to Python "
            f"{rate / python:6.1%}   rounds {each}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--warmup", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    jars = client_jars()
    with kafka() as bootstrap, tempfile.TemporaryDirectory() as classes:
        compile_programs(jars, Path(classes), [ROOT / "bench/java/ReadAheadBench.java"])
        namespace = f"b{uuid.uuid4().hex[:6]}."
        qmgr = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace)
        py_queue, java_queue = "BENCH.PY", "BENCH.JAVA"
        qmgr.define_queue(py_queue, max_depth=999_999_999)
        qmgr.define_queue(java_queue, max_depth=999_999_999)
        port = free_port()
        listener = subprocess.Popen(
            [sys.executable, "-m", "mqkafka.cli", "listen", "--bootstrap-servers", bootstrap,
             "--namespace", namespace, "--port", str(port), "--log-level", "WARNING",
             "--sharecnv", f"{READ_AHEAD_CHANNEL}=1"],
        )  # fmt: skip
        try:
            time.sleep(8)  # it defines the JMS queues, then listens
            load = os.getloadavg()[0]
            body = os.urandom(args.size)  # a body that does not compress
            py_get, cpu_per_get = python_gets(
                qmgr, py_queue, args.n, body, args.warmup, args.rounds
            )
            command = java_command(
                jars, Path(classes), "ReadAheadBench", "127.0.0.1", str(port),
                READ_AHEAD_CHANNEL, PLAIN_CHANNEL, java_queue, str(args.n), str(args.size),
                str(args.warmup), str(args.rounds),
            )  # fmt: skip
            done, samples = run_sampled(command, classes, listener.pid)
            if done.returncode != 0:
                raise SystemExit(f"ReadAheadBench failed:\n{(done.stdout + done.stderr)[-3000:]}")
            more, more_cpu = python_gets(
                qmgr, py_queue, args.n, body, args.warmup // 4, args.rounds
            )
            py_get, cpu_per_get = py_get + more, cpu_per_get + more_cpu
        finally:
            listener.send_signal(signal.SIGTERM)
            listener.wait(30)
            qmgr.disconnect()
        java: dict[str, list[float]] = {"RAGET": [], "GET": [], "RACPU": [], "CPU": []}
        for verb, rate in re.findall(r"^(RAGET|GET|RACPU|CPU) ([\d.]+)$", done.stdout, re.M):
            java[verb].append(float(rate))
        listener_cpu: dict[str, list[float]] = {"RA": [], "": []}
        for kind, began, ended in re.findall(r"^(RA|)WINDOW (\d+) (\d+)$", done.stdout, re.M):
            spent = cpu_between(samples, 1, int(began), int(ended))
            listener_cpu[kind].append(spent / args.n * 1e6)
        print(f"{args.n} messages of {args.size} bytes, non-persistent, outside syncpoint, one "
              f"connection each, after {args.warmup} untimed; medians of {args.rounds} rounds "
              f"(Python: {args.rounds} before the Java ones, {args.rounds} after); "
              f"{os.cpu_count()} CPUs, load average {load:.1f} -> "
              f"{os.getloadavg()[0]:.1f}")  # fmt: skip
        python = statistics.median(py_get)
        print(_line("MQGET  Java via listener, read ahead", java["RAGET"], python))
        print(_line("MQGET  Java via listener, no read ahead", java["GET"], python))
        each = "  ".join(f"{r:,.0f}" for r in py_get)
        print(f"MQGET  Python MQI                     {python:>9,.0f} msg/s "
              f"({1e6 / python:6.1f} us)   rounds {each}")  # fmt: skip
        for kind, label in (("RA", "read ahead"), ("", "no read ahead")):
            print(f"       CPU a get, {label}: listener "
                  f"{statistics.median(listener_cpu[kind]):.1f} us + IBM's Java client "
                  f"{statistics.median(java[kind + 'CPU']):.1f} us")  # fmt: skip
        print(f"       CPU a get, Python MQI: {statistics.median(cpu_per_get) * 1e6:.1f} us "
              f"(its process, Kafka client threads included)")  # fmt: skip
        print(
            "       read-ahead messages once each and in order: "
            + ("yes" if "ORDER OK" in done.stdout else "NO")
        )


if __name__ == "__main__":
    main()
