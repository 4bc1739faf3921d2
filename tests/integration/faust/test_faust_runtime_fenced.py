"""``mqk serve --runtime faust`` fenced: another producer takes one of its transactional ids
(what a second worker would do that no instance check could see). What no waiting cures ends
it with the default runtime's one line and exit code 3 (the service suite's test fences the
default loop's one id; a Faust worker has one per input partition: ``{app}-{group}-{p}``)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from tests.integration.service.conftest import ServiceProcess, client, namespace, start_service

pytestmark = pytest.mark.kafka

__all__ = ["client", "namespace", "start_service"]


def test_a_fenced_transactional_id_ends_the_faust_runtime_in_one_line_with_exit_3(
    start_service: Callable[..., ServiceProcess],
    client: KafkaPubSub,
    kafka_bootstrap: str,
    namespace: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MQK_RUNTIME", "faust")
    service = start_service()
    assert client.register("Before/#", queue="APP.BEFORE").ok  # type: ignore[union-attr]
    # the control queue's partition 0, whichever group number Faust's assignor gave it
    for group in range(2):
        intruder = clients.producer(
            ClientConfig(kafka_bootstrap),
            {"transactional.id": f"{namespace}mqk-broker-{group}-0"},
        )
        intruder.init_transactions(60)  # fences the worker's producer for that id
    client.register("Fenced/#", queue="APP.FENCED", wait=None)  # its next transaction
    assert service.proc is not None
    assert service.proc.wait(90) == 3
    time.sleep(0.5)  # the log reader's last lines
    said = [m for m in service.messages() if "fenced by a newer instance" in m]
    assert len(said) == 1 and "the broker service stopped" in said[0], said
    assert "Traceback" not in "\n".join(service.messages())
