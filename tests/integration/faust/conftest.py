"""The real broker service and a Faust worker process running an example app, both on the
session's Kafka in a namespace of their own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.integration.service.conftest import client, namespace, start_service

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

__all__ = ["FaustWorker", "client", "faust_worker", "namespace", "start_service"]


class FaustWorker:
    """``python examples/<app>.py worker`` (or the app at a path): its output kept, stopped
    with SIGTERM."""

    def __init__(self, app: str | Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(EXAMPLES / app), "worker", "--without-web", "-l", "info"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **env},
        )  # fmt: skip
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip())

    def wait_for(self, text: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = next((line for line in self.lines if text in line), None)
            if found is not None:
                return found
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"the Faust worker never said {text!r}:\n{self.tail()}")

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM; the exit code (-9 after a SIGKILL when it did not stop in ``timeout``)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        return self.proc.wait(10)

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.lines[-lines:])


@pytest.fixture
def faust_worker(
    kafka_bootstrap: str, namespace: str, tmp_path: Path
) -> Iterator[Callable[..., FaustWorker]]:
    """``faust_worker("faust_summary.py", **env)`` (a path: any app): started; stopped after
    the test."""
    started: list[FaustWorker] = []

    def start(app: str | Path, **env: str) -> FaustWorker:
        worker = FaustWorker(
            app,
            {
                "MQK_BOOTSTRAP_SERVERS": kafka_bootstrap,
                "MQK_NAMESPACE": namespace,
                "FAUST_DATADIR": str(tmp_path / "faust"),
                **env,
            },
        )
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()
