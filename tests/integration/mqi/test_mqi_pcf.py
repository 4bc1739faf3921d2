"""pymqi's PCFExecute common object commands against the real broker (issue 23): queues as
pymqi's own test suite creates and deletes them, INQUIRE_Q with generic names and filters,
and the broker's subscriptions inquired and deleted by SubName."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest

import mqkafka.mqi as pymqi
from mqkafka.mqi import CMQCFC
from mqkafka.mqi.queue import QueueManager, wait_until

pytestmark = pytest.mark.kafka
C = pymqi.CMQC


def reason(call: Callable[[], object]) -> int:
    with pytest.raises(pymqi.MQMIError) as raised:
        call()
    return raised.value.reason


def test_queues_created_inquired_and_deleted_as_pymqis_tests_do(qmgr: QueueManager) -> None:
    prefix = f"PCF.{uuid.uuid4().hex[:6].upper()}"
    pcf = pymqi.PCFExecute(qmgr)
    create = {
        C.MQCA_Q_NAME: f"{prefix}.ONE".encode(),
        C.MQIA_Q_TYPE: C.MQQT_LOCAL,
        C.MQIA_MAX_Q_DEPTH: 5000,
        CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES,
    }
    pcf.MQCMD_CREATE_Q(create)
    pcf.MQCMD_CREATE_Q(create)  # REPLACE: no error for one that exists
    assert reason(lambda: pcf.MQCMD_CREATE_Q({C.MQCA_Q_NAME: f"{prefix}.ONE"})) == 4001
    pcf.MQCMD_CREATE_Q(  # the list form pymqi also takes
        [
            pymqi.CFST(Parameter=C.MQCA_Q_NAME, String=f"{prefix}.TWO".encode()),
            pymqi.CFST(Parameter=C.MQCA_Q_DESC, String=b"second"),
        ]
    )
    pymqi.Queue(qmgr, f"{prefix}.TWO", C.MQOO_OUTPUT).put(b"one message")

    rows = pcf.MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: f"{prefix}.*".encode()})
    assert [row[C.MQCA_Q_NAME].strip() for row in rows] == [
        f"{prefix}.ONE".encode(),
        f"{prefix}.TWO".encode(),
    ]
    assert rows[0][C.MQIA_MAX_Q_DEPTH] == 5000 and len(rows[0][C.MQCA_Q_NAME]) == 48
    attrs = [
        pymqi.CFST(Parameter=C.MQCA_Q_NAME, String=f"{prefix}.*".encode()),
        pymqi.CFIN(Parameter=C.MQIA_Q_TYPE, Value=C.MQQT_LOCAL),
        pymqi.CFIL(Parameter=CMQCFC.MQIACF_Q_ATTRS, Values=[C.MQIA_CURRENT_Q_DEPTH, C.MQCA_Q_DESC]),
    ]
    deep = [
        pymqi.CFIF(Parameter=C.MQIA_CURRENT_Q_DEPTH, Operator=CMQCFC.MQCFOP_GREATER, FilterValue=0)
    ]
    (row,) = pcf.MQCMD_INQUIRE_Q(attrs, deep)
    assert row[C.MQCA_Q_DESC].strip() == b"second" and row[C.MQIA_CURRENT_Q_DEPTH] == 1
    assert set(row) == {C.MQCA_Q_NAME, C.MQIA_CURRENT_Q_DEPTH, C.MQCA_Q_DESC}
    by_filter = pcf.MQCMD_INQUIRE_Q(attrs, [pymqi.Filter(C.MQCA_Q_DESC).like(b"sec*")])
    assert [r[C.MQCA_Q_NAME].strip() for r in by_filter] == [f"{prefix}.TWO".encode()]

    delete = {C.MQCA_Q_NAME: f"{prefix}.TWO".encode()}
    assert reason(lambda: pcf.MQCMD_DELETE_Q(delete)) == C.MQRC_Q_NOT_EMPTY
    pcf.MQCMD_DELETE_Q({**delete, CMQCFC.MQIACF_PURGE: CMQCFC.MQPO_YES})
    pcf.MQCMD_DELETE_Q({C.MQCA_Q_NAME: f"{prefix}.ONE".encode()})
    assert reason(lambda: pcf.MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: f"{prefix}.*"})) == 2085
    assert reason(lambda: pcf.MQCMD_DELETE_Q(delete)) == 2085
    assert (
        reason(lambda: pcf.MQCMD_CREATE_Q({C.MQCA_Q_NAME: b"A", C.MQIA_Q_TYPE: C.MQQT_ALIAS}))
        == 4007
    )
    assert reason(lambda: pcf.MQCMD_PING_Q_MGR()) == 3007  # not one of the common commands
    pcf.disconnect()


def test_subscriptions_inquired_and_deleted_by_name(
    broker_service: str, connect: Callable[..., QueueManager]
) -> None:
    qmgr = connect()
    name = f"PCFSUB.{uuid.uuid4().hex[:8]}"
    sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_MANAGED, ObjectString=b"Pcf/Sub")
    sd.set_vs("SubName", name)
    subscription = pymqi.Subscription(qmgr)
    queue = subscription.sub(sub_desc=sd)
    pcf = pymqi.PCFExecute(qmgr)
    (row,) = pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: name.encode()})
    assert row[CMQCFC.MQCA_TOPIC_STRING] == b"Pcf/Sub"
    assert row[CMQCFC.MQCACF_DESTINATION].strip() == queue.name.encode()
    assert row[CMQCFC.MQBACF_DESTINATION_CORREL_ID] == sd.SubCorrelId
    generic = pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: b"PCFSUB.*"})
    assert name.encode() in [r[CMQCFC.MQCACF_SUB_NAME] for r in generic]
    pcf.MQCMD_DELETE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: name})
    assert wait_until(lambda: not subscription._exists(name), 30)

    def gone() -> bool:
        try:
            pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: name})
        except pymqi.MQMIError as error:
            return error.reason == C.MQRC_UNKNOWN_OBJECT_NAME
        return False

    assert wait_until(gone, 30)
    subscription.close(close_sub_queue=True)
