"""The listener's memory and threads with idle JMS v6 connections (issue 33's figure); prints
figures.

    python -m bench.bench_channel_idle [--connections 200]

Uses the broker in $MQK_BOOTSTRAP_SERVERS, or starts a throw-away local one. Needs Maven and
a JDK (IBM's client from Maven Central, as bench_channel). One JVM opens ``--connections``
JMS connections (migration mode, each started with one session) through ``mqk listen`` and
holds them; the listener's resident memory and thread count are read from /proc before and
while they are held, beside the client connections (sockets) it serves. If the client gives
up part way (a busy machine: each connection's MQI costs CPU even idle, and MQCONN slows as
they add up), the figures at the most sockets seen are printed with the error.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from devsupport.javaclient import client_jars, compile_programs, java_command

from bench.bench_channel_jms import _started
from bench.kafka_env import kafka
from mqkafka.kafka.localbroker import free_port
from mqkafka.kafka.provision import apply_catalogue

ROOT = Path(__file__).resolve().parents[1]


def process_figures(pid: int) -> tuple[float, int]:
    """Resident memory (MB) and thread count of ``pid``."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["Threads"])


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

    def sample(self) -> tuple[int, float, int]:
        text = self.log.read_text(errors="replace")
        sockets = text.count("connected: channel") - text.count("ended:")
        with contextlib.suppress(OSError):
            mb, threads = process_figures(self.pid)
            if sockets >= self.peak[0]:
                self.peak = (sockets, mb, threads)
        return self.peak

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--connections", type=int, default=200)
    args = parser.parse_args()
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
             str(args.connections * 4 + 10)],
            stdout=subprocess.DEVNULL, stderr=log.open("w"),
        )  # fmt: skip
        java: subprocess.Popen[str] | None = None
        try:
            _started(log, "listening on")
            time.sleep(2)
            before = process_figures(listener.pid)
            sampler = Sampler(listener.pid, log)
            began = time.monotonic()
            java = subprocess.Popen(
                java_command(jars, Path(classes), "JmsIdleBench", "127.0.0.1", str(port),
                             str(args.connections)),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=classes,
            )  # fmt: skip
            assert java.stdout is not None
            ready = java.stdout.readline().strip()
            opened = time.monotonic() - began
            if not ready.startswith("READY"):
                sampler.stop()
                sockets, mb, threads = sampler.peak
                raise SystemExit(
                    f"the JMS program gave up after {time.monotonic() - began:.0f} s (see its "
                    f"error above); the listener at its most: {sockets} client connections "
                    f"(sockets), {mb:.1f} MB resident, {threads} threads (before: "
                    f"{before[0]:.1f} MB, {before[1]} threads)"
                )
            time.sleep(5)  # settled: each connection's MQI threads started
            sampler.stop()
            sockets, *_ = sampler.sample()
            held = process_figures(listener.pid)
        finally:
            if java is not None:
                if java.stdin is not None:
                    java.stdin.close()
                java.wait(120)
            listener.send_signal(signal.SIGTERM)
            listener.wait(120)
        count = args.connections
        print(f"{count} idle JMS v6 connections (one session each), opened in {opened:.1f} s, "
              f"{sockets} client connections (sockets) served")  # fmt: skip
        print(f"listener before: {before[0]:7.1f} MB resident, {before[1]:5d} threads")
        print(f"listener held:   {held[0]:7.1f} MB resident, {held[1]:5d} threads")
        grown = held[0] - before[0]
        print(f"per JMS connection: {grown / count:.2f} MB, {(held[1] - before[1]) / count:.1f} "
              f"threads; per socket: {grown / max(sockets, 1):.2f} MB")  # fmt: skip


if __name__ == "__main__":
    main()
