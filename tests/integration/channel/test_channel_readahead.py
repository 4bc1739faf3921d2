"""Read ahead through ``mqk listen`` with IBM's MQ classes for Java (9.4.4, unchanged), on a
channel the listener offers SHARECNV 1: a queue opened with MQOO_READ_AHEAD gets its messages
pushed (ASYNC_MESSAGE), once each and in order, larger ones in several segments; an MQGET whose
wait ends with nothing there gets 2033; browse, read ahead or not, takes nothing away; and an
MQCLOSE with messages read ahead and not got leaves every message the listener never sent on
the queue, in order, for the next getter (a Python MQI program here).

Gets that MQ does not serve from read ahead, on a read-ahead handle: the client never sends
a plain MQGET there (the listener's log shows none for that queue). A MsgId match changes
the selection of its REQUEST_MSGS (the stream follows it: the message matched comes once,
sent ahead already or not, and the others after it in order); a get under syncpoint once
read ahead has begun is refused by the client itself (2046, as MQ documents); a first get
under syncpoint makes the client ask one message at a time, each got in the connection's
unit of work (a backout puts it back)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from devsupport import javaclient

import mqkafka.mqi as pymqi
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from tests.integration.channel.conftest import ListenerProcess, connect_qmgr

CHANNEL = "DEV.RA.SVRCONN"  # offered SHARECNV 1
QUEUE, CLOSE_QUEUE, BROWSE_QUEUE, MIX_QUEUE = "RA.Q", "RA.CLOSE.Q", "RA.BROWSE.Q", "RA.MIX.Q"
COUNT = 300  # every 100th message 70 kB: ASYNC_MESSAGE in several segments
CLOSE_COUNT = 200  # as ReadAheadCheck puts them: 1 kB each, 3 got before the MQCLOSE
CHECKS = ["connect", "read_ahead_once_in_order", "put_and_get_in_turn",
          "close_with_messages_read_ahead", "browse_on_the_channel", "mixed_msgid_match",
          "mixed_msgid_beyond_the_window", "mixed_syncpoint", "syncpoint_first",
          "disconnect"]  # fmt: skip


@pytest.fixture(scope="module")
def qmgr(kafka_bootstrap: str, namespace: str) -> Iterator[QueueManager]:
    manager = connect_qmgr(kafka_bootstrap, namespace)
    for name in (QUEUE, CLOSE_QUEUE, BROWSE_QUEUE, MIX_QUEUE):
        manager.define_queue(name, max_depth=100_000)
    yield manager
    manager.disconnect()


@pytest.fixture(scope="module")
def ra_listener(kafka_bootstrap: str, namespace: str) -> Iterator[ListenerProcess]:
    process = ListenerProcess(
        kafka_bootstrap, namespace, "--sharecnv", f"{CHANNEL}=1", "--log-level", "DEBUG"
    )  # DEBUG: each MQGET verb's queue in the log
    yield process
    if process.proc.poll() is None:
        process.stop()


@pytest.fixture(scope="module")
def checks(
    qmgr: QueueManager, ra_listener: ListenerProcess, mq_client_jars: Path, java_classes: Path
) -> dict[str, str]:
    args = ("127.0.0.1", str(ra_listener.port), CHANNEL, QUEUE, str(COUNT), CLOSE_QUEUE,
            BROWSE_QUEUE, MIX_QUEUE)  # fmt: skip
    try:
        done = javaclient.run_java(mq_client_jars, java_classes, "ReadAheadCheck", *args)
    except javaclient.JavaClientError as error:
        pytest.fail(str(error), False)
    return javaclient.checks_of(done, java_classes)


@pytest.mark.parametrize("name", CHECKS)
def test_read_ahead_with_the_mq_classes_for_java(checks: dict[str, str], name: str) -> None:
    assert checks.get(name) == "OK", (
        f"{name}: {checks.get(name)}\n{checks['_output']}\n{checks['_ffdc'][:2000]}"
    )


def test_the_client_reported_no_fault(checks: dict[str, str]) -> None:
    """IBM's client writes an FFDC report for a flow it cannot use (an unexpected
    notification, a reply to no request): none here."""
    assert checks["_ffdc"] == "", checks["_ffdc"][:3000]


def test_what_was_never_sent_stays_for_the_next_getter(
    checks: dict[str, str], qmgr: QueueManager
) -> None:
    assert checks.get("close_with_messages_read_ahead") == "OK", checks["_output"]
    queue = pymqi.Queue(qmgr, CLOSE_QUEUE, C.MQOO_INPUT_AS_Q_DEF)
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=3000)
    rest: list[str] = []
    while True:
        try:
            data = queue.get(None, pymqi.MD(), gmo)
        except pymqi.MQMIError as error:
            assert error.reason == C.MQRC_NO_MSG_AVAILABLE
            break
        rest.append(data.split(b"\0", 1)[0].decode())
    queue.close()
    # the three got, then those read ahead and discarded with the MQCLOSE (MQ's own read
    # ahead does the same), then every message never sent: in order, once each
    assert rest, "every message was sent ahead: the window did not hold the listener back"
    first = int(rest[0].removeprefix("c-"))
    assert first >= 3
    assert rest == [f"c-{i}" for i in range(first, CLOSE_COUNT)]


def test_the_connection_ends_as_the_client_closes(
    checks: dict[str, str], ra_listener: ListenerProcess
) -> None:
    assert checks.get("disconnect") == "OK", checks["_output"]
    text = "\n".join(ra_listener.lines)
    assert f"connected: channel {CHANNEL}" in text
    assert "ended: closed by the client" in text, text[-2000:]
    assert "read ahead of" not in text, text[-2000:]  # no stream failed


def test_the_client_never_mixes_plain_mqgets_into_a_read_ahead_handle(
    checks: dict[str, str], ra_listener: ListenerProcess
) -> None:
    mixed = ["mixed_msgid_match", "mixed_msgid_beyond_the_window", "mixed_syncpoint",
             "syncpoint_first"]  # fmt: skip
    assert all(checks.get(name) == "OK" for name in mixed), checks["_output"]
    text = "\n".join(ra_listener.lines)
    assert f"channel: MQGET {BROWSE_QUEUE} " in text  # the log names an MQGET verb's queue
    assert f"channel: MQGET {MIX_QUEUE} " not in text
