"""Wire contract §2 on the real broker: the MQMD as `mqmd.*` headers survives Kafka exactly."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from confluent_kafka import Producer

from mqkafka.mq.mqmd import MQMD, MQMD_DEFAULT, MQMT, MQPER, MQRO
from mqkafka.wire.headers import mqmd_from_headers, mqmd_to_headers
from tests.integration.test_kafka_broker import read_topic

pytestmark = pytest.mark.kafka

FULL = MQMD(
    Report=MQRO.PASS_CORREL_ID | MQRO.NAN,
    MsgType=MQMT.REQUEST,
    Expiry=6000,
    Encoding=273,
    CodedCharSetId=1208,
    Format="MQHRF2",
    Priority=7,
    Persistence=MQPER.PERSISTENT,
    MsgId=bytes(range(24)),
    CorrelId=b"\x00\xff" * 12,
    BackoutCount=3,
    ReplyToQ="APP/REPLY%1",
    ReplyToQMgr="QM1",
    UserIdentifier="fred",
    AccountingToken=bytes(range(32)),
    ApplIdentityData="identity data",
    PutApplType=28,
    PutApplName="results-service",
    PutDate="20261122",
    PutTime="01234567",
    ApplOriginData="orig",
    GroupId=b"\x01" * 24,
    MsgSeqNumber=2,
    Offset=10,
    MsgFlags=1,
    OriginalLength=100,
)


@pytest.mark.parametrize("md", [MQMD_DEFAULT, FULL], ids=["default", "every-field"])
def test_mqmd_headers_round_trip_through_kafka_exactly(
    kafka_bootstrap: str, new_topic: Callable[..., str], md: MQMD
) -> None:
    topic = new_topic()
    sent = [*mqmd_to_headers(md), ("app.trace", b"kept")]
    value = b"RFH \x00\x00\x00\x02 and the rest, byte for byte \x00\xff"
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    producer.produce(topic, value=value, headers=sent)
    assert producer.flush(30) == 0

    [record] = read_topic(kafka_bootstrap, topic, expect=1)
    received = record.headers() or []
    assert received == sent
    assert record.value() == value
    decoded, others = mqmd_from_headers(received)
    assert decoded == md
    assert others == [("app.trace", b"kept")]
