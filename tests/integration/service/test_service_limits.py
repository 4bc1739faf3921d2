"""No single message stops the service (issue 19): names that are no queues, messages too
large for where they go, and records Kafka refuses all the same, over the real broker."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    NewTopic,
)

from mqkafka.client.kafka_pubsub import KafkaPubSub, command_message
from mqkafka.mq.dlh import decode_dlh
from mqkafka.mq.mqmd import MQMD, MQMT
from mqkafka.mq.reasons import RC
from mqkafka.wire.headers import mqmd_to_headers
from mqkafka.wire.names import queue_to_topic
from tests.integration.raw import read_records
from tests.integration.service.conftest import ServiceProcess, wait_until

pytestmark = pytest.mark.kafka
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
CONTROL = "SYSTEM.BROKER.CONTROL.QUEUE"
STREAM = "SYSTEM.BROKER.DEFAULT.STREAM"
ISSUE_SIZE = 999_900  # the issue's message: with the MQ headers over the producer's limit


def create_queue(bootstrap: str, namespace: str, queue: str, **config: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    topic = queue_to_topic(queue, namespace)
    settings = {k.replace("_", "."): v for k, v in config.items()}
    admin.create_topics([NewTopic(topic, 1, 1, config=settings)])[topic].result(30)


def set_queue_config(bootstrap: str, namespace: str, queue: str, **config: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    entries = [
        ConfigEntry(name.replace("_", "."), value, incremental_operation=AlterConfigOpType.SET)
        for name, value in config.items()
    ]
    topic = queue_to_topic(queue, namespace)
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=entries)
    for future in admin.incremental_alter_configs([resource]).values():
        future.result(30)


def queue_config(bootstrap: str, namespace: str, queue: str, name: str) -> str:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    resource = ConfigResource(ConfigResource.Type.TOPIC, queue_to_topic(queue, namespace))
    [future] = admin.describe_configs([resource]).values()
    return str(future.result(30)[name].value)


def raw_put(bootstrap: str, namespace: str, queue: str, value: bytes, md: MQMD) -> None:
    """As any Kafka producer may put it: up to the topic's limit, not the service's."""
    producer = Producer({"bootstrap.servers": bootstrap, "message.max.bytes": 1_048_576})
    producer.produce(queue_to_topic(queue, namespace), value=value, headers=mqmd_to_headers(md))
    assert producer.flush(30) == 0


def dead_letters(bootstrap: str, namespace: str, count: int) -> list[tuple[int, str, Any]]:
    """(reason, queue meant for, record) of the first ``count`` dead letters."""
    found = []
    for record in read_records(bootstrap, queue_to_topic(DLQ, namespace), count):
        header, _ = decode_dlh(record.value())
        found.append((header.reason, header.dest_q_name, record))
    return found


def test_a_name_that_is_no_queue_is_refused_and_the_service_goes_on(
    start_service: Callable[..., ServiceProcess],
    client: KafkaPubSub,
    kafka_bootstrap: str,
    namespace: str,
) -> None:
    service = start_service()
    for queue in ("__consumer_offsets", "__transaction_state", "mqk/subscriptions"):
        refused = client.register("Any/#", queue=queue)
        assert refused is not None and refused.reason == RC.CF_Q_NAME_ERROR, queue
    # a command whose reply would go to Kafka's own topic: dead-lettered with 2085
    md = MQMD(MsgType=MQMT.REQUEST, MsgId=os.urandom(24), ReplyToQ="__consumer_offsets")
    client.put(CONTROL, *command_message([("Command", "RegSub"), ("Topic", "A/#")], md=md))
    assert client.register("After/#", queue="APP.AFTER").ok  # type: ignore[union-attr]
    [(reason, queue, record)] = dead_letters(kafka_bootstrap, namespace, 1)
    assert (reason, queue) == (RC.UNKNOWN_OBJECT_NAME, "__consumer_offsets")
    assert dict(record.headers())["mqk.reason"] == b"2085"
    assert service.proc is not None and service.proc.poll() is None


def test_a_copy_too_large_for_one_queue_is_dead_lettered_and_the_others_delivered(
    start_service: Callable[..., ServiceProcess],
    client: KafkaPubSub,
    kafka_bootstrap: str,
    namespace: str,
) -> None:
    create_queue(kafka_bootstrap, namespace, "APP.SMALL", max_message_bytes="50000")
    service = start_service()
    assert client.register("Big/#", queue="APP.SMALL").ok  # type: ignore[union-attr]
    assert client.register("Big/#", queue="APP.LARGE").ok  # type: ignore[union-attr]
    body = os.urandom(100_000)  # incompressible: Kafka itself would refuse it
    told = client.publish("Big/One", body)
    assert told is not None and told.completion == "warning"
    assert told.reasons == (RC.MSG_TOO_BIG_FOR_Q,)
    [copy] = client.read_queue("APP.LARGE", count=1, timeout=30)
    assert copy.body == body
    [(reason, queue, record)] = dead_letters(kafka_bootstrap, namespace, 1)
    assert (reason, queue) == (RC.MSG_TOO_BIG_FOR_Q, "APP.SMALL")
    assert record.value().endswith(body)

    # An operator lowers APP.LARGE's limit under the running service, which still has the
    # old one: Kafka refuses the copy, the transaction aborts, the limits are asked again and
    # the batch is answered as if they had been known.
    set_queue_config(kafka_bootstrap, namespace, "APP.LARGE", max_message_bytes="50000")
    assert wait_until(
        lambda: (
            queue_config(kafka_bootstrap, namespace, "APP.LARGE", "max.message.bytes") == "50000"
        )
    )
    again = client.publish("Big/Two", os.urandom(100_000))
    assert again is not None and again.reasons == (RC.MSG_TOO_BIG_FOR_Q,), again
    assert [q for _, q, _ in dead_letters(kafka_bootstrap, namespace, 3)][1:] == [
        "APP.SMALL",
        "APP.LARGE",
    ]
    assert client.publish("Big/Three", b"small").ok  # type: ignore[union-attr]
    assert [m.body for m in client.read_queue("APP.LARGE", count=2, timeout=30)][1:] == [b"small"]
    assert service.proc is not None and service.proc.poll() is None


def test_the_issues_999900_byte_messages_do_not_stop_the_service(
    start_service: Callable[..., ServiceProcess],
    client: KafkaPubSub,
    kafka_bootstrap: str,
    namespace: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the issue's service: its producer at librdkafka's default (ours take MQ's 4 MB)
    monkeypatch.setenv("MQK_KAFKA_MESSAGE_MAX_BYTES", "1000000")
    service = start_service()
    assert client.register("Huge/#", queue="APP.HUGE").ok  # type: ignore[union-attr]
    assert client.publish("Huge/Kept", b"small and retained", retain=True).ok  # type: ignore[union-attr]
    huge = os.urandom(ISSUE_SIZE)
    # 1. a publication, 2. a retained one on the topic that holds a retained publication,
    # 3. a message to be dead-lettered (no command at all, no reply to address): each of
    # 999,900 bytes
    for options, msg_id in ((), b"PUB1"), (("RetainPub",), b"PUB2"):
        pairs = [("Command", "Publish"), ("Topic", "Huge/Kept"), *(("PubOpt", o) for o in options)]
        md = MQMD(MsgType=MQMT.REQUEST, MsgId=msg_id.ljust(24, b"\0"), ReplyToQ=client.reply_queue)
        head = len(command_message(pairs, body=b"x", md=md)[1]) - 1
        md, value = command_message(pairs, body=huge[: ISSUE_SIZE - head], md=md)
        assert len(value) == ISSUE_SIZE
        raw_put(kafka_bootstrap, namespace, STREAM, value, md)
    raw_put(kafka_bootstrap, namespace, CONTROL, huge, MQMD(Format="MQHRF2"))
    for msg_id in (b"PUB1", b"PUB2"):
        told = client.reply_to(msg_id.ljust(24, b"\0"), 60)
        assert told.completion == "warning" and told.reasons == (RC.MSG_TOO_BIG_FOR_Q,), told
    # the service goes on, and the retained store holds what it held
    assert client.register("Huge/#", queue="APP.LATER").ok  # type: ignore[union-attr]
    [retained] = client.read_queue("APP.LATER", count=1, timeout=30)
    assert retained.body == b"small and retained"
    [before] = client.read_queue("APP.HUGE", count=2, timeout=10)
    assert before.body == b"small and retained"  # the huge copies went nowhere: logged
    dropped = [m for m in service.messages() if "dropped" in m]
    assert len(dropped) == 3, dropped  # two copies, one dead letter
    where = re.compile(r"SYSTEM\.BROKER\.\w+\.\w+ \[\d+\] offset \d+:")  # topic [partition]
    assert all(where.search(m) for m in dropped), dropped
    assert service.proc is not None and service.proc.poll() is None


def test_a_record_kafka_refuses_all_the_same_takes_its_message_out_of_the_batch(
    start_service: Callable[..., ServiceProcess],
    client: KafkaPubSub,
    kafka_bootstrap: str,
    namespace: str,
) -> None:
    # A compacted queue takes no record without a key, and the reply to a command without a
    # MsgId has no CorrelId to key it by: INVALID_RECORD, whatever the retries.
    create_queue(kafka_bootstrap, namespace, "APP.COMPACT", cleanup_policy="compact")
    service = start_service()
    assert client.register("Warm/#", queue="APP.WARM").ok  # type: ignore[union-attr]
    bad = MQMD(MsgType=MQMT.REQUEST, ReplyToQ="APP.COMPACT", Format="MQHRF2")
    md, value = command_message(
        [("Command", "RegSub"), ("Topic", "Refused/#"), ("QName", "APP.REFUSED")], md=bad
    )
    raw_put(kafka_bootstrap, namespace, CONTROL, value, md)
    assert client.register("Next/#", queue="APP.NEXT").ok  # type: ignore[union-attr]
    [(reason, queue, record)] = dead_letters(kafka_bootstrap, namespace, 1)
    assert (reason, queue) == (RC.PUT_INHIBITED, CONTROL)
    assert b"INVALID_RECORD" in dict(record.headers())["mqk.detail"]
    # taken out: its registration never happened
    assert client.publish("Refused/x", b"nobody").ok  # type: ignore[union-attr]
    assert list(client.read_queue("APP.REFUSED", count=1, timeout=3)) == []

    # When the dead-letter queue refuses its dead letter too, it is logged and skipped.
    set_queue_config(kafka_bootstrap, namespace, DLQ, cleanup_policy="compact")
    raw_put(kafka_bootstrap, namespace, CONTROL, value, md)
    assert client.register("Last/#", queue="APP.LAST").ok  # type: ignore[union-attr]
    skipped = [m for m in service.messages() if "skipped: Kafka refused" in m]  # the service's
    assert len(skipped) == 1 and "INVALID_RECORD" in skipped[0], skipped
    assert f"{namespace}{CONTROL} [0] offset" in skipped[0]
    assert service.proc is not None and service.proc.poll() is None
