"""Asynchronous MQPUT per second from IBM's MQ classes for Java through ``mqk listen``, round
for round beside the Python MQI's MQPUT loop; prints each pair's ratio and the medians.

    python -m bench.bench_channel_putratio [--n 20000] [--n-persistent 2000] [--rounds 5]
        [--size 256] [--sharecnv 1] [--persistence 0,1]

Uses the broker in $MQK_BOOTSTRAP_SERVERS, or starts a throw-away local one. Needs Maven and
a JDK (IBM's client from Maven Central). One Java program (bench/java/AsyncPutBench.java)
stays connected and puts a round each time it is asked; the Python MQI's rounds run in this
process in between, so both sides meet the busy machine's load as it moves: each pair (the
side that goes first alternating) gives one ratio, and the median of the pairs is the
figure. Bodies are random (1,024 of ``--size`` bytes, in turn), outside syncpoint. A Java
round is timed up to the answer of the MQSTAT after its puts (the listener answers it once
it has done them all, persistent ones delivered to Kafka); a Python persistent MQPUT returns
once Kafka has the record. Target: the listener at least 50% of the Python MQI.
The listener's and the Java client's CPU a put come from their /proc CPU time sampled every
10 ms over each Java round (the listener's threads: its connection's Python thread and
librdkafka's, and which of them used it); by thread, the listener's busiest Python thread
(its connection's) and librdkafka thread (its producer's) over each Java round, beside the
Python MQI's putting thread: what the machine's load moves least.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from devsupport.javaclient import client_jars, compile_programs, java_command

from bench.kafka_env import cpu_seconds, kafka
from mqkafka.kafka.localbroker import free_port
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import MD
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

ROOT = Path(__file__).resolve().parents[1]
CHANNEL = "BENCH.ASYNC.SVRCONN"


def bodies(size: int) -> list[bytes]:
    return [random.randbytes(size) for _ in range(1024)]


PY_THREADS: dict[str, float] = {}  # this process's CPU by thread over the timed Python rounds
PY_CPU: dict[int, list[float]] = {}  # its CPU seconds a put, by persistence, each round
PY_THREAD: dict[int, list[float]] = {}  # its putting thread's alone


def python_round(
    queue: Queue, pool: list[bytes], n: int, persistence: int, timed: bool = False
) -> float:
    flush = queue_manager(queue).connection.producer.flush
    before = thread_cpu(os.getpid()) if timed else {}
    began, cpu, own = time.perf_counter(), time.process_time(), time.thread_time()
    for i in range(n):
        queue.put(pool[i & 1023], MD(Persistence=persistence))
    rate = n / (time.perf_counter() - began)
    own = time.thread_time() - own
    flush(60)  # delivered before the next round: not in it
    if timed:
        PY_CPU.setdefault(persistence, []).append((time.process_time() - cpu) / n)
        PY_THREAD.setdefault(persistence, []).append(own / n)
    for name, sec in (thread_cpu(os.getpid()) if timed else {}).items():
        PY_THREADS[name] = PY_THREADS.get(name, 0.0) + sec - before.get(name, 0.0)
    return rate


def queue_manager(queue: Queue) -> QueueManager:
    return queue._qmgr  # the bench's own: its producer flushed between rounds


class JavaSide:
    """The Java program, asked for a round at a time; the listener's and its CPU sampled."""

    def __init__(self, command: list[str], cwd: str, listener_pid: int) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, cwd=cwd)  # fmt: skip
        self.listener_pid = listener_pid
        self.threads: dict[tuple[int, str], list[float]] = {}
        line = self._line()
        if line != "READY":
            raise SystemExit(f"AsyncPutBench: {line}\n{self.proc.stderr.read()[-3000:]}")  # type: ignore[union-attr]

    def _line(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().strip()

    def round(self, n: int, persistence: int) -> tuple[float, int, int, float, float]:
        """rate, succeeded, failed, the listener's and the client's CPU seconds a put; the
        listener's busiest Python thread (its connection's) and librdkafka thread (its
        producer's) a put in ``threads``, by persistence."""
        assert self.proc.stdin is not None
        stats = f"/proc/{self.listener_pid}/stat", f"/proc/{self.proc.pid}/stat"
        tasks = task_cpu(self.listener_pid)
        before = [cpu_seconds(s) for s in stats]
        self.proc.stdin.write(f"PUT {n} {persistence}\n")
        self.proc.stdin.flush()
        line = self._line()
        after = [cpu_seconds(s) for s in stats]
        busiest: dict[str, float] = {}
        for tid, (name, sec) in task_cpu(self.listener_pid).items():
            kind = "rdk" if name.startswith("rdk:") else "python"
            used = sec - tasks.get(tid, (name, 0.0))[1]
            busiest[kind] = max(busiest.get(kind, 0.0), used)
        for kind, sec in busiest.items():
            self.threads.setdefault((persistence, kind), []).append(sec / n)
        words = line.split()
        if not words or words[0] != "APUT":
            raise SystemExit(f"AsyncPutBench: {line!r}\n{self.proc.stderr.read()[-3000:]}")  # type: ignore[union-attr]
        rate, ok, failed = float(words[1]), int(words[4]), int(words[5])
        listener, client = ((a - b) / n for a, b in zip(after, before, strict=True))
        return rate, ok, failed, listener, client

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("END\n")
        self.proc.stdin.flush()
        self.proc.wait(60)


def task_cpu(pid: int) -> dict[str, tuple[str, float]]:
    """Each thread of process ``pid``: its name and CPU seconds."""
    out: dict[str, tuple[str, float]] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            out[task.name] = (task / "comm").read_text().strip(), cpu_seconds(str(task / "stat"))
        except OSError:
            continue
    return out


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds by thread name (summed) of process ``pid``."""
    out: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            out[name] = out.get(name, 0.0) + cpu_seconds(str(task / "stat"))
        except OSError:
            continue
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000, help="non-persistent puts a round")
    parser.add_argument("--n-persistent", type=int, default=2_000, help="persistent puts a round")
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--warmup", type=int, default=5_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sharecnv", type=int, default=1, choices=(0, 1))
    parser.add_argument("--persistence", default="0,1", help="0: non-persistent, 1: persistent")
    parser.add_argument("--settle", type=float, default=1.0,
                        help="seconds between rounds: the last one's Kafka work done")  # fmt: skip
    parser.add_argument("--listener-env", action="append", default=[], metavar="NAME=VALUE",
                        help="for the listener alone, e.g. MQK_KAFKA_LINGER_MS=20")  # fmt: skip
    args = parser.parse_args()
    extra_env = dict(item.split("=", 1) for item in args.listener_env)
    kinds = [int(p) for p in args.persistence.split(",")]
    jars = client_jars()
    pool = bodies(args.size)
    rows: dict[int, list[tuple[float, float, float, float, float]]] = {p: [] for p in kinds}
    threads: dict[str, float] = {}
    idle: dict[str, float] = {}
    synchronous: dict[int, bool] = {}
    with (
        kafka() as bootstrap,
        tempfile.TemporaryDirectory() as classes,
        tempfile.TemporaryDirectory(prefix="mqk-bench-home-") as home,
    ):
        compile_programs(jars, Path(classes), [ROOT / "bench/java/AsyncPutBench.java"])
        namespace = f"b{uuid.uuid4().hex[:6]}."
        qmgr = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace)
        qmgr.define_queue("BENCH.PY", max_depth=999_999_999)
        qmgr.define_queue("BENCH.JAVA", max_depth=999_999_999)
        port = free_port()
        listener = subprocess.Popen(
            [sys.executable, "-m", "mqkafka.cli", "listen", "--bootstrap-servers", bootstrap,
             "--namespace", namespace, "--port", str(port), "--log-level", "WARNING",
             "--sharecnv", f"{CHANNEL}={args.sharecnv}"],
            env={**os.environ, **extra_env, "MQK_HOME": home},  # never the user's ~/.mqk
        )  # fmt: skip
        loads = [os.getloadavg()[0]]
        try:
            time.sleep(8)  # it defines the JMS queues, then listens
            queue = Queue(qmgr, "BENCH.PY", C.MQOO_OUTPUT)
            python_round(queue, pool, args.warmup, C.MQPER_NOT_PERSISTENT)
            command = java_command(
                jars, Path(classes), "AsyncPutBench", "127.0.0.1", str(port), CHANNEL,
                "BENCH.JAVA", str(args.size), str(args.warmup),
            )  # fmt: skip
            java = JavaSide(command, classes, listener.pid)
            for persistence in kinds:  # each kind's first round untimed: the JIT, Kafka's batches
                count = args.n if persistence == 0 else args.n_persistent
                java.round(count // 4, persistence)
                python_round(queue, pool, count // 4, persistence)
            idle = thread_cpu(listener.pid)
            time.sleep(5)
            idle = {k: (v - idle.get(k, 0.0)) / 5 for k, v in thread_cpu(listener.pid).items()}
            start_threads = thread_cpu(listener.pid)
            java.threads.clear()  # the timed rounds' alone
            for index in range(args.rounds):
                for persistence in kinds:
                    count = args.n if persistence == 0 else args.n_persistent
                    time.sleep(args.settle)
                    if index % 2:
                        py = python_round(queue, pool, count, persistence, True)
                        time.sleep(args.settle)
                        j = java.round(count, persistence)
                    else:
                        j = java.round(count, persistence)
                        time.sleep(args.settle)
                        py = python_round(queue, pool, count, persistence, True)
                    # IBM's client puts a persistent message outside syncpoint synchronously
                    # (MQSTAT then counts none): each put then waits for its answer
                    if j[2] != 0 or j[1] not in (0, count):
                        raise SystemExit(f"{count} puts: MQSTAT {j[1]} succeeded, {j[2]} failed")
                    synchronous[persistence] = j[1] == 0
                    rows[persistence].append((py, *j[:1], *j[3:], j[0] / py))
                loads.append(os.getloadavg()[0])
            end_threads = thread_cpu(listener.pid)
            threads = {k: end_threads[k] - start_threads.get(k, 0.0) for k in end_threads}
            java.close()
            queue.close()
        finally:
            listener.send_signal(signal.SIGTERM)
            listener.wait(30)
            qmgr.disconnect()
    print(f"async MQPUT, Java (IBM's 9.4 client, SHARECNV {args.sharecnv}) through mqk listen "
          f"against the Python MQI, {args.size}-byte random bodies, outside syncpoint, "
          f"{args.rounds} alternated pairs; {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.1f}' for x in loads)}")  # fmt: skip
    for persistence in kinds:
        got = rows[persistence]
        label = "persistent    " if persistence else "non-persistent"
        label += ", synchronous (MQSTAT counted none)" if synchronous[persistence] else ""
        count = args.n if persistence == 0 else args.n_persistent
        ratios = [r[4] for r in got]
        print(f"  {label} ({count} a round): ratio Java/Python median "
              f"{statistics.median(ratios):6.1%}  min {min(ratios):6.1%}  pairs "
              + " ".join(f"{r:.0%}" for r in ratios))  # fmt: skip
        print(f"    Java   {statistics.median(r[1] for r in got):>9,.0f}/s  rounds "
              + " ".join(f"{r[1]:,.0f}" for r in got))  # fmt: skip
        print(f"    Python {statistics.median(r[0] for r in got):>9,.0f}/s  rounds "
              + " ".join(f"{r[0]:,.0f}" for r in got))  # fmt: skip
        listener_us = statistics.median(r[2] for r in got) * 1e6
        client_us = statistics.median(r[3] for r in got) * 1e6
        python_us = statistics.median(PY_CPU[persistence]) * 1e6
        print(f"    CPU a put (median): listener {listener_us:.1f} us + IBM's client "
              f"{client_us:.1f} us; Python MQI {python_us:.1f} us (its process)")  # fmt: skip
        conn_us, rdk_us = (sum(java.threads.get((persistence, k), [0.0])) / len(got) * 1e6
                           for k in ("python", "rdk"))  # fmt: skip
        own_us = statistics.median(PY_THREAD[persistence]) * 1e6
        print(f"    by thread (mean over the rounds: 10 ms ticks): the listener's connection "
              f"{conn_us:.1f} us + its producer's {rdk_us:.1f} us; the Python MQI's putting "
              f"thread {own_us:.1f} us (median)")  # fmt: skip
    print(
        "  the listener idle, CPU a second by thread: "
        + ", ".join(f"{k} {v:.3f}" for k, v in sorted(idle.items(), key=lambda kv: -kv[1])[:4])
    )
    for who, split in (("the listener's", threads), ("the Python MQI's", PY_THREADS)):
        busy = sorted(split.items(), key=lambda kv: -kv[1])[:5]
        print(f"  {who} CPU over the timed rounds by thread: "
              + ", ".join(f"{name} {sec:.2f} s" for name, sec in busy))  # fmt: skip


if __name__ == "__main__":
    main()
