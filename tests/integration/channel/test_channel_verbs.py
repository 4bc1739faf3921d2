"""A connection that is lost backs out its unit of work and releases its deferred SPI puts
(the ones no ACTIVATE cancelled), as a queue manager does."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

import mqkafka.mqi as pymqi
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
