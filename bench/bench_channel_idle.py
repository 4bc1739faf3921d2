"""The listener's memory, threads and idle CPU with idle JMS v6 connections (issue 33's
figure); prints figures.

    python -m bench.bench_channel_idle [--steps 50,100,200] [--settle 10]

Uses the broker in $MQK_BOOTSTRAP_SERVERS, or starts a throw-away local one. Needs Maven and
a JDK (IBM's client from Maven Central, as bench_channel). One JVM opens JMS connections
(migration mode, each started with one session) through ``mqk listen`` up to each count of
``--steps`` in turn and holds them; at each count, once settled, the listener's resident
memory and thread count are read from /proc, with the CPU it spent over ``--settle`` seconds
of holding them idle and the client connections (sockets) it serves. A JMS v6 connection
opens more than one socket, each its own MQCONN. If the client gives up part way (a busy
machine), the rows so far and the figures at the most sockets seen are printed with the
error.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from devsupport.javaclient import client_jars, compile_programs, java_command

from bench.bench_channel_jms import _started
from bench.kafka_env import kafka
from mqkafka.kafka.localbroker import free_port
from mqkafka.kafka.provision import apply_catalogue

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")


def process_figures(pid: int) -> tuple[float, int]:
    """Resident memory (MB) and thread count of ``pid``."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["Threads"])


def cpu_seconds(pid: int) -> float:
    """User and system CPU ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def sockets_served(log: Path) -> int:
    text = log.read_text(errors="replace")
    return text.count("connected: channel") - text.count("ended:")


@dataclass(frozen=True)
class Row:
    connections: int
    sockets: int
    mb: float
    threads: int
    cpu: float  # the listener's CPU share (1.0 = one core) while they are held idle
    opened: float  # seconds the client took to open this step's connections


class Sampler:
    """Samples the listener's figures every second, keeping those at the most sockets."""

    def __init__(self, pid: int, log: Path) -> None:
        self.pid, self.log = pid, log
        self.peak: tuple[int, float, int] = (0, 0.0, 0)  # sockets, MB, threads
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            self.sample()

    def sample(self) -> None:
        sockets = sockets_served(self.log)
        with contextlib.suppress(OSError):
            mb, threads = process_figures(self.pid)
            if sockets >= self.peak[0]:
                self.peak = (sockets, mb, threads)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def held(pid: int, log: Path, connections: int, opened: float, settle: float) -> Row:
    """The listener's figures once ``connections`` are open: CPU over ``settle`` seconds."""
    time.sleep(3)  # each connection's first rounds done
    cpu_before, began = cpu_seconds(pid), time.monotonic()
    time.sleep(settle)
    cpu = (cpu_seconds(pid) - cpu_before) / (time.monotonic() - began)
    mb, threads = process_figures(pid)
    return Row(connections, sockets_served(log), mb, threads, cpu, opened)


def report(rows: list[Row]) -> None:
    print(f"{'JMS conns':>9} {'sockets':>7} {'RSS MB':>8} {'threads':>7} {'idle CPU':>8} "
          f"{'opened in':>9} {'MB/conn':>7} {'thr/conn':>8}")  # fmt: skip
    base = rows[0]
    for row in rows:
        n = row.connections
        per_mb = f"{(row.mb - base.mb) / n:7.2f}" if n else f"{'':7}"
        per_thr = f"{(row.threads - base.threads) / n:8.1f}" if n else f"{'':8}"
        print(f"{n:9d} {row.sockets:7d} {row.mb:8.1f} {row.threads:7d} {row.cpu:7.0%} "
              f"{row.opened:8.1f}s {per_mb} {per_thr}")  # fmt: skip
    if len(rows) > 2:  # the slope between the first and last counts: no start-up costs in it
        first, last = rows[1], rows[-1]
        span = last.connections - first.connections
        sockets = max(last.sockets - first.sockets, 1)
        print(f"marginal, {first.connections} -> {last.connections} connections: "
              f"{(last.mb - first.mb) / span * 1024:.0f} kB and "
              f"{(last.threads - first.threads) / span:.1f} threads a JMS connection, "
              f"{(last.mb - first.mb) / sockets * 1024:.0f} kB a socket")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", default="50,100,200", help="connection counts, in turn")
    parser.add_argument("--settle", type=float, default=10.0, help="seconds of idle CPU read")
    args = parser.parse_args()
    steps = [int(s) for s in args.steps.split(",")]
    jars = client_jars()
    with kafka() as bootstrap, tempfile.TemporaryDirectory() as classes:
        compile_programs(jars, Path(classes), [ROOT / "bench/java/JmsIdleBench.java"])
        namespace = f"b{uuid.uuid4().hex[:6]}."
        apply_catalogue(bootstrap, prefix=namespace)
        log = Path(classes) / "listen.log"
        port = free_port()
        listener = subprocess.Popen(
            [sys.executable, "-m", "mqkafka.cli", "listen", "--bootstrap-servers", bootstrap,
             "--namespace", namespace, "--port", str(port), "--max-connections",
             str(max(steps) * 4 + 10)],
            stdout=subprocess.DEVNULL, stderr=log.open("w"),
        )  # fmt: skip
        java: subprocess.Popen[str] | None = None
        rows: list[Row] = []
        failure = ""
        try:
            _started(log, "listening on")
            rows.append(held(listener.pid, log, 0, 0.0, args.settle))
            sampler = Sampler(listener.pid, log)
            java = subprocess.Popen(
                java_command(jars, Path(classes), "JmsIdleBench", "127.0.0.1", str(port),
                             args.steps),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=classes,
            )  # fmt: skip
            assert java.stdin is not None and java.stdout is not None
            for count in steps:
                began = time.monotonic()
                ready = java.stdout.readline().strip()
                if ready != f"READY {count}":
                    sockets, mb, threads = sampler.peak
                    failure = (
                        f"the JMS program gave up on the way to {count} connections after "
                        f"{time.monotonic() - began:.0f} s (see its error above); the listener "
                        f"at its most: {sockets} client connections (sockets), {mb:.1f} MB "
                        f"resident, {threads} threads"
                    )
                    break
                rows.append(held(listener.pid, log, count, time.monotonic() - began, args.settle))
                java.stdin.write("next\n")
                java.stdin.flush()
            sampler.stop()
        finally:
            if java is not None:
                if java.stdin is not None:
                    with contextlib.suppress(OSError):
                        java.stdin.close()
                java.wait(300)
            listener.send_signal(signal.SIGTERM)
            listener.wait(300)
        print(f"idle JMS v6 connections (one session each) through mqk listen, {os.cpu_count()} "
              f"CPUs; idle CPU over {args.settle:.0f} s held")  # fmt: skip
        report(rows)
        if failure:
            raise SystemExit(failure)


if __name__ == "__main__":
    main()
