"""MQPUT and MQGET per second from IBM's MQ classes for Java through ``mqk listen``, beside
the Python MQI's rate on the same Kafka in the same run; prints figures.

    python -m bench.bench_channel [--n 5000] [--size 256] [--warmup 2000] [--rounds 3]

Uses the broker in $MQK_BOOTSTRAP_SERVERS, or starts a throw-away local one. Needs Maven and a
JDK: IBM's client is fetched from Maven Central (devsupport/pom.xml). Both sides put
non-persistent messages of random bytes (they do not compress) outside syncpoint, then get them
(MQGMO_WAIT), one connection each, after ``--warmup`` untimed puts and gets each (the JVM
compiles the client meanwhile; the Python side does the same, and its first get joins the share
group). The Java side also times MQINQ of the queue type: a round trip through the listener
with no MQI work, which shows what a verb costs before the MQI does anything. It also puts
asynchronously (MQPMO_ASYNC_RESPONSE) on a second connection over a channel the listener offers
SHARECNV 1 (``--sharecnv``), timed up to the answer of the MQSTAT after the puts (the listener
answers it once it has done them all). Target: the listener at least 50% of the Python MQI.
Each side runs ``--rounds`` timed rounds of puts then gets (the Python side before and again
after the Java one, the machine's load moving meanwhile); the median round is printed (a Python
round of 5,000 puts lasts well under a second: one stall of the busy machine moved a single
round's figure several-fold).
"""

from __future__ import annotations

import argparse
import bisect
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from devsupport.javaclient import client_jars, compile_programs, java_command

from bench.kafka_env import cpu_seconds, kafka
from mqkafka.kafka.localbroker import free_port
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

ROOT = Path(__file__).resolve().parents[1]
cpu_per_put: list[float] = []  # the Python process's CPU seconds a put, per timed round
ASYNC_CHANNEL = "BENCH.ASYNC.SVRCONN"  # offered SHARECNV 1: the client may put asynchronously


def python_rates(
    qmgr: QueueManager, name: str, n: int, body: bytes, warmup: int, rounds: int
) -> tuple[list[float], list[float]]:
    queue = Queue(qmgr, name, C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF)
    cpu_per_put.clear()
    gmo = GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=10_000)

    def puts(count: int) -> float:
        began, cpu = time.perf_counter(), time.process_time()
        for _ in range(count):
            queue.put(body, MD(Persistence=C.MQPER_NOT_PERSISTENT))
        cpu_per_put.append((time.process_time() - cpu) / count)
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


Sample = tuple[float, float, float]  # epoch seconds, listener CPU s, Java client CPU s


def run_sampled(
    command: list[str], cwd: str, listener_pid: int
) -> tuple[subprocess.CompletedProcess[str], list[Sample]]:
    """Run the Java side, reading its and the listener's CPU time every 10 ms: the CPU an
    async put costs each (a figure the busy machine's load moves far less than a rate)."""
    samples: list[Sample] = []
    java = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=cwd)  # fmt: skip
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.01):
            try:
                samples.append((time.time(), cpu_seconds(f"/proc/{listener_pid}/stat"),
                                cpu_seconds(f"/proc/{java.pid}/stat")))  # fmt: skip
            except OSError:
                return

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = java.communicate()
    stop.set()
    sampler.join()
    return subprocess.CompletedProcess(command, java.returncode, out, err), samples


def cpu_between(samples: list[Sample], which: int, from_ms: int, to_ms: int) -> float:
    """CPU seconds of process ``which`` (1 listener, 2 Java) between two epoch-ms marks,
    from the nearest samples (linear between two)."""
    times = [s[0] for s in samples]

    def at(t: float) -> float:
        i = bisect.bisect_left(times, t)
        if i <= 0:
            return samples[0][which]
        if i >= len(samples):
            return samples[-1][which]
        (t0, *v0), (t1, *v1) = samples[i - 1], samples[i]
        share = (t - t0) / (t1 - t0) if t1 > t0 else 0.0
        return v0[which - 1] + share * (v1[which - 1] - v0[which - 1])

    return at(to_ms / 1000) - at(from_ms / 1000)


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
    with (
        kafka() as bootstrap,
        tempfile.TemporaryDirectory() as classes,
        tempfile.TemporaryDirectory(prefix="mqk-bench-home-") as home,
    ):
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
             "--namespace", namespace, "--port", str(port), "--log-level", "WARNING",
             "--sharecnv", f"{ASYNC_CHANNEL}=1"],
            env={**os.environ, "MQK_HOME": home},  # its status file: never the user's ~/.mqk
        )  # fmt: skip
        try:
            time.sleep(8)  # it defines the JMS queues, then listens
            load = os.getloadavg()[0]
            body = os.urandom(args.size)  # a body that does not compress
            py_put, py_get = python_rates(qmgr, py_queue, args.n, body, args.warmup, args.rounds)
            py_cpu = cpu_per_put[-args.rounds :]
            command = java_command(jars, Path(classes), "ChannelBench", "127.0.0.1", str(port),
                                   java_queue, str(args.n), str(args.size), str(args.warmup),
                                   str(args.rounds), ASYNC_CHANNEL)  # fmt: skip
            done, samples = run_sampled(command, classes, listener.pid)
            if done.returncode != 0:
                raise SystemExit(f"ChannelBench failed:\n{(done.stdout + done.stderr)[-3000:]}")
            # the Python side again after the Java one: a busy machine's load moves between
            more_put, more_get = python_rates(
                qmgr, py_queue, args.n, body, args.warmup // 4, args.rounds
            )
            py_put, py_get = py_put + more_put, py_get + more_get
            py_cpu += cpu_per_put[-args.rounds :]
        finally:
            listener.send_signal(signal.SIGTERM)
            listener.wait(30)
            qmgr.disconnect()
        java: dict[str, list[float]] = {"PUT": [], "GET": [], "INQ": [], "APUT": []}
        for verb, rate in re.findall(r"^(A?PUT|GET|INQ) ([\d.]+)$", done.stdout, re.M):
            java[verb].append(float(rate))
        statuses = re.findall(r"^ASTATUS (\d+) (\d+)$", done.stdout, re.M)
        print(f"{args.n} messages of {args.size} bytes, non-persistent, one connection each, "
              f"after {args.warmup} untimed; the median of {args.rounds} rounds (Python: "
              f"{args.rounds} before the Java ones, {args.rounds} after); {os.cpu_count()} "
              f"CPUs, load average {load:.1f} -> {os.getloadavg()[0]:.1f}")  # fmt: skip
        py = statistics.median(py_put)
        rows = [("MQPUT  Java via listener, sync ", java["PUT"]),
                ("MQPUT  Java via listener, async", java["APUT"])]  # fmt: skip
        for label, rounds in rows:
            rate = statistics.median(rounds)
            each = "  ".join(f"{r:,.0f}" for r in rounds)
            print(f"{label} {rate:>9,.0f} msg/s ({1e6 / rate:5.1f} us)   ratio to Python "
                  f"{rate / py:6.1%}   rounds {each}")  # fmt: skip
        print(f"MQPUT  Python MQI                {py:>9,.0f} msg/s ({1e6 / py:5.1f} us)   "
              f"rounds {'  '.join(f'{r:,.0f}' for r in py_put)}")  # fmt: skip
        print(
            "       async puts' MQSTAT (succeeded, failed) per round: "
            + "  ".join(f"{ok}/{failed}" for ok, failed in statuses)
        )
        windows = re.findall(r"^AWINDOW (\d+) (\d+)$", done.stdout, re.M)
        listener_cpu = [cpu_between(samples, 1, int(a), int(b)) / args.n for a, b in windows]
        java_cpu = [cpu_between(samples, 2, int(a), int(b)) / args.n for a, b in windows]
        print(f"       CPU a put (median): listener {statistics.median(listener_cpu) * 1e6:.1f} us"
              f" + IBM's Java client {statistics.median(java_cpu) * 1e6:.1f} us (async); "
              f"Python MQI {statistics.median(py_cpu) * 1e6:.1f} us (its process, Kafka "
              f"client thread included)")  # fmt: skip
        get, py_g = statistics.median(java["GET"]), statistics.median(py_get)
        print(f"MQGET  Java via listener        {get:>9,.0f} msg/s ({1e6 / get:5.1f} us)   "
              f"Python MQI {py_g:,.0f} msg/s   ratio {get / py_g:6.1%}")  # fmt: skip
        inq = statistics.median(java["INQ"])
        print(f"MQINQ  Java via listener        {inq:>9,.0f} /s     ({1e6 / inq:5.1f} us): a "
              f"round trip with no MQI work")  # fmt: skip


if __name__ == "__main__":
    main()
