"""Deployment figures (issue 18): the wheel's size; from ``pip install`` of the wheel into a new
virtualenv to the first command the installed service answers; and what SASL/SCRAM costs:
fan-out-1 publications/s through ``mqk serve`` and a batched relay's records/s on a plaintext
and a SASL/SCRAM-SHA-512 local broker, side by side in one run.

Run: ``python -m bench.bench_deploy [--records N]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench import bench_service
from mqkafka.kafka.localbroker import LocalBroker

CHECKOUT = Path(__file__).resolve().parents[1]


def build_wheel(out: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(CHECKOUT)],
        check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    (wheel,) = out.glob("*.whl")
    return wheel


def install_to_first_answer(wheel: Path, bootstrap: str, root: Path) -> tuple[float, float]:
    """Seconds of ``pip install`` (pip's cache as a user's machine has it), and seconds from
    then until the installed service has answered a RegSub."""
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    began = time.perf_counter()
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--quiet", str(wheel)], check=True, timeout=900
    )
    installed = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQK_")}
    env |= {"MQK_HOME": str(root / "home"), "MQK_BOOTSTRAP_SERVERS": bootstrap}
    env["MQK_NAMESPACE"] = f"d{uuid.uuid4().hex[:6]}."
    mqk = str(venv / "bin" / "mqk")
    log = root / "serve.log"
    service = subprocess.Popen(
        [mqk, "serve"], env=env, cwd=root, stdout=subprocess.DEVNULL, stderr=log.open("w")
    )
    try:
        while True:
            done = subprocess.run(
                [mqk, "subscribe", "Deploy/#", "--queue", "APP.DEPLOY"], env=env, cwd=root,
                capture_output=True, text=True, timeout=120, check=False,
            )  # fmt: skip
            if done.stdout.strip() == "ok":
                return installed - began, time.perf_counter() - installed
            if service.poll() is not None:
                raise RuntimeError(f"the installed service exited:\n{log.read_text()[-2000:]}")
    finally:
        service.terminate()
        service.wait(60)


def rates(bootstrap: str, records: int, config: Path | None) -> tuple[float, float]:
    """(service fan-out-1 publications/s, relay records/s) with these client settings."""
    if config is None:
        os.environ.pop("MQK_KAFKA_CONFIG", None)
    else:
        os.environ["MQK_KAFKA_CONFIG"] = str(config)
    try:
        service = bench_service.throughput(bootstrap, records, 256, 1)
        relay = bench_service.relay_baseline(bootstrap, records, 256)
    finally:
        os.environ.pop("MQK_KAFKA_CONFIG", None)
    return service, relay


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mqk-deploy-") as tmp:
        root = Path(tmp)
        plain = LocalBroker(root / "plain", heap="2g")
        sasl = LocalBroker(root / "sasl", heap="2g", security="sasl")
        try:
            plain_bootstrap = plain.start(timeout=180).bootstrap
            sasl_info = sasl.start(timeout=180)
            wheel = build_wheel(root / "wheels")
            print(f"wheel: {wheel.name}, {wheel.stat().st_size / 1024:.0f} KiB")
            install, first = install_to_first_answer(wheel, plain_bootstrap, root / "install")
            print(
                f"pip install of the wheel: {install:.1f}s; then to the first answer: {first:.1f}s"
            )
            admin = Path((sasl_info.client_files or {})["admin"])
            print(f"{'round':>5} {'kafka':>10} {'service/s':>10} {'relay/s':>10} {'ratio':>6}")
            totals: dict[str, list[float]] = {"plaintext": [0, 0], "sasl": [0, 0]}
            for round_ in range(args.rounds):  # alternated: the machine's drift falls on both
                for name, bootstrap, config in (
                    ("plaintext", plain_bootstrap, None),
                    ("sasl", sasl_info.bootstrap, admin),
                ):
                    service, relay = rates(bootstrap, args.records, config)
                    totals[name][0] += service
                    totals[name][1] += relay
                    print(
                        f"{round_ + 1:>5} {name:>10} {service:>10,.0f} {relay:>10,.0f} "
                        f"{service / relay:>6.0%}"
                    )
            (ps, pr), (ss, sr) = totals["plaintext"], totals["sasl"]
            print(
                f"SASL/SCRAM costs the service {1 - ss / ps:+.1%} and the relay {1 - sr / pr:+.1%}"
            )
        finally:
            sasl.stop()
            plain.stop()


if __name__ == "__main__":
    main()
