"""pymqi's PCFExecute common object commands against the real broker (issue 23): queues as
pymqi's own test suite creates and deletes them, and INQUIRE_Q with generic names and
filters (INQUIRE/DELETE_SUBSCRIPTION are in test_mqi_dropin, which runs the broker service)."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest

import mqkafka.mqi as pymqi
from mqkafka.mqi import CMQCFC
from mqkafka.mqi.kafkaqm.queue import QueueManager

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
