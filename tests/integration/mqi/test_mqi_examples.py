"""The example programs under examples/ (IBM's pymqi samples, import changed) run against
the test Kafka, and the broker service where pub/sub needs it; each as its own process."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.kafka

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.fixture
def env(kafka_bootstrap: str, namespace: str, new_queue: Callable[..., str]) -> dict[str, str]:
    host, port = kafka_bootstrap.split(",")[0].rsplit(":", 1)
    clean = {k: v for k, v in os.environ.items() if k not in ("MQSERVER", "MQK_BOOTSTRAP_SERVERS")}
    return {
        **clean,
        "HOST": host,
        "PORT": port,
        "MQK_NAMESPACE": namespace,
        "QUEUE_NAME": new_queue(),
        "PYTHONUNBUFFERED": "1",
    }


def run(name: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture
def started() -> Iterator[Callable[[str, dict[str, str], str], subprocess.Popen[str]]]:
    """``started(example, env, ready_line)``: a background example, once it says it is ready."""
    procs: list[subprocess.Popen[str]] = []

    def start(name: str, env: dict[str, str], ready: str) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [sys.executable, str(EXAMPLES / name)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        procs.append(proc)
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(ready):
                return proc
        raise AssertionError(
            f"{name} ended before '{ready}': {proc.stderr.read() if proc.stderr else ''}"
        )

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_put_get(env: dict[str, str]) -> None:
    out = run("basic_put_get.py", env)
    assert "got {'Greeting': 'Hello from Python!', 'value': 42}" in out


def test_request_response(
    env: dict[str, str], started: Callable[[str, dict[str, str], str], subprocess.Popen[str]]
) -> None:
    responder = started("basic_response.py", {**env, "ONE_REQUEST": "1"}, "responder ready")
    out = run("basic_request.py", env)
    assert "reply {'value': 42}" in out
    rest, errors = responder.communicate(timeout=120)
    assert responder.returncode == 0, errors
    assert 'replied {"value": 42}' in rest


def test_subscribe_publish(
    broker_service: str,
    env: dict[str, str],
    started: Callable[[str, dict[str, str], str], subprocess.Popen[str]],
) -> None:
    env = {**env, "TOPIC_NAME": f"dev/{uuid.uuid4().hex[:8]}", "SUB_NAME": uuid.uuid4().hex[:12]}
    subscriber = started("basic_subscribe.py", env, "subscribed")
    assert "published" in run("basic_publish.py", env)
    out, errors = subscriber.communicate(timeout=120)
    assert subscriber.returncode == 0, errors
    assert "publication {'Greeting': 'Hello from Python!'}" in out
