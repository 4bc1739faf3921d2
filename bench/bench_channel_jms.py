"""JMS v6 (migration mode) publish-to-receive through ``mqk listen`` and ``mqk serve``: the
rate and p50/p99 latency of non-persistent publications from a JMS producer to a JMS message
listener on the same connection (issue 33's figure); prints figures.

    python -m bench.bench_channel_jms [--n 1000] [--size 256] [--broker-version 2]

Uses the broker in $MQK_BOOTSTRAP_SERVERS, or starts a throw-away local one. Needs Maven and
a JDK (IBM's client from Maven Central, as bench_channel). Two phases: one publication at a
time (each one's own latency), then ``--n`` flat out (the rate from the first send to the last
receive, and the latencies under that load).
"""

from __future__ import annotations

import argparse
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from tests.integration.channel.javaclient import client_jars, compile_programs, java_command

from bench.kafka_env import kafka
from mqkafka.kafka.localbroker import free_port
from mqkafka.kafka.provision import apply_catalogue

ROOT = Path(__file__).resolve().parents[1]


def _started(log: Path, marker: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while marker not in log.read_text(errors="replace"):
        if time.monotonic() > deadline:
            raise SystemExit(f"no {marker!r} in {log}")
        time.sleep(0.3)


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
        serve_log, listen_log = Path(classes) / "serve.log", Path(classes) / "listen.log"
        serve = subprocess.Popen(
            [*mqk, "serve", *common, "--instance-id", "bench", "--state-dir",
             str(Path(classes) / "state")],
            stdout=subprocess.DEVNULL, stderr=serve_log.open("w"),
        )  # fmt: skip
        port = free_port()
        listener = subprocess.Popen(
            [*mqk, "listen", *common, "--port", str(port)],
            stdout=subprocess.DEVNULL, stderr=listen_log.open("w"),
        )  # fmt: skip
        try:
            _started(serve_log, "broker ready")
            _started(listen_log, "listening on")
            done = subprocess.run(
                java_command(jars, Path(classes), "JmsPubSubBench", "127.0.0.1", str(port),
                             args.broker_version, str(args.n), str(args.size)),
                capture_output=True, text=True, check=False, cwd=classes,
            )  # fmt: skip
        finally:
            for proc in (listener, serve):
                proc.send_signal(signal.SIGTERM)
                proc.wait(60)
        if done.returncode != 0:
            raise SystemExit(done.stdout + done.stderr[-3000:])
        rate = re.search(r"^RATE ([\d.]+)$", done.stdout, re.M)
        print(f"JMS v6 broker version V{args.broker_version}, {args.size}-byte non-persistent "
              f"publications, producer and listener on one connection")  # fmt: skip
        for phase, p50, p99 in re.findall(
            r"^LAT (\S+) p50 ([\d.]+) p99 ([\d.]+)$", done.stdout, re.M
        ):
            print(
                f"{phase:<14} publish-to-receive p50 {float(p50):8.1f} ms"
                f"   p99 {float(p99):8.1f} ms"
            )
        if rate:
            print(f"flat out ({args.n}): {float(rate.group(1)):,.0f} publications/s")


if __name__ == "__main__":
    main()
