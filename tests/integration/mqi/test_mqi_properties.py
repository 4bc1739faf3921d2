"""Message properties through the real broker (issue 23): MQPUT with a message handle writes
``mqprop.*`` headers a raw Kafka consumer reads, MQGET gives them back where the
MQGMO_PROPERTIES_* option says, and a raw producer's headers are properties to MQGET. (A
publication's properties: test_mqi_pubsub, which runs the broker service.)"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from confluent_kafka import Producer

import mqkafka.mqi as pymqi
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from tests.integration.mqi.props import (
    EXPECTED,
    PROPERTIES,
    got_properties,
    raw_record,
    usr_of,
    wait_gmo,
    with_properties,
)

pytestmark = pytest.mark.kafka


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
    assert handle.get_all_properties() == {"region": "EMEA", "tries": 3}
    with pytest.raises(pymqi.MQMIError) as raised:
        queue.get(None, pymqi.MD(), wait_gmo(0, 987654321))  # no such handle
    assert raised.value.reason == C.MQRC_HMSG_ERROR
    queue.close()


def test_pymqis_test_message_properties_str(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    """pymqi's own ``test_message_properties_str`` (issue 35 point 5), its steps as it takes
    them: a str property of MQTYPE_STRING set with its length, put with the handle, got by
    MsgId into another handle, read with ``max_value_length`` its length: the same str."""
    name, value = new_queue(), "test_valuetest_valuetest_valuetest_valuetest_value"
    put_handle = pymqi.MessageHandle(qmgr, pymqi.CMHO())
    put_handle.properties.set(
        b"test_name", value, value_length=len(value), property_type=C.MQTYPE_STRING
    )
    pmo = pymqi.PMO(Version=C.MQPMO_CURRENT_VERSION)
    pmo.OriginalMsgHandle = put_handle.msg_handle
    md_put = pymqi.MD(Version=C.MQMD_CURRENT_VERSION)
    queue_put = pymqi.Queue(qmgr, name, C.MQOO_OUTPUT)
    queue_put.put(b"", md_put, pmo)
    queue_put.close()
    gmo = pymqi.GMO(Version=C.MQGMO_CURRENT_VERSION, WaitInterval=20000)
    gmo.Options = C.MQGMO_WAIT | C.MQGMO_PROPERTIES_IN_HANDLE
    gmo.MatchOptions = C.MQMO_MATCH_MSG_ID
    get_handle = pymqi.MessageHandle(qmgr, pymqi.CMHO(Version=C.MQCMHO_CURRENT_VERSION))
    gmo.MsgHandle = get_handle.msg_handle
    md_get = pymqi.MD()
    md_get.MsgId = md_put.MsgId
    queue_get = pymqi.Queue(qmgr, name, C.MQOO_INPUT_AS_Q_DEF)
    queue_get.get(None, md_get, gmo)
    queue_get.close()
    assert get_handle.properties.get(b"test_name", max_value_length=len(value)) == value
