"""Message properties through the real broker (issue 23): MQPUT with a message handle writes
``mqprop.*`` headers a raw Kafka consumer reads; MQGET gives them back where the
MQGMO_PROPERTIES_* option says; a publication's properties reach an MQSUB subscriber as
message properties (with the data alone) and a RegSub subscriber in the MQRFH2 ``<usr>``."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

import mqkafka.mqi as pymqi
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.pubsub import PubSub
from mqkafka.mqi.queue import QueueManager

pytestmark = pytest.mark.kafka

# (name, value as set, MQTYPE, the record header's text, its mqtype header)
PROPERTIES: list[tuple[str, Any, int, bytes, bytes | None]] = [
    ("colour", b"blue", C.MQTYPE_STRING, b"blue", None),
    ("count", 42, C.MQTYPE_INT32, b"42", b"i4"),
    ("big", -(2**40), C.MQTYPE_INT64, b"-1099511627776", b"i8"),
    ("urgent", True, C.MQTYPE_BOOLEAN, b"true", b"boolean"),
    ("raw", b"\x00\xff", C.MQTYPE_BYTE_STRING, b"00ff", b"bin.hex"),
    ("ratio", 0.25, C.MQTYPE_FLOAT64, b"0.25", b"r8"),
    ("order.id", b"A-1", C.MQTYPE_STRING, b"A-1", None),
]
EXPECTED = {name: value for name, value, _, _, _ in PROPERTIES}


def with_properties(qmgr: QueueManager) -> pymqi.MessageHandle:
    handle = pymqi.MessageHandle(qmgr)
    for name, value, kind, _, _ in PROPERTIES:
        handle.properties.set(name, value, kind)
    return handle


def got_properties(handle: pymqi.MessageHandle) -> dict[str, Any]:
    return {name: handle.properties.get(name) for name in EXPECTED}


def wait_gmo(options: int = 0, hmsg: int = 0) -> pymqi.GMO:
    return pymqi.GMO(
        Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT | options, WaitInterval=20000, MsgHandle=hmsg
    )


def raw_record(bootstrap: str, topic: str, timeout: float = 30) -> Any:
    """The first record of ``topic``, as any Kafka consumer reads it (assigned, no group)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": uuid.uuid4().hex})
    partitions = consumer.list_topics(topic, timeout=timeout).topics[topic].partitions
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            record = consumer.poll(0.5)
            if record is not None and record.error() is None:
                return record
    finally:
        consumer.close()
    raise AssertionError(f"no record on {topic}")


def usr_of(headers: list[pymqi.RFH2]) -> bytes:
    folders = [header["usr"] for header in headers if "usr" in header.get()]
    assert len(folders) == 1, headers
    return bytes(folders[0])


def test_put_properties_are_headers_and_each_get_option_puts_them_in_its_place(
    qmgr: QueueManager, new_queue: Callable[..., str], kafka_bootstrap: str
) -> None:
    name = new_queue()
    queue = pymqi.Queue(qmgr, name, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    put_handle = with_properties(qmgr)
    for number in range(5):
        pmo = pymqi.PMO(OriginalMsgHandle=put_handle.msg_handle)
        queue.put(b"body %d" % number, pymqi.MD(Format=C.MQFMT_STRING), pmo)

    # a raw Kafka consumer reads the properties off the record headers
    record = raw_record(kafka_bootstrap, qmgr.connection.settings.topic_of(name))
    headers = dict(record.headers())
    assert record.value() == b"body 0"
    for prop, _, _, text, dt in PROPERTIES:
        assert headers["mqprop." + prop] == text
        assert headers.get("mqtype." + prop) == dt

    # MQGMO_PROPERTIES_IN_HANDLE with a handle: typed as set, the data alone
    get_handle = pymqi.MessageHandle(qmgr)
    md = pymqi.MD()
    gmo = wait_gmo(C.MQGMO_PROPERTIES_IN_HANDLE, get_handle.msg_handle)
    assert queue.get(None, md, gmo) == b"body 0"
    assert got_properties(get_handle) == EXPECTED and md.Format == C.MQFMT_STRING
    # MQGMO_NO_PROPERTIES: the data alone, the handle left without properties
    assert queue.get(None, pymqi.MD(), wait_gmo(C.MQGMO_NO_PROPERTIES)) == b"body 1"
    # MQGMO_PROPERTIES_FORCE_MQRFH2, and the default (PROPCTL COMPAT) without a handle:
    # an MQRFH2 whose <usr> folder holds them, before the data
    for number, option in ((2, C.MQGMO_PROPERTIES_FORCE_MQRFH2), (3, 0)):
        md, found = pymqi.MD(), list[pymqi.RFH2]()
        data = queue.get_rfh2(None, md, wait_gmo(option), found)
        assert data == b"body %d" % number and md.Format == C.MQFMT_RF_HEADER_2
        assert found[0]["Format"] == C.MQFMT_STRING
        usr = usr_of(found)
        assert b'<count dt="i4">42</count>' in usr and b"<order><id>A-1</id></order>" in usr
    # MQGMO_PROPERTIES_IN_HANDLE without a handle: they are not returned
    assert queue.get(None, pymqi.MD(), wait_gmo(C.MQGMO_PROPERTIES_IN_HANDLE)) == b"body 4"
    queue.close()


def test_a_raw_producers_headers_are_the_properties_an_mqget_sees(
    qmgr: QueueManager, new_queue: Callable[..., str], kafka_bootstrap: str
) -> None:
    name = new_queue()
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    headers = [("mqprop.region", b"EMEA"), ("mqprop.tries", b"3"), ("mqtype.tries", b"i2")]
    producer.produce(qmgr.connection.settings.topic_of(name), b"from Kafka", headers=headers)
    producer.flush(30)
    handle = pymqi.MessageHandle(qmgr)
    queue = pymqi.Queue(qmgr, name, C.MQOO_INPUT_SHARED)
    assert queue.get(None, pymqi.MD(), wait_gmo(0, handle.msg_handle)) == b"from Kafka"
    assert handle.get_all_properties() == {"region": b"EMEA", "tries": 3}
    with pytest.raises(pymqi.MQMIError) as raised:
        queue.get(None, pymqi.MD(), wait_gmo(0, 987654321))  # no such handle
    assert raised.value.reason == C.MQRC_HMSG_ERROR
    queue.close()


def test_a_publications_properties_reach_mqsub_as_properties_and_regsub_in_usr(
    broker_service: str,
    connect: Callable[..., QueueManager],
    new_queue: Callable[..., str],
    kafka_bootstrap: str,
) -> None:
    subscriber, publisher = connect(), connect()
    topic_string = f"Props/{uuid.uuid4().hex[:8]}"
    sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_NON_DURABLE)
    sd.set_vs("ObjectString", topic_string)
    subscription = pymqi.Subscription(subscriber)
    subscription.sub(sub_desc=sd)
    regsub_queue = new_queue()  # a queued-interface subscriber's own queue
    reply = PubSub(subscriber).register_subscriber([topic_string], queue=regsub_queue)
    assert reply is not None and reply.reason == 0

    topic = pymqi.Topic(publisher, topic_string=topic_string)
    pmo = pymqi.PMO(OriginalMsgHandle=with_properties(publisher).msg_handle)
    for number in range(2):
        topic.pub(b"price %d" % number, pymqi.MD(Format=C.MQFMT_STRING), pmo)

    # MQSUB: the publication's data alone, its properties as message properties
    handle = pymqi.MessageHandle(subscriber)
    md = pymqi.MD()
    data = subscription.get(None, md, wait_gmo(0, handle.msg_handle))
    assert data == b"price 0" and md.Format == C.MQFMT_STRING
    assert got_properties(handle) == EXPECTED
    # ... and with MQGMO_PROPERTIES_FORCE_MQRFH2 the queued interface's MQRFH2
    found: list[pymqi.RFH2] = []
    force = wait_gmo(C.MQGMO_PROPERTIES_FORCE_MQRFH2)
    assert subscription.get_rfh2(None, pymqi.MD(), force, found) == b"price 1"
    assert b"<Command>Publish</Command>" in bytes(found[0]["psc"])
    assert b'<urgent dt="boolean">true</urgent>' in usr_of(found)

    # RegSub: the MQRFH2 with <psc> and the properties in <usr>, as RFH2 readers expect
    queue = pymqi.Queue(subscriber, regsub_queue, C.MQOO_INPUT_SHARED)
    found = []
    assert queue.get_rfh2(None, pymqi.MD(), wait_gmo(), found) == b"price 0"
    assert b'<ratio dt="r8">0.25</ratio>' in usr_of(found)
    # a raw Kafka consumer of that queue sees the same properties in the headers
    record = raw_record(kafka_bootstrap, subscriber.connection.settings.topic_of(regsub_queue))
    assert dict(record.headers())["mqprop.count"] == b"42"
    PubSub(subscriber).deregister_subscriber([topic_string], queue=regsub_queue)
    queue.close()
    subscription.close()
