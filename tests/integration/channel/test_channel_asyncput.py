"""Asynchronous put through ``mqk listen`` with IBM's MQ classes for Java (9.4.4, unchanged), on
a channel the listener offers SHARECNV 1 (``--sharecnv``: TSHM framing) and on one with
SHARECNV 0 (the default: the client puts asynchronously there too): the puts return at once,
arrive exactly once and in order with the MsgIds the client made from its reserved pool,
MQPUT1 under syncpoint waits for MQCMIT, and a put-inhibited queue's refusals show in the
client's async status (MQSTAT) as a queue manager's do."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from devsupport import javaclient

import mqkafka.mqi as pymqi
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.mqi.rules.errors import MQMIError
from tests.integration.channel.conftest import ListenerProcess, connect_qmgr

CHANNEL = "DEV.ASYNC.SVRCONN"  # offered SHARECNV 1
RUNS = {"sharecnv1": (CHANNEL, "ASYNC.PUT.Q"), "sharecnv0": ("DEV.APP.SVRCONN", "ASYNC.PLAIN.Q")}
INHIBITED = "ASYNC.INHIBITED.Q"
COUNT = 600  # beyond 256: the client counts its MsgIds up over more than one byte
CHECKS = ["connect", "async_put", "async_put1_syncpoint", "async_put_inhibited",
          "sync_on_the_same_channel", "disconnect", "async_then_disconnect"]  # fmt: skip


@pytest.fixture(scope="module")
def qmgr(kafka_bootstrap: str, namespace: str) -> Iterator[QueueManager]:
    manager = connect_qmgr(kafka_bootstrap, namespace)
    for _, queue in RUNS.values():
        manager.define_queue(queue, max_depth=100_000)
        manager.define_queue(f"{queue}.DISC")
    manager.define_queue(INHIBITED)
    refusing = pymqi.Queue(manager, INHIBITED, C.MQOO_SET)
    refusing.set(C.MQIA_INHIBIT_PUT, C.MQQA_PUT_INHIBITED)
    refusing.close()
    yield manager
    manager.disconnect()


@pytest.fixture(scope="module")
def async_listener(kafka_bootstrap: str, namespace: str) -> Iterator[ListenerProcess]:
    process = ListenerProcess(kafka_bootstrap, namespace, "--sharecnv", f"{CHANNEL}=1")
    yield process
    if process.proc.poll() is None:
        process.stop()


@pytest.fixture(scope="module", params=sorted(RUNS))
def checks(
    request: pytest.FixtureRequest,
    qmgr: QueueManager,
    async_listener: ListenerProcess,
    mq_client_jars: Path,
    java_classes: Path,
) -> dict[str, str]:
    channel, queue = RUNS[request.param]
    args = ("127.0.0.1", str(async_listener.port), channel, queue, str(COUNT), INHIBITED)
    try:
        done = javaclient.run_java(mq_client_jars, java_classes, "AsyncPutCheck", *args)
    except javaclient.JavaClientError as error:
        pytest.fail(str(error), False)
    checks = javaclient.checks_of(done, java_classes)
    ids = [line.split()[2] for line in done.stdout.splitlines() if line.startswith("MSGID ")]
    checks["_msgids"] = " ".join(ids)
    checks["_channel"], checks["_queue"] = channel, queue
    return checks


@pytest.mark.parametrize("name", CHECKS)
def test_async_put_with_the_mq_classes_for_java(checks: dict[str, str], name: str) -> None:
    assert checks.get(name) == "OK", (
        f"{name}: {checks.get(name)}\n{checks['_output']}\n{checks['_ffdc'][:2000]}"
    )


def test_async_puts_arrive_once_in_order_with_the_clients_msgids(
    checks: dict[str, str], qmgr: QueueManager
) -> None:
    assert checks.get("async_put") == "OK", checks["_output"]
    sent = checks["_msgids"].split()
    assert len(sent) == COUNT and len(set(sent)) == COUNT
    queue = pymqi.Queue(qmgr, checks["_queue"], C.MQOO_INPUT_AS_Q_DEF)
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=10_000)
    got: list[tuple[bytes, str]] = []
    for _ in range(COUNT + 3):
        md = pymqi.MD()
        got.append((queue.get(None, md, gmo), md.MsgId.hex()))
    assert [data for data, _ in got] == [
        *(f"async-{i}".encode() for i in range(COUNT)),
        b"put1-a",
        b"put1-b",
        b"sync",
    ]
    assert [msg_id for _, msg_id in got[:COUNT]] == sent
    with pytest.raises(MQMIError) as nothing_more:
        queue.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_SYNCPOINT))
    assert nothing_more.value.reason == C.MQRC_NO_MSG_AVAILABLE
    queue.close()


def test_async_puts_right_before_mqdisc_are_all_put(
    checks: dict[str, str], qmgr: QueueManager
) -> None:
    assert checks.get("async_then_disconnect") == "OK", checks["_output"]
    queue = pymqi.Queue(qmgr, f"{checks['_queue']}.DISC", C.MQOO_INPUT_AS_Q_DEF)
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=10_000)
    got = [queue.get(None, pymqi.MD(), gmo) for _ in range(100)]
    assert got == [f"last-{i}".encode() for i in range(100)]
    queue.close()


def test_the_refused_puts_put_nothing(checks: dict[str, str], qmgr: QueueManager) -> None:
    assert checks.get("async_put_inhibited") == "OK", checks["_output"]
    depth = pymqi.Queue(qmgr, INHIBITED, C.MQOO_INQUIRE)
    assert depth.inquire(C.MQIA_CURRENT_Q_DEPTH) == 0
    depth.close()


def test_each_connection_ends_as_the_client_closes(
    checks: dict[str, str], async_listener: ListenerProcess
) -> None:
    text = "\n".join(async_listener.lines)
    assert f"connected: channel {checks['_channel']}" in text
    assert "ended: closed by the client" in text, text[-2000:]
