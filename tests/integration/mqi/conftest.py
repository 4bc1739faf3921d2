"""MQI integration fixtures: connections to the session's Kafka in a namespace per module.

Connecting creates what a namespace needs (the catalogue and heartbeat topics, the system
queues), so no provisioning step is required; heartbeats are fast here so that liveness
tests finish in seconds.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

FAST = {"heartbeat_interval": 0.5, "liveness_timeout": 3.0}


@pytest.fixture(scope="module")
def namespace() -> str:
    return f"m{uuid.uuid4().hex[:8]}."


@pytest.fixture
def connect(kafka_bootstrap: str, namespace: str) -> Iterator[Callable[..., QueueManager]]:
    """``connect(**settings)``: a connected QueueManager, disconnected after the test."""
    made: list[QueueManager] = []

    def make(**options: Any) -> QueueManager:
        qmgr = QueueManager(
            "QM1", bootstrap_servers=kafka_bootstrap, namespace=namespace, **{**FAST, **options}
        )
        made.append(qmgr)
        return qmgr

    yield make
    for qmgr in made:
        if qmgr.is_connected:
            qmgr.disconnect()


@pytest.fixture
def qmgr(connect: Callable[..., QueueManager]) -> QueueManager:
    return connect()


@pytest.fixture
def new_queue(qmgr: QueueManager) -> Callable[..., str]:
    """``new_queue(**attributes)``: define a fresh local queue, return its name."""

    def define(**attributes: Any) -> str:
        name = f"APP.{uuid.uuid4().hex[:10].upper()}"
        qmgr.define_queue(name, **attributes)
        return name

    return define


@pytest.fixture(scope="module")
def broker_service(
    kafka_bootstrap: str, namespace: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A real ``mqk serve`` for this module's namespace (the pub/sub tests talk to it)."""
    import json
    import os
    import signal
    import subprocess
    import sys
    import threading
    from pathlib import Path

    from mqkafka.kafka.provision import apply_catalogue

    apply_catalogue(kafka_bootstrap, prefix=namespace)
    mqk = str(Path(sys.executable).with_name("mqk"))
    state = tmp_path_factory.mktemp("serve-state")
    proc = subprocess.Popen(
        [mqk, "serve", "--bootstrap-servers", kafka_bootstrap, "--namespace", namespace,
         "--instance-id", "mqi-tests", "--state-dir", str(state)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    ready = threading.Event()
    log: list[str] = []

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            log.append(line)
            try:
                message = str(json.loads(line).get("msg", ""))
            except ValueError:
                message = line
            if message.startswith("broker ready"):
                ready.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        if not ready.wait(120):
            raise AssertionError("mqk serve did not start:\n" + "".join(log[-20:]))
        yield namespace
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
