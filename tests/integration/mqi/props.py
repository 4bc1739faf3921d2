"""Helpers of the message property tests: a table of typed properties, and a raw Kafka
reader of a queue's topic."""

from __future__ import annotations

import time
import uuid
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

import mqkafka.mqi as pymqi
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

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
# as MQINQMP gives them back: a string as str, as pymqi does (issue 35 point 5)
EXPECTED = {
    name: value.decode() if kind == C.MQTYPE_STRING else value
    for name, value, kind, _, _ in PROPERTIES
}


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
