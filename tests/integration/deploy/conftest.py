"""A secured local broker (``mqk kafka start --security sasl``) for the deployment tests, and a
way to run ``mqk`` commands and the service as a user would, with a client properties file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

MQK = [str(Path(sys.executable).with_name("mqk"))]  # the installed entry point


@dataclass(frozen=True)
class SecuredKafka:
    home: Path
    bootstrap: str
    service: Path  # client properties of the service user
    app: Path  # of the application user
    admin: Path
    tls: dict[str, Path]  # user -> properties for the SASL_SSL listener (a test certificate)


def run_mqk(
    *args: str, home: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("MQK_")}
    environment |= {"MQK_HOME": str(home), **(env or {})}
    return subprocess.run(
        [*MQK, *args], capture_output=True, text=True, env=environment, timeout=timeout,
        check=False, cwd=home,
    )  # fmt: skip


@pytest.fixture(scope="module")
def secured_kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecuredKafka]:
    home = tmp_path_factory.mktemp("sasl-home")
    started = run_mqk("kafka", "start", "--security", "sasl", home=home, timeout=240)
    try:
        assert started.returncode == 0, started.stderr + started.stdout
        files = dict(re.findall(r"client properties for (\S+): (\S+)", started.stdout))
        yield SecuredKafka(
            home,
            started.stdout.strip().splitlines()[-1],
            Path(files["mqk-service"]),
            Path(files["mqk-app"]),
            Path(files["admin"]),
            {u.removesuffix("-tls"): Path(f) for u, f in files.items() if u.endswith("-tls")},
        )
    finally:
        run_mqk("kafka", "stop", home=home)


def prepare_namespace(kafka: SecuredKafka, namespace: str) -> None:
    """What an operator does once per queue manager: topics and ACLs, as the admin user."""
    for command in (["topics", "apply"], ["kafka", "acls", "--apply"]):
        done = run_mqk(
            *command, "--namespace", namespace, "--kafka-config", str(kafka.admin), home=kafka.home
        )
        assert done.returncode == 0, done.stderr


@pytest.fixture
def service_as(tmp_path: Path) -> Iterator[object]:
    """Start ``mqk serve`` with a properties file; waits for 'broker ready'."""
    started: list[subprocess.Popen[str]] = []

    def start(
        kafka: SecuredKafka, namespace: str, *extra: str, config: Path | None = None
    ) -> subprocess.Popen[str]:
        log = tmp_path / f"serve-{len(started)}.log"
        environment = {k: v for k, v in os.environ.items() if not k.startswith("MQK_")}
        proc = subprocess.Popen(
            [*MQK, "serve", "--kafka-config", str(config or kafka.service),
             "--namespace", namespace, "--state-dir", str(tmp_path / "state"), *extra],
            stdout=log.open("w"), stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
            env={**environment, "MQK_HOME": str(kafka.home)},
        )  # fmt: skip
        started.append(proc)
        deadline = time.monotonic() + 120
        while "broker ready" not in log.read_text():
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        return proc

    yield start
    for proc in started:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
