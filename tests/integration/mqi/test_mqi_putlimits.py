"""MQPUT against the queue's and the queue manager's limits on the real broker, as a queue
manager answers: MAXDEPTH reached is MQRC_Q_FULL 2053, longer than the queue's MAXMSGL 2030,
longer than the queue manager's (or than Kafka takes) 2031 - not a broken connection. A
stream queue named with ``mqk serve --stream`` is not held to MAXDEPTH: the broker service
drains it with its own consumer group, so the share group's lag (a queue's depth) only grows
(before the service marked it, the MAXDEPTH-th publication on was 2053)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource

import mqkafka.mqi as pymqi
from mqkafka.cli.serveprocess import ServeProcess
from mqkafka.kafka.provision import apply_catalogue
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm import recordroom
from mqkafka.mqi.kafkaqm.psclient import PubSub
from mqkafka.mqi.kafkaqm.putlimits import QMGR_MAX_MSG_LENGTH, WINDOW
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.mqi.kafkaqm.streamqueues import STREAM_MAX_DEPTH
from mqkafka.mqi.rules.errors import MQMIError

pytestmark = pytest.mark.kafka

NO_WAIT = pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT)
WAIT = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=30_000)
PUBLICATIONS = 30  # to a stream queue of MAXDEPTH 20
ROOT = "SYSTEM.BROKER.DEFAULT.SUBPOINT"


def reason_of(put: Callable[[], object]) -> int:
    with pytest.raises(MQMIError) as refused:
        put()
    return int(refused.value.reason)


def test_put_to_a_full_queue_is_2053_until_a_get_makes_room(
    connect: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    name = new_queue(max_depth=3)
    queue = pymqi.Queue(connect(), name, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    for i in range(3):
        queue.put(b"m%d" % i)
    assert reason_of(lambda: queue.put(b"one too many")) == RC.Q_FULL
    assert reason_of(lambda: queue.put(b"with an MD", pymqi.MD())) == RC.Q_FULL
    # another connection (its own gate) and MQPUT1 see it full too
    other = connect()
    assert reason_of(lambda: other.put1(name, b"from elsewhere")) == RC.Q_FULL
    assert queue.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=15000))
    time.sleep(WINDOW * 2)  # the depth is asked again once a window
    queue.put(b"room again", pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    assert reason_of(lambda: queue.put(b"full again")) == RC.Q_FULL
    queue.close()


def test_syncpoint_puts_count_against_maxdepth(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    name = new_queue(max_depth=2)
    queue = pymqi.Queue(qmgr, name, C.MQOO_OUTPUT)
    syncpoint = pymqi.PMO(Options=C.MQPMO_SYNCPOINT)
    queue.put(b"a", pymqi.MD(), syncpoint)
    queue.put(b"b", pymqi.MD(), syncpoint)
    assert reason_of(lambda: queue.put(b"c", pymqi.MD(), syncpoint)) == RC.Q_FULL
    qmgr.commit()
    assert reason_of(lambda: queue.put(b"d")) == RC.Q_FULL
    queue.close()


def test_longer_than_maxmsgl(qmgr: QueueManager, new_queue: Callable[..., str]) -> None:
    small = pymqi.Queue(qmgr, new_queue(max_msg_length=100), C.MQOO_OUTPUT)
    small.put(bytes(100))
    assert reason_of(lambda: small.put(bytes(101))) == RC.MSG_TOO_BIG_FOR_Q
    assert reason_of(lambda: small.put(bytes(101), pymqi.MD())) == RC.MSG_TOO_BIG_FOR_Q
    small.close()
    large = pymqi.Queue(qmgr, new_queue(max_msg_length=100 * 1024 * 1024), C.MQOO_OUTPUT)
    huge = bytes(QMGR_MAX_MSG_LENGTH + 1)
    assert reason_of(lambda: large.put(huge)) == RC.MSG_TOO_BIG_FOR_Q_MGR
    large.close()


def test_a_message_of_the_advertised_maximum_goes_through_a_default_queue(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    """MQINQ's MaxMsgLength (MQ's 4 MB) and a default queue's MAXMSGL are what Kafka takes:
    the producer, the queue's topic and the broker (a 2 MB put was 2031: librdkafka's default
    message.max.bytes, 1,000,000); one byte more is 2031, as MQ answers."""
    name = new_queue()
    queue = pymqi.Queue(qmgr, name, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE)
    advertised = qmgr.inquire(C.MQIA_MAX_MSG_LENGTH)
    assert advertised == queue.inquire(C.MQIA_MAX_MSG_LENGTH) == 4 * 1024 * 1024
    assert isinstance(advertised, int)
    largest = bytes(range(256)) * (advertised // 256)
    queue.put(largest, pymqi.MD(Persistence=C.MQPER_PERSISTENT))  # the broker's answer waited
    queue.put(largest)
    got = [queue.get(None, pymqi.MD(), WAIT) for _ in range(2)]
    assert got == [largest, largest]
    over = largest + b"!"
    assert reason_of(lambda: queue.put(over)) == RC.MSG_TOO_BIG_FOR_Q_MGR
    assert reason_of(lambda: queue.put(over, pymqi.MD(Persistence=C.MQPER_PERSISTENT))) == (
        RC.MSG_TOO_BIG_FOR_Q_MGR
    )
    queue.close()


def test_more_than_a_lowered_producer_takes_is_2031(
    connect: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    """Within MAXMSGL but more than the producer takes (its message.max.bytes lowered to
    librdkafka's default): 2031, not a broken connection (was 2009)."""
    qmgr = connect(producer_config={"message.max.bytes": "1000000"})
    large = pymqi.Queue(qmgr, new_queue(), C.MQOO_OUTPUT)
    over_kafka = bytes(2 * 1024 * 1024)
    assert reason_of(lambda: large.put(over_kafka)) == RC.MSG_TOO_BIG_FOR_Q_MGR
    persistent = pymqi.MD(Persistence=C.MQPER_PERSISTENT)
    assert reason_of(lambda: large.put(over_kafka, persistent)) == RC.MSG_TOO_BIG_FOR_Q_MGR
    syncpoint = pymqi.PMO(Options=C.MQPMO_SYNCPOINT)
    assert reason_of(lambda: large.put(over_kafka, pymqi.MD(), syncpoint)) == (
        RC.MSG_TOO_BIG_FOR_Q_MGR
    )
    large.close()
    qmgr.backout()


def test_longer_than_the_queues_topic_takes_is_2030(
    kafka_bootstrap: str, qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    name = new_queue()
    _limit_topic(kafka_bootstrap, qmgr.connection.settings.topic_of(name), 2000)
    queue = pymqi.Queue(qmgr, name, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    persistent = pymqi.MD(Persistence=C.MQPER_PERSISTENT)
    assert reason_of(lambda: queue.put(bytes(5000), persistent)) == RC.MSG_TOO_BIG_FOR_Q
    # non-persistent: measured before it is produced (it was lost without a word)
    assert reason_of(lambda: queue.put(bytes(5000))) == RC.MSG_TOO_BIG_FOR_Q
    assert reason_of(lambda: queue.put(bytes(1950), pymqi.MD())) == RC.MSG_TOO_BIG_FOR_Q
    assert reason_of(lambda: qmgr.put1(name, bytes(5000))) == RC.MSG_TOO_BIG_FOR_Q
    syncpoint = pymqi.PMO(Options=C.MQPMO_SYNCPOINT)
    assert reason_of(lambda: queue.put(bytes(5000), pymqi.MD(), syncpoint)) == (
        RC.MSG_TOO_BIG_FOR_Q
    )
    queue.put(b"small", pymqi.MD(Persistence=C.MQPER_PERSISTENT))
    queue.put(bytes(1500))
    got = [queue.get(None, pymqi.MD(), WAIT) for _ in range(2)]
    assert sorted(len(body) for body in got) == [5, 1500]
    queue.close()


def test_a_non_persistent_record_kafka_refuses_later_is_logged(
    kafka_bootstrap: str,
    qmgr: QueueManager,
    new_queue: Callable[..., str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The topic's limit lowered after this process asked it, or not known (a user not
    allowed to describe the topic): Kafka refuses the record after MQPUT returned, and that
    is said, with the queue (and the MsgId of a record that was not measured)."""
    name = new_queue()
    topic = qmgr.connection.settings.topic_of(name)
    queue = pymqi.Queue(qmgr, name, C.MQOO_OUTPUT)
    queue.put(b"first: the topic's limit is asked")
    _limit_topic(kafka_bootstrap, topic, 2000)
    lost = recordroom.lost
    queue.put(bytes(5000))
    _until_reported(qmgr, lost + 1)
    recordroom._rooms[topic] = (None, time.monotonic())  # as when describing it is refused
    md = pymqi.MD()
    queue.put(bytes(6000), md)
    _until_reported(qmgr, lost + 2)
    said = [r.getMessage() for r in caplog.records if "message lost" in r.getMessage()]
    assert len(said) == 2 and all(name in line for line in said)
    assert "5000 bytes" in said[0] and md.MsgId.hex() in said[1]
    queue.close()


def _until_reported(qmgr: QueueManager, lost: int) -> None:
    qmgr.connection.producer.flush(30)
    deadline = time.monotonic() + 30  # the keeper thread may be the one serving the report
    while recordroom.lost < lost and time.monotonic() < deadline:
        time.sleep(0.05)
    assert recordroom.lost == lost


def _limit_topic(bootstrap: str, topic: str, max_message_bytes: int) -> None:
    limit = ConfigEntry(
        "max.message.bytes", str(max_message_bytes), incremental_operation=AlterConfigOpType.SET
    )
    admin = AdminClient({"bootstrap.servers": bootstrap})
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=[limit])
    for future in admin.incremental_alter_configs([resource]).values():
        future.result(30)
    # The alter returns once the controller has it; the broker takes it from the metadata log
    # afterwards (a loaded clean-clone run's put got in before): wait until the broker says it.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        described = admin.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, topic)])
        entries = next(iter(described.values())).result(30)
        if entries["max.message.bytes"].value == str(max_message_bytes):
            return
        time.sleep(0.1)
    raise AssertionError(f"{topic}'s max.message.bytes never became {max_message_bytes}")


def test_a_stream_takes_more_publications_than_its_maxdepth(
    kafka_bootstrap: str,
    namespace: str,
    connect: Callable[..., QueueManager],
    new_queue: Callable[..., str],
    tmp_path: Path,
) -> None:
    stream, fresh = "APP.STREAM", f"APP.STREAM.{uuid.uuid4().hex[:6].upper()}"
    qmgr = connect()
    qmgr.define_queue(stream, max_depth=20)
    apply_catalogue(kafka_bootstrap, prefix=namespace)
    with ServeProcess(
        kafka_bootstrap, namespace, tmp_path, "--stream", stream, "--stream", fresh,
        instance_id="streams",
    ) as service:  # fmt: skip
        said = [line for line in service.lines if "MAXDEPTH(999999999)" in line]
        assert len(said) == 2, service.lines  # one line each: altered, defined
        assert qmgr.display_queue(stream).max_depth == STREAM_MAX_DEPTH  # type: ignore[union-attr]
        assert qmgr.display_queue(fresh).max_depth == STREAM_MAX_DEPTH  # type: ignore[union-attr]
        subscriber = new_queue()
        pubsub = PubSub(qmgr)
        reply = pubsub.register_subscriber(["stream/depth"], queue=subscriber)
        assert reply is not None and reply.reason == 0
        for i in range(PUBLICATIONS):  # an RFH2 subscriber sees a stream's by the subpoint
            pubsub.publish(["stream/depth"], b"pub-%02d" % i, stream=stream, sub_point=ROOT)
        queue = pymqi.Queue(qmgr, subscriber, C.MQOO_INPUT_SHARED)
        got = {queue.get(None, pymqi.MD(), WAIT)[-6:] for _ in range(PUBLICATIONS)}
        assert got == {b"pub-%02d" % i for i in range(PUBLICATIONS)}
        queue.close()
        pubsub.close()
