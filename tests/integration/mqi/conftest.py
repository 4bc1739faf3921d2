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

from mqkafka.cli.serveprocess import ServeProcess
from mqkafka.kafka.provision import apply_catalogue
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
    apply_catalogue(kafka_bootstrap, prefix=namespace)
    state = tmp_path_factory.mktemp("serve-state")
    with ServeProcess(kafka_bootstrap, namespace, state, instance_id="mqi-tests"):
        yield namespace
