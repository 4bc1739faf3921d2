"""A real ``mqk serve`` process against the session's Kafka, in a namespace of its own."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.kafka.provision import apply_catalogue

MQK = str(Path(sys.executable).with_name("mqk"))


class ServiceProcess:
    """One worker: started, stopped with SIGTERM, or killed with SIGKILL."""

    def __init__(self, bootstrap: str, namespace: str, state_dir: Path, instance: str) -> None:
        self.bootstrap = bootstrap
        self.namespace = namespace
        self.state_dir = state_dir
        self.instance = instance
        self.proc: subprocess.Popen[str] | None = None
        self.log: list[dict[str, object]] = []
        self._ready = threading.Event()

    def start(self, timeout: float = 120.0, *extra: str) -> ServiceProcess:
        self._ready.clear()
        self.proc = subprocess.Popen(
            [
                MQK, "serve", "--bootstrap-servers", self.bootstrap,
                "--namespace", self.namespace, "--instance-id", self.instance,
                "--state-dir", str(self.state_dir), *extra,
            ],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        threading.Thread(target=self._read_log, args=(self.proc,), daemon=True).start()
        if not self._ready.wait(timeout):
            tail = "\n".join(json.dumps(e) for e in self.log[-20:])
            self.kill()
            raise AssertionError(f"mqk serve did not become ready:\n{tail}")
        return self

    def _read_log(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            try:
                entry = json.loads(line)
            except ValueError:
                entry = {"msg": line.rstrip()}
            self.log.append(entry)
            if str(entry.get("msg", "")).startswith("broker ready"):
                self._ready.set()

    def stop(self, timeout: float = 60.0) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)

    def messages(self) -> list[str]:
        return [str(e.get("msg", "")) for e in self.log]


@pytest.fixture
def namespace(kafka_bootstrap: str) -> str:
    """A fresh namespace with the system topics provisioned in it."""
    ns = f"t{uuid.uuid4().hex[:8]}."
    apply_catalogue(kafka_bootstrap, prefix=ns)
    return ns


@pytest.fixture
def start_service(
    kafka_bootstrap: str, namespace: str, tmp_path: Path
) -> Iterator[Callable[..., ServiceProcess]]:
    started: list[ServiceProcess] = []

    def start(instance: str = "1", *extra: str) -> ServiceProcess:
        service = ServiceProcess(kafka_bootstrap, namespace, tmp_path / "state", instance)
        started.append(service)
        return service.start(120.0, *extra)

    yield start
    for service in started:
        if service.proc is not None and service.proc.poll() is None:
            try:
                service.stop(30)
            except subprocess.TimeoutExpired:
                service.kill()


@pytest.fixture
def client(kafka_bootstrap: str, namespace: str) -> Iterator[KafkaPubSub]:
    pubsub = KafkaPubSub(kafka_bootstrap, namespace=namespace, user="tester")
    yield pubsub
    pubsub.close()


def wait_until(predicate: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()
