"""``mqk serve --runtime faust`` (issue 36 point 2): the same engine and dispatcher as the
default runtime, run by a Faust agent with mqkafka.faust's exactly-once correction."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mqkafka.client.kafka_pubsub import KafkaPubSub
from tests.integration.service.conftest import ServiceProcess, client, namespace, start_service

pytestmark = pytest.mark.kafka

__all__ = ["client", "namespace", "start_service"]


@pytest.fixture(autouse=True)
def faust_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``mqk serve`` these tests start (restarts included) runs on Faust."""
    monkeypatch.setenv("MQK_RUNTIME", "faust")


def test_sigkill_during_publications_loses_and_duplicates_nothing(
    start_service: Callable[..., ServiceProcess], client: KafkaPubSub
) -> None:
    """The service suite's SIGKILL test, smaller: a Faust worker handles each record alone."""
    service = start_service()
    assert any(m.startswith("runtime: faust") for m in service.messages())
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
