"""Verbs driven by a small client side built from the codec, where IBM's client cannot be
made to do it on purpose or does not show the answer: a lost connection (backout, deferred
SPI puts released), a parked MQGET beside busy connections, MQGET truncation (2079/2080),
the queue manager's MQINQ answers, MQCLOSE with MQCO_DELETE_PURGE of a dynamic queue."""

from __future__ import annotations

import struct
import threading
import time
from collections.abc import Iterator

import pytest

import mqkafka.mqi as pymqi
from mqkafka.channel.codec import segments, verbs
from mqkafka.channel.codec.mqstructs import GMO_KIND, md_bytes, new_struct
from mqkafka.channel.codec.segments import Header, SegType
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from tests.integration.channel.conftest import ListenerProcess, connect_qmgr
from tests.integration.channel.rawclient import RawClient

C = pymqi.CMQC
DEFERRED = 0x04


@pytest.fixture(scope="module")
def qmgr(kafka_bootstrap: str, namespace: str) -> Iterator[QueueManager]:
    manager = connect_qmgr(kafka_bootstrap, namespace)
    manager.define_queue("LOST.Q")
    manager.define_queue("WAIT.Q")
    manager.define_queue("BUSY.Q")
    manager.define_queue("TRUNC.Q")
    yield manager
    manager.disconnect()


def test_a_lost_connection_backs_out_and_releases_its_deferred_puts(
    qmgr: QueueManager, listener: ListenerProcess
) -> None:
    client = RawClient(listener.port)
    assert client.conn() == 0
    hobj = client.open("LOST.Q", C.MQOO_OUTPUT)
    assert client.put(hobj, b"in-the-unit-of-work", C.MQPMO_SYNCPOINT) == 0
    kept = client.spi_put(hobj, b"deferred", DEFERRED, C.MQPMO_NEW_CORREL_ID)
    dropped = client.spi_put(hobj, b"cancelled", DEFERRED, C.MQPMO_NEW_CORREL_ID)
    assert any(kept.CorrelId) and kept.CorrelId != dropped.CorrelId  # made at the SPI PUT
    assert client.spi_activate(hobj, dropped.MsgId) == 0
    client.drop()

    queue = pymqi.Queue(qmgr, "LOST.Q", C.MQOO_INPUT_AS_Q_DEF)
    md = pymqi.MD()
    assert queue.get_wait(20_000, None, md) == b"deferred"
    assert md.CorrelId == kept.CorrelId
    with pytest.raises(pymqi.MQMIError) as nothing:
        queue.get_wait(2_000)
    assert nothing.value.reason == C.MQRC_NO_MSG_AVAILABLE
    queue.close()
    assert any("ended: lost (socket closed)" in line for line in listener.lines)


@pytest.mark.usefixtures("qmgr")  # its queues are defined there
def test_a_parked_mqget_does_not_hold_up_other_connections(listener: ListenerProcess) -> None:
    waiting, busy = RawClient(listener.port), RawClient(listener.port)
    assert waiting.conn() == 0 and busy.conn() == 0
    parked = waiting.open("WAIT.Q", C.MQOO_INPUT_AS_Q_DEF)
    hobj = busy.open("BUSY.Q", C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT)
    outcome: list[tuple[int, bytes]] = []
    thread = threading.Thread(target=lambda: outcome.append(waiting.get(parked, 30_000)))
    thread.start()
    for n in range(5):  # all done while the other connection's MQGET waits
        assert busy.put(hobj, f"m{n}".encode(), C.MQPMO_NO_SYNCPOINT) == 0
        assert busy.get(hobj, 10_000) == (0, f"m{n}".encode())
    assert thread.is_alive() and not outcome
    other = RawClient(listener.port)
    assert other.conn() == 0
    assert other.put(other.open("WAIT.Q", C.MQOO_OUTPUT), b"wake", C.MQPMO_NO_SYNCPOINT) == 0
    thread.join(30)
    assert outcome == [(0, b"wake")]
    for client in (waiting, busy, other):
        client.drop()


@pytest.mark.usefixtures("qmgr")  # its queues are defined there
def test_truncation_2080_gives_no_data_and_2079_the_buffers_worth(
    listener: ListenerProcess,
) -> None:
    client = RawClient(listener.port)
    assert client.conn() == 0
    hobj = client.open("TRUNC.Q", C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT)
    message = bytes(range(100))
    assert client.put(hobj, message, C.MQPMO_NO_SYNCPOINT) == 0
    wait = C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT
    # no ACCEPT_TRUNCATED_MSG: 2080, no data bytes, the whole length; the message stays
    assert client.get_options(hobj, wait, 10) == (C.MQRC_TRUNCATED_MSG_FAILED, 100, b"")
    accept = wait | C.MQGMO_ACCEPT_TRUNCATED_MSG
    assert client.get_options(hobj, accept, 10) == (
        C.MQRC_TRUNCATED_MSG_ACCEPTED,
        100,
        message[:10],
    )
    assert client.get_options(hobj, C.MQGMO_NO_SYNCPOINT, 10)[0] == C.MQRC_NO_MSG_AVAILABLE
    client.drop()


def test_the_queue_manager_answers_what_the_java_classes_ask(listener: ListenerProcess) -> None:
    client = RawClient(listener.port)
    assert client.conn() == 0
    reason, hobj, _ = client.open_od("", C.MQOO_INQUIRE, object_type=C.MQOT_Q_MGR)
    assert reason == 0
    selectors = (
        C.MQIA_COMMAND_LEVEL, C.MQIA_PLATFORM, C.MQIA_CODED_CHAR_SET_ID, 187,  # PUBSUB_MODE
        C.MQCA_Q_MGR_NAME, C.MQCA_DEAD_LETTER_Q_NAME,
    )  # fmt: skip
    reason, ints, chars = client.inq(hobj, selectors, 4, 96)
    assert reason == 0
    assert ints == (600, C.MQPL_UNIX, 819, 0)  # 600: the Java classes then use MQOPEN
    assert chars == b"QM1".ljust(48) + b"SYSTEM.DEAD.LETTER.QUEUE".ljust(48)
    assert client.close(hobj) == 0
    assert client.open_od("NO.SUCH.QUEUE", C.MQOO_OUTPUT)[0] == C.MQRC_UNKNOWN_OBJECT_NAME
    client.drop()


def test_a_model_queue_opens_a_dynamic_queue_that_close_deletes(
    qmgr: QueueManager, listener: ListenerProcess
) -> None:
    client = RawClient(listener.port)
    assert client.conn() == 0
    options = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT
    reason, hobj, name = client.open_od("SYSTEM.DEFAULT.PERMANENT.MODEL.QUEUE", options)
    assert reason == 0 and name.startswith("AMQ.")
    assert qmgr.display_queue(name) is not None
    assert client.put(hobj, b"gone with the queue", C.MQPMO_NO_SYNCPOINT) == 0
    assert client.close(hobj, C.MQCO_DELETE_PURGE) == 0
    assert qmgr.display_queue(name) is None
    client.drop()


def test_a_stop_ends_a_parked_mqget_with_the_terminating_status(
    qmgr: QueueManager, listener: ListenerProcess
) -> None:
    """Last in this module: it stops the listener."""
    client = RawClient(listener.port)
    assert client.conn() == 0
    hobj = client.open("WAIT.Q", C.MQOO_INPUT_AS_Q_DEF)
    md = md_bytes(pymqi.MD(), ">", 2)
    gmo = new_struct(GMO_KIND, 3, ">", Options=C.MQGMO_WAIT, WaitInterval=600_000)
    request = md + gmo.to_bytes(">") + struct.pack(">i", 4096)
    body = verbs.ApiHeader(16 + len(request), 0, 0, hobj).to_bytes(">") + request
    client.sock.sendall(Header(SegType.MQGET, length=28 + len(body)).to_bytes() + body)
    time.sleep(1)  # the MQGET is parked in the listener
    assert listener.stop() == 0
    header, status = client._read()
    assert header.seg_type == SegType.STATUS_DATA
    assert verbs.parse_status(status, ">") == segments.STATUS_QM_TERMINATING
    assert any("still in an MQI call: ended without MQDISC" in line for line in listener.lines)
