"""MQPUT and MQGET per second from IBM's MQ classes for Java through ``mqk listen``, beside
the Python MQI's rate on the same Kafka in the same run; prints figures.

    python -m bench.bench_channel [--n 5000] [--size 256] [--warmup 2000] [--rounds 3]

Uses the broker in $MQK_BOOTSTRAP_SERVERS, or starts a throw-away local one. Needs Maven and
a JDK: IBM's client is fetched from Maven Central (devsupport/pom.xml). Both
sides put non-persistent messages outside syncpoint, then get them (MQGMO_WAIT), one
connection each, after ``--warmup`` untimed puts and gets each (the JVM compiles the client
meanwhile; the Python side does the same, and its first get joins the share group). The Java
side also times MQINQ of the queue type: a round trip through the listener with no MQI work,
which shows what a verb costs before the MQI does anything. Target: the listener at least 50%
of the Python MQI. Each side runs ``--rounds`` timed rounds of puts then gets; the median
round is printed (a Python round of 5,000 puts lasts well under a second: one stall of the
busy machine moved a single round's figure several-fold).
"""

from __future__ import annotations

import argparse
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

from bench.kafka_env import kafka
from mqkafka.kafka.localbroker import free_port
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

ROOT = Path(__file__).resolve().parents[1]


def python_rates(
    qmgr: QueueManager, name: str, n: int, body: bytes, warmup: int, rounds: int
) -> tuple[list[float], list[float]]:
    queue = Queue(qmgr, name, C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF)
    gmo = GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=10_000)

    def puts(count: int) -> float:
        began = time.perf_counter()
        for _ in range(count):
            queue.put(body, MD(Persistence=C.MQPER_NOT_PERSISTENT))
        return count / (time.perf_counter() - began)

    def gets(count: int) -> float:
        began = time.perf_counter()
        for _ in range(count):
            queue.get(len(body), MD(), gmo)
        return count / (time.perf_counter() - began)

    puts(warmup)
    gets(warmup)
    put: list[float] = []
    got: list[float] = []
    for _ in range(rounds):
        put.append(puts(n))
        got.append(gets(n))
    queue.close()
    return put, got


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--warmup", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--classes", type=Path, help="ChannelBench compiled already (a machine with a JRE alone)"
    )
    args = parser.parse_args()
    jars = client_jars()
    with kafka() as bootstrap, tempfile.TemporaryDirectory() as classes:
        if args.classes is not None:
            classes = str(args.classes.resolve())
        else:
            compile_programs(jars, Path(classes), [ROOT / "bench/java/ChannelBench.java"])
        namespace = f"b{uuid.uuid4().hex[:6]}."
        qmgr = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace)
        py_queue, java_queue = "BENCH.PY", "BENCH.JAVA"
        qmgr.define_queue(py_queue, max_depth=999_999_999)  # MQPUT enforces MAXDEPTH
        qmgr.define_queue(java_queue, max_depth=999_999_999)
        port = free_port()
        listener = subprocess.Popen(
            [sys.executable, "-m", "mqkafka.cli", "listen", "--bootstrap-servers", bootstrap,
             "--namespace", namespace, "--port", str(port), "--log-level", "WARNING"],
        )  # fmt: skip
        try:
            time.sleep(8)  # it defines the JMS queues, then listens
            py_put, py_get = python_rates(
                qmgr, py_queue, args.n, bytes(args.size), args.warmup, args.rounds
            )
            done = subprocess.run(
                java_command(jars, Path(classes), "ChannelBench", "127.0.0.1", str(port),
                             java_queue, str(args.n), str(args.size), str(args.warmup),
                             str(args.rounds)),
                capture_output=True, text=True, check=True, cwd=classes,
            )  # fmt: skip
        finally:
            listener.send_signal(signal.SIGTERM)
            listener.wait(30)
            qmgr.disconnect()
        java: dict[str, list[float]] = {"PUT": [], "GET": [], "INQ": []}
        for verb, rate in re.findall(r"^(PUT|GET|INQ) ([\d.]+)$", done.stdout, re.M):
            java[verb].append(float(rate))
        print(f"{args.n} messages of {args.size} bytes, non-persistent, one connection each, "
              f"after {args.warmup} untimed; the median of {args.rounds} rounds")  # fmt: skip
        for verb, py_rounds in (("PUT", py_put), ("GET", py_get)):
            rate, py = statistics.median(java[verb]), statistics.median(py_rounds)
            print(f"MQ{verb:<4} Java via listener {rate:>9,.0f} msg/s ({1e6 / rate:5.0f} us)"
                  f"   Python MQI {py:>9,.0f} msg/s ({1e6 / py:5.0f} us)"
                  f"   ratio {rate / py:6.1%}")  # fmt: skip
            pairs = zip(java[verb], py_rounds, strict=True)
            rounds = "  ".join(f"{j:,.0f}/{p:,.0f}" for j, p in pairs)
            print(f"       rounds, Java/Python: {rounds}")
        inq = statistics.median(java["INQ"])
        print(f"MQINQ  Java via listener {inq:>9,.0f} /s     ({1e6 / inq:5.0f} us): a round trip"
              f" with no MQI work")  # fmt: skip


if __name__ == "__main__":
    main()
