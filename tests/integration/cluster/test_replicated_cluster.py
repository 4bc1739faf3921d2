"""Issue 19 point 3: on a replicated local cluster (``mqk kafka start --brokers 3``), the
broker that leads the control queue's partition is killed during persistent publishing: the
service keeps serving, and every publication is delivered once."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.localcluster import LocalCluster
from mqkafka.kafka.provision import apply_catalogue
from mqkafka.wire.names import queue_to_topic
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


def _leader(bootstrap: str, topic: str) -> int:
    metadata = clients.admin(ClientConfig(bootstrap)).list_topics(topic, timeout=30)
    return int(metadata.topics[topic].partitions[0].leader)


def test_killing_the_control_queues_leader_loses_and_duplicates_nothing(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    info = cluster.info()
    assert info is not None and info.nodes is not None and len(info.nodes) == 3
    bootstrap = info.bootstrap
    ns = f"r{uuid.uuid4().hex[:6]}."
    apply_catalogue(bootstrap, prefix=ns)
    control = queue_to_topic("SYSTEM.BROKER.CONTROL.QUEUE", ns)
    replicas = clients.admin(ClientConfig(bootstrap)).list_topics(control, timeout=30)
    assert len(replicas.topics[control].partitions[0].replicas) == 3  # the cluster's default

    service = ServiceProcess(bootstrap, ns, tmp_path / "state", "1").start(180.0)
    client = KafkaPubSub(bootstrap, namespace=ns, user="tester")
    try:
        assert client.register("Orders/#", queue="APP.ORDERS").ok  # type: ignore[union-attr]
        total, killed = 2000, threading.Event()

        def kill_the_leader() -> None:
            cluster.kill_node(_leader(bootstrap, control))
            killed.set()

        for i in range(total):
            client.publish(f"Orders/{i % 5}", f"order-{i}".encode(), persistent=True, wait=None)
            if i == total // 3:
                threading.Thread(target=kill_the_leader, daemon=True).start()
            if i % 200 == 0:
                time.sleep(0.05)  # a steady stream, so the kill lands in the middle of it
        assert killed.wait(60)
        assert service.proc is not None and service.proc.poll() is None  # up throughout
        # and still answering commands after the leader moved
        answer = client.register("Late/#", queue="APP.LATE")
        assert answer is not None and answer.ok, answer
        bodies = [m.body for m in client.read_queue("APP.ORDERS", count=total + 1, timeout=120)]
        assert len(bodies) == total, f"{len(bodies)} delivered of {total}"
        assert sorted(bodies) == sorted(f"order-{i}".encode() for i in range(total))
        assert service.proc.poll() is None
    finally:
        client.close()
        service.kill()
