"""pymqi's PCFExecute common object commands against the real broker (issue 23): queues as
pymqi's own test suite creates and deletes them, and INQUIRE_Q with generic names and
filters (INQUIRE/DELETE_SUBSCRIPTION are in test_mqi_dropin, which runs the broker service)."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest

import mqkafka.mqi as pymqi
from mqkafka.mqi import CMQCFC
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

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
    assert reason(lambda: pcf.MQCMD_CREATE_CHANNEL()) == 3007  # not one of the common commands
    pcf.disconnect()


def test_queue_manager_inquired_and_pinged(qmgr: QueueManager) -> None:
    pcf = pymqi.PCFExecute(qmgr, response_wait_interval=15000)
    (row,) = pcf.MQCMD_INQUIRE_Q_MGR()
    assert row[C.MQCA_Q_MGR_NAME].strip() == b"QM1" and row[C.MQIA_COMMAND_LEVEL] >= 800
    (some,) = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: [C.MQIA_PLATFORM]})
    assert some == {C.MQIA_PLATFORM: C.MQPL_UNIX}
    assert pcf.MQCMD_PING_Q_MGR() == []
    named = pymqi.PCFExecute.stringify_keys(row)
    assert named["MQCA_Q_MGR_NAME"] == row[C.MQCA_Q_MGR_NAME]
    assert pymqi.PCFExecute.stringifyKeys is pymqi.PCFExecute.stringify_keys
    pcf.disconnect()


@pytest.mark.parametrize("round_", range(4))
def test_one_name_created_used_and_deleted_again_and_again(qmgr: QueueManager, round_: int) -> None:
    """pymqi's test suite: setUp creates PYMQI.MSG.QUEUE, tearDown deletes it with PURGE; a
    Queue a test dropped without closing it has closed (pymqi closes it when collected)."""
    pcf = pymqi.PCFExecute(qmgr)
    name = b"PYMQI.MSG.QUEUE"
    pcf.MQCMD_CREATE_Q(
        [
            pymqi.CFST(Parameter=C.MQCA_Q_NAME, String=name),
            pymqi.CFIN(Parameter=C.MQIA_Q_TYPE, Value=C.MQQT_LOCAL),
            pymqi.CFIN(Parameter=CMQCFC.MQIACF_REPLACE, Value=CMQCFC.MQRP_YES),
        ]
    )
    queue = pymqi.Queue(qmgr, name, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT)
    queue.put(b"round %d" % round_)
    pymqi.Queue(qmgr, name).get(
        None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=15000)
    )
    queue.put(b"left for the purge")
    queue.close()
    pcf.MQCMD_DELETE_Q(
        [
            pymqi.CFST(Parameter=C.MQCA_Q_NAME, String=name),
            pymqi.CFIN(Parameter=CMQCFC.MQIACF_PURGE, Value=CMQCFC.MQPO_YES),
        ]
    )
    assert qmgr.display_queue(name.decode()) is None
