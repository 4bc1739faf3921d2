"""The Faust example (examples/faust_summary.py) against the real broker service: it subscribes,
counts publications per topic in a Faust Table and publishes the summary back as a retained
publication; a delivery the service aborted is never seen."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable

import pytest

from mqkafka.client.kafka_pubsub import KafkaPubSub, command_message
from mqkafka.kafka import clients, topicadmin
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.wire.headers import mqmd_to_headers
from mqkafka.wire.names import queue_to_topic
from tests.integration.faust.conftest import FaustWorker

pytestmark = pytest.mark.kafka

QUEUE = "FAUST.SPORT"


def put_aborted_publication(bootstrap: str, namespace: str, topic: str) -> None:
    """A delivery as the service writes it, in a transaction that is then aborted (a worker
    killed mid-batch leaves such records behind)."""
    config = ClientConfig(bootstrap)
    name = queue_to_topic(QUEUE, namespace)
    topicadmin.ensure_topic(clients.admin(config), name)
    md, value = command_message([("Command", "Publish"), ("Topic", topic)], body=b"aborted")
    producer = clients.producer(config, {"transactional.id": f"t-{uuid.uuid4().hex}"})
    producer.init_transactions(30)
    producer.begin_transaction()
    producer.produce(name, value=value, headers=mqmd_to_headers(md))
    producer.flush(30)
    producer.abort_transaction(30)


def summary(client: KafkaPubSub, queue: str, until: int, worker: FaustWorker) -> dict[str, object]:
    """The first summary on ``queue`` that counts ``until`` publications."""
    for received in client.read_queue(queue, timeout=40):
        found = json.loads(received.body)
        if found["publications"] == until:
            return dict(found)
    raise AssertionError(f"no summary counting {until} publications on {queue}:\n{worker.tail()}")


def test_a_faust_table_counts_publications_and_publishes_a_retained_summary(
    kafka_bootstrap: str,
    namespace: str,
    start_service: Callable[..., object],
    faust_worker: Callable[..., FaustWorker],
    client: KafkaPubSub,
) -> None:
    start_service()
    put_aborted_publication(kafka_bootstrap, namespace, "Sport/Aborted")
    assert client.register("Summary/Sport", queue="TEST.SUMMARIES").ok  # type: ignore[union-attr]

    worker = faust_worker("faust_summary.py", SUMMARY_QUEUE=QUEUE)
    assert worker.wait_for(f"RegSub Sport/# -> {QUEUE}:").endswith(": ok")
    for topic in ("Sport/Soccer", "Sport/Tennis", "Sport/Soccer", "Sport/Soccer"):
        assert client.publish(topic, b"result").ok  # type: ignore[union-attr]
    assert summary(client, "TEST.SUMMARIES", 4, worker)["topics"] == {
        "Sport/Soccer": 3,
        "Sport/Tennis": 1,
    }

    # Retained: a new subscriber gets the latest summary at once, as a retained publication.
    assert client.register("Summary/Sport", queue="TEST.LATE").ok  # type: ignore[union-attr]
    late = next(client.read_queue("TEST.LATE", count=1, timeout=20))
    assert json.loads(late.body)["publications"] == 4
    assert worker.stop() == 0, worker.tail()
