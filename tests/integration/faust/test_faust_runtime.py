"""The broker service on the Faust runtime (issue 36 point 2): the same engine and dispatcher
as ``mqk serve``, run by a Faust agent with the exactly-once correction."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mqkafka.client.kafka_pubsub import KafkaPubSub
from tests.integration.service.conftest import ServiceProcess, client, namespace

pytestmark = pytest.mark.kafka

RUNNER = Path(__file__).with_name("faust_serve.py")

__all__ = ["client", "namespace"]


class FaustServiceProcess(ServiceProcess):
    """One worker of the Faust runtime; said ready by the same log line as ``mqk serve``."""

    def start(self, timeout: float = 120.0, *extra: str) -> ServiceProcess:
        self._ready.clear()
        self.proc = subprocess.Popen(
            [
                sys.executable, str(RUNNER), "--bootstrap-servers", self.bootstrap,
                "--namespace", self.namespace, "--instance-id", self.instance,
                "--state-dir", str(self.state_dir), *extra,
            ],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        threading.Thread(target=self._read_log, args=(self.proc,), daemon=True).start()
        if not self._ready.wait(timeout):
            tail = "\n".join(json.dumps(e) for e in self.log[-40:])
            self.kill()
            raise AssertionError(f"the Faust runtime did not become ready:\n{tail}")
        return self


@pytest.fixture
def faust_service(
    kafka_bootstrap: str, namespace: str, tmp_path: Path
) -> Iterator[Callable[..., ServiceProcess]]:
    started: list[ServiceProcess] = []

    def start(instance: str = "1") -> ServiceProcess:
        service = FaustServiceProcess(kafka_bootstrap, namespace, tmp_path / "state", instance)
        started.append(service)
        return service.start(120.0)

    yield start
    for service in started:
        service.kill()


def test_a_subscriber_gets_a_publication(
    faust_service: Callable[..., ServiceProcess], client: KafkaPubSub
) -> None:
    faust_service()
    assert client.register("Sport/#", queue="APP.SPORT").ok  # type: ignore[union-attr]
    client.publish("Sport/Soccer", b"4-1", wait=None)
    bodies = [m.body for m in client.read_queue("APP.SPORT", count=1, timeout=30)]
    assert bodies == [b"4-1"]


def test_sigkill_during_publications_loses_and_duplicates_nothing(
    faust_service: Callable[..., ServiceProcess], client: KafkaPubSub
) -> None:
    """The service suite's SIGKILL test, smaller: a Faust worker handles each record alone."""
    service = faust_service()
    assert client.register("Orders/#", queue="APP.ORDERS").ok  # type: ignore[union-attr]
    total = 300
    for i in range(total):
        client.publish(f"Orders/{i % 7}", f"order-{i}".encode(), persistent=True, wait=None)
        if i == 100:
            service.kill()  # in the middle of the run
            service.start()
    # One queue partition: a copy delivered twice takes the place of one still to come.
    bodies = [m.body for m in client.read_queue("APP.ORDERS", count=total, timeout=60)]
    assert sorted(bodies) == sorted(f"order-{i}".encode() for i in range(total))
    again = list(client.read_queue("APP.ORDERS", count=total + 1, timeout=5))
    assert len(again) == total, f"{len(again)} delivered"
