"""Issue 19 point 3: on a replicated local cluster (``mqk kafka start --brokers 3``), the
broker that leads the control queue's partition is killed during persistent publishing: the
service keeps serving, and every publication is delivered once."""

from __future__ import annotations

import collections
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mqkafka.client.kafka_pubsub import KafkaPubSub, command_message
from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.localcluster import LocalCluster
from mqkafka.kafka.provision import apply_catalogue
from mqkafka.mq.commands import DEFAULT_STREAM
from mqkafka.mq.mqmd import MQMD, MQPER
from mqkafka.wire.headers import mqmd_to_headers
from mqkafka.wire.names import queue_to_topic
from tests.integration.delivered import read_everything
from tests.integration.service.conftest import ServiceProcess

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    local = LocalCluster(tmp_path_factory.mktemp("cluster"), heap="512m")
    local.start(timeout=300)
    try:
        yield local
    finally:
        local.stop()


def _partition(bootstrap: str, topic: str) -> Any:
    """The topic's partition 0 as the cluster's metadata says it (a topic created a moment ago
    may not be in every broker's metadata yet)."""
    admin = clients.admin(ClientConfig(bootstrap))
    deadline = time.monotonic() + 60
    while True:
        partitions = admin.list_topics(topic, timeout=30).topics[topic].partitions
        if (0 in partitions and partitions[0].leader >= 0) or time.monotonic() > deadline:
            return partitions[0]
        time.sleep(0.5)


def _leader(bootstrap: str, topic: str) -> int:
    return int(_partition(bootstrap, topic).leader)


@pytest.mark.timeout(900)  # three JVMs on a loaded machine
def test_killing_the_control_queues_leader_loses_and_duplicates_nothing(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    info = cluster.info()
    assert info is not None and info.nodes is not None and len(info.nodes) == 3
    bootstrap = info.bootstrap
    ns = f"r{uuid.uuid4().hex[:6]}."
    apply_catalogue(bootstrap, prefix=ns)
    control = queue_to_topic("SYSTEM.BROKER.CONTROL.QUEUE", ns)
    assert len(_partition(bootstrap, control).replicas) == 3  # the cluster's default

    service = ServiceProcess(bootstrap, ns, tmp_path / "state", "1").start(180.0)
    client = KafkaPubSub(bootstrap, namespace=ns, user="tester")
    try:
        assert client.register("Orders/#", queue="APP.ORDERS").ok  # type: ignore[union-attr]
        total, killed = 2000, threading.Event()
        # the publisher is idempotent: without that, Kafka itself may write a record twice
        # when a leader dies under a producer's retries (not the service's doing)
        producer = clients.producer(ClientConfig(bootstrap), {"enable.idempotence": True})
        stream = queue_to_topic(DEFAULT_STREAM, ns)

        def kill_the_leader() -> None:
            cluster.kill_node(_leader(bootstrap, control))
            killed.set()

        for i in range(total):
            md, value = command_message(
                [("Command", "Publish"), ("Topic", f"Orders/{i % 5}")],
                body=f"order-{i}".encode(),
                md=MQMD(Persistence=MQPER.PERSISTENT),
            )
            producer.produce(stream, value, headers=mqmd_to_headers(md))
            producer.poll(0)
            if i == total // 3:
                threading.Thread(target=kill_the_leader, daemon=True).start()
            if i % 200 == 0:
                time.sleep(0.05)  # a steady stream, so the kill lands in the middle of it
        assert producer.flush(120) == 0
        assert killed.wait(60)
        assert service.proc is not None and service.proc.poll() is None  # up throughout
        # and still answering commands after the leader moved
        answer = client.register("Late/#", queue="APP.LATE")
        assert answer is not None and answer.ok, answer
        # everything it delivers: read once the service has taken every publication
        bodies = [m.body for m in read_everything(bootstrap, ns, "APP.ORDERS")]
        twice = sorted(b for b, n in collections.Counter(bodies).items() if n > 1)
        assert len(bodies) == total, f"{len(bodies)} delivered of {total}; twice: {twice}"
        assert sorted(bodies) == sorted(f"order-{i}".encode() for i in range(total))
        assert service.proc.poll() is None
    finally:
        client.close()
        service.kill()
