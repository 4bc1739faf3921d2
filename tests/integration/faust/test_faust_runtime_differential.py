"""Both runtimes of ``mqk serve`` give the same records for the same input (issue 36 point 3):
one command script, each runtime in a namespace of its own, the replies and every subscriber
queue's messages compared (less what differs by nature: MsgIds, times, generated CorrelIds)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.kafka.provision import apply_catalogue
from tests.integration.service.conftest import ServiceProcess

pytestmark = pytest.mark.kafka

QUEUES = ("APP.DIFF", "APP.LATE", "APP.FILTERED")


def script(client: KafkaPubSub) -> list[Any]:
    """Commands as an MQ application sends them; what the broker answered, in order."""
    answers = [
        client.register("Sport/#", queue="APP.DIFF"),
        client.register("Sport/#", queue="APP.FILTERED", filter="Score > 2"),
        client.publish("Sport/Soccer", b"1-0", retain=True),
        client.publish("Sport/Tennis", b"6-4"),
        client.register("Sport/Soccer", queue="APP.LATE"),  # gets the retained 1-0
        client.register("Sport/#", queue="APP.DIFF"),  # again: a warning, or an update
        client.deregister("Sport/#", queue="APP.DIFF"),
        client.deregister("Sport/#", queue="APP.DIFF"),  # no such subscription
        client.publish("Sport/Golf", b"par"),
        client.delete_publication("Sport/Soccer"),
        client.delete_publication("Sport/Soccer"),  # nothing retained any more
        client.command([("Command", "NoSuchCommand")]),
    ]
    return [(a.completion, a.reason, a.reasons) if a is not None else None for a in answers]


def queues(client: KafkaPubSub) -> dict[str, list[tuple[Any, ...]]]:
    return {
        queue: [
            (m.topic, m.body, m.md.Format, m.md.MsgType, m.md.Persistence, sorted(m.psc.items()))
            for m in client.read_queue(queue, timeout=3)
        ]
        for queue in QUEUES
    }


def run_script(bootstrap: str, runtime: str, state: Path, monkeypatch: Any) -> Any:
    namespace = f"d{uuid.uuid4().hex[:8]}."
    apply_catalogue(bootstrap, prefix=namespace)
    monkeypatch.setenv("MQK_RUNTIME", runtime)
    service = ServiceProcess(bootstrap, namespace, state, "1").start(120.0)
    client = KafkaPubSub(bootstrap, namespace=namespace, user="tester")
    try:
        return script(client), queues(client)
    finally:
        client.close()
        service.kill()


def test_the_faust_runtime_answers_and_delivers_as_the_default_loop(
    kafka_bootstrap: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop = run_script(kafka_bootstrap, "loop", tmp_path / "loop", monkeypatch)
    faust = run_script(kafka_bootstrap, "faust", tmp_path / "faust", monkeypatch)
    assert faust == loop
    answers, delivered = loop
    assert answers[0] == ("ok", 0, ())  # the script did something worth comparing
    assert delivered["APP.LATE"] and delivered["APP.DIFF"]
