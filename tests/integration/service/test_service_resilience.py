"""Bad input, restarts, a lost RocksDB directory, SIGKILL, and two workers sharing the load."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient

from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.mq.dlh import decode_dlh
from mqkafka.mq.mqmd import MQMD, MQMT
from mqkafka.mq.reasons import RC
from mqkafka.wire.headers import mqmd_from_headers, mqmd_to_headers
from mqkafka.wire.names import queue_to_topic
from tests.integration.delivered import read_everything
from tests.integration.raw import read_records
from tests.integration.service.conftest import ServiceProcess, wait_until

pytestmark = pytest.mark.kafka
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
CONTROL = "SYSTEM.BROKER.CONTROL.QUEUE"
STREAM = "SYSTEM.BROKER.DEFAULT.STREAM"


def raw_put(
    bootstrap: str, namespace: str, queue: str, value: bytes, headers: list[tuple[str, bytes]]
) -> None:
    producer = Producer({"bootstrap.servers": bootstrap})
    producer.produce(queue_to_topic(queue, namespace), value=value, headers=headers)
    producer.flush(30)


@pytest.mark.parametrize("queue", [CONTROL, STREAM])
def test_malformed_messages_are_answered_or_dead_lettered_and_the_partition_moves_on(
    start_service: Callable[..., ServiceProcess],
    client: KafkaPubSub,
    kafka_bootstrap: str,
    namespace: str,
    queue: str,
) -> None:
    start_service()
    client.register("warm/up", queue="APP.WARM")  # the reply topic exists from here on
    # 1. Not an RFH at all, but with a ReplyToQ: answered with the reason.
    msg_id = b"BAD1".ljust(24, b"\x00")
    md = MQMD(MsgType=MQMT.REQUEST, MsgId=msg_id, ReplyToQ=client.reply_queue, Format="MQHRF2")
    raw_put(
        kafka_bootstrap, namespace, queue, b"RFH garbage that is not a header", mqmd_to_headers(md)
    )
    reply = client.reply_to(msg_id, 30)
    assert reply.completion == "error" and reply.reason == RC.RFH_ERROR
    # 2. No reply can be addressed (datagram without ReplyToQ): dead-lettered with an MQDLH.
    raw_put(
        kafka_bootstrap, namespace, queue, b"\x00\x01junk", mqmd_to_headers(MQMD(Format="MQHRF2"))
    )
    # 3. Headers that are not an MQMD at all.
    raw_put(kafka_bootstrap, namespace, queue, b"x", [("mqmd.MsgType", b"not-a-number")])
    # 4. The queue keeps flowing: a good command after the bad ones is processed.
    assert client.register("after/bad", queue="APP.AFTER").ok  # type: ignore[union-attr]

    # Decode the MQDLH of each dead letter: the reason and the queue it came from.
    found = []
    for record in KafkaPubSubRaw(kafka_bootstrap, namespace).read(DLQ, 2):
        md, value = record
        header, original = decode_dlh(value, md.Encoding)
        found.append((header.reason, header.dest_q_name, original))
        # when it was put on the dead-letter queue (the originals carry no put time)
        assert header.put_date.isdigit() and len(header.put_date) == 8, header
        assert header.put_time.isdigit() and len(header.put_time) == 8, header
    assert (int(RC.RFH_ERROR), queue, b"\x00\x01junk") in found
    assert (int(RC.MD_ERROR), queue, b"x") in found


class KafkaPubSubRaw:
    """Reads a queue's records as (MQMD, raw value): dead letters are not RFH messages."""

    def __init__(self, bootstrap: str, namespace: str) -> None:
        self.bootstrap = bootstrap
        self.namespace = namespace

    def read(self, queue: str, count: int, timeout: float = 30) -> list[tuple[MQMD, bytes]]:
        topic = queue_to_topic(queue, self.namespace)
        return [
            (mqmd_from_headers(m.headers())[0], m.value())
            for m in read_records(self.bootstrap, topic, count, timeout)
        ]


def test_state_survives_a_restart_and_a_lost_rocksdb_directory(
    start_service: Callable[..., ServiceProcess], client: KafkaPubSub, tmp_path: Path
) -> None:
    service = start_service()
    assert client.register("Keep/#", queue="APP.KEEP", sub_name="keeper").ok  # type: ignore[union-attr]
    assert client.publish("Keep/Score", b"1-0", retain=True).ok  # type: ignore[union-attr]
    assert service.stop() == 0
    assert "broker stopped cleanly" in service.messages()

    service.start()  # RocksDB kept
    assert client.publish("Keep/Live", b"after restart").ok  # type: ignore[union-attr]
    assert service.stop() == 0

    shutil.rmtree(tmp_path / "state")  # RocksDB lost: everything comes back from Kafka
    service.start()
    named = client.request_update("Keep/#", queue="APP.KEEP", sub_name="keeper")
    assert named is not None and named.ok, named
    bodies = [m.body for m in client.read_queue("APP.KEEP", count=4, timeout=20)]
    # Registration sent the retained 1-0; then the live publication; then ReqUpdate's copy.
    assert bodies == [b"1-0", b"after restart", b"1-0"]


def test_sigkill_during_persistent_publications_loses_and_duplicates_nothing(
    start_service: Callable[..., ServiceProcess],
    client: KafkaPubSub,
    kafka_bootstrap: str,
    namespace: str,
) -> None:
    """Two workers (issue 34), one killed and restarted, then a third joining: partitions
    move in the middle of the run, and every publication is delivered once."""
    service, _ = start_service("a"), start_service("b")
    publishers = [KafkaPubSub(kafka_bootstrap, namespace=namespace) for _ in range(4)]
    assert client.register("Orders/#", queue="APP.ORDERS").ok  # type: ignore[union-attr]
    total = 3000
    for i in range(total):
        publisher = publishers[i % 4]  # four keys: over the stream's partitions, both workers
        publisher.publish(f"Orders/{i % 7}", f"order-{i}".encode(), persistent=True, wait=None)
        if i == 1000:
            service.kill()  # in the middle of the run
            service.start()
        if i == 1800:
            start_service("c")  # a rebalance: it takes partitions from the others
    for publisher in publishers:
        publisher.close()
    # everything it delivers: read once the workers have taken every publication
    bodies = [m.body for m in read_everything(kafka_bootstrap, namespace, "APP.ORDERS")]
    assert len(bodies) == total, f"{len(bodies)} delivered"
    assert sorted(bodies) == sorted(f"order-{i}".encode() for i in range(total))


def test_two_workers_split_the_load_and_stay_consistent(
    start_service: Callable[..., ServiceProcess],
    client: KafkaPubSub,
    kafka_bootstrap: str,
    namespace: str,
) -> None:
    first = start_service("a")
    second = start_service("b")
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    group = f"{namespace}mqk-broker"

    def workers_with_work() -> int:
        """Workers (a client id per process: a member per lane) holding a partition."""
        [description] = admin.describe_consumer_groups([group]).values()
        result = description.result()
        return len({m.client_id for m in result.members if m.assignment.topic_partitions})

    assert wait_until(lambda: workers_with_work() == 2, 60), "the load was not split"
    publishers = [KafkaPubSub(kafka_bootstrap, namespace=namespace) for _ in range(8)]
    for round_ in range(5):
        topic = f"Consistency/{round_}"
        queue = f"APP.CONS{round_}"
        assert client.register(topic, queue=queue).ok  # type: ignore[union-attr]
        for i in range(8):  # eight publishers (keys): spread over the partitions, both workers
            publishers[i].publish(topic, f"in-{i}".encode(), wait=None)
        delivered = sorted(m.body for m in client.read_queue(queue, count=8, timeout=20))
        assert delivered == sorted(f"in-{i}".encode() for i in range(8)), delivered
        assert client.deregister(topic, queue=queue).ok  # type: ignore[union-attr]
        for i in range(8):
            publishers[i].publish(topic, f"out-{i}".encode(), wait=None)
        time.sleep(1.0)
        everything = sorted(m.body for m in client.read_queue(queue, timeout=3))
        assert everything == delivered, everything
    for publisher in publishers:
        publisher.close()
    assert first.proc is not None and second.proc is not None
    assert first.proc.poll() is None and second.proc.poll() is None


def test_a_subscriber_queue_deleted_under_its_subscription_stops_nothing_and_loses_nothing(
    start_service: Callable[..., ServiceProcess],
    client: KafkaPubSub,
    kafka_bootstrap: str,
    namespace: str,
) -> None:
    """The topic of a subscriber queue is deleted while the service knows it (an MQI client
    deleted the queue, an operator removed the topic): the next publication's transaction
    fails, and the service must neither stop nor lose the publication."""
    service = start_service()
    assert client.register("Gone/#", queue="APP.GONE").ok  # type: ignore[union-attr]
    assert client.publish("Gone/1", b"first").ok  # type: ignore[union-attr]
    assert [m.body for m in client.read_queue("APP.GONE", count=1, timeout=20)] == [b"first"]
    topic = queue_to_topic("APP.GONE", namespace)
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    admin.delete_topics([topic], operation_timeout=30)[topic].result()
    assert wait_until(lambda: topic not in admin.list_topics(timeout=10).topics)
    second = client.publish("Gone/2", b"second", wait=120)
    assert second is not None and second.ok, second
    assert client.publish("Gone/3", b"third").ok  # type: ignore[union-attr]
    bodies = [m.body for m in client.read_queue("APP.GONE", count=2, timeout=60)]
    assert bodies == [b"second", b"third"]  # the queue is created again, as for a new one
    assert service.proc is not None and service.proc.poll() is None
    said = service.messages()
    # the way there: the transaction writing to the deleted topic failed, was aborted and
    # tried again once the service had asked the cluster which topics exist. That is said:
    # by the abort's line, or, when the failure looked like Kafka away (the topic's leader
    # gone), by the outage's lines, "Kafka is back" among them (the abort's is then a debug
    # line: one line per problem)
    assert any(m.startswith(("transaction aborted", "Kafka is back")) for m in said), said
    assert sum(m == f"created queue topic {topic}" for m in said) == 2, said
