"""A 4 MB publication reaches ten subscribers (issue 21 point 4), over the real broker.

An operator raises ``max.message.bytes`` on the topics that carry it (the stream and the
subscriber queues) and the clients' ``message.max.bytes`` (``MQK_KAFKA_MESSAGE_MAX_BYTES``);
every copy then arrives whole, once, and the service goes on. Its memory on that path is
measured by ``bench_service --only large`` (a benchmark, not a test).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable

import pytest
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
)

from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.wire.names import queue_to_topic
from tests.integration.service.conftest import ServiceProcess

pytestmark = pytest.mark.kafka
STREAM = "SYSTEM.BROKER.DEFAULT.STREAM"
SIZE = 4 << 20  # the publication's body
LIMIT = SIZE + (1 << 20)  # room for the MQ headers (RFH2, MQMD) beside the body
SUBSCRIBERS = 10


def test_a_4_mb_publication_reaches_ten_subscribers_whole(
    start_service: Callable[..., ServiceProcess],
    kafka_bootstrap: str,
    namespace: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    big = {"max.message.bytes": str(LIMIT)}
    queues = [f"APP.LARGE{i}" for i in range(SUBSCRIBERS)]
    topics = [queue_to_topic(q, namespace) for q in queues]
    made = admin.create_topics([NewTopic(t, 1, 1, config=big) for t in topics])
    for future in made.values():
        future.result(30)
    raised = [
        ConfigEntry("max.message.bytes", str(LIMIT), incremental_operation=AlterConfigOpType.SET)
    ]
    stream = ConfigResource(
        ConfigResource.Type.TOPIC, queue_to_topic(STREAM, namespace), incremental_configs=raised
    )
    for future in admin.incremental_alter_configs([stream]).values():
        future.result(30)
    monkeypatch.setenv("MQK_KAFKA_MESSAGE_MAX_BYTES", str(LIMIT))  # the service's clients
    service = start_service()
    client = KafkaPubSub(
        ClientConfig(kafka_bootstrap, {"message.max.bytes": str(LIMIT)}), namespace=namespace
    )
    try:
        for queue in queues:
            assert client.register("Large/#", queue=queue).ok  # type: ignore[union-attr]
        body = os.urandom(SIZE)  # incompressible: 4 MB on the wire as well
        told = client.publish("Large/One", body)
        assert told is not None and told.ok, told
        assert client.publish("Large/Two", b"after").ok  # type: ignore[union-attr]
        digest = hashlib.sha256(body).digest()
        for queue in queues:
            copies = list(client.read_queue(queue, count=2, timeout=60))
            assert [len(m.body) for m in copies] == [SIZE, 5], queue
            assert hashlib.sha256(copies[0].body).digest() == digest, queue
            assert copies[1].body == b"after"
    finally:
        client.close()
    assert service.proc is not None and service.proc.poll() is None
