"""Units of work on Kafka (MQPMO_SYNCPOINT / MQGMO_SYNCPOINT, MQCMIT, MQBACK), and competing
getters in separate processes: each message to exactly one getter."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import mqkafka.mqi as pymqi
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD, PMO, MQMIError
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

pytestmark = pytest.mark.kafka

WORKER = str(Path(__file__).with_name("worker.py"))
SYNC_PUT = PMO(Options=C.MQPMO_SYNCPOINT)


def wait(options: int = 0, ms: int = 15000) -> GMO:
    return GMO(Options=C.MQGMO_WAIT | options, WaitInterval=ms)


def reason(call: Callable[[], object]) -> int:
    with pytest.raises(MQMIError) as raised:
        call()
    return raised.value.reason


def test_syncpoint_puts_appear_at_commit_and_vanish_at_backout(
    connect: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    name = new_queue()
    putter, getter_qmgr = connect(), connect()
    out = Queue(putter, name, C.MQOO_OUTPUT)
    inbox = Queue(getter_qmgr, name, C.MQOO_INPUT_SHARED)
    out.put(b"backed out", MD(), SYNC_PUT)
    putter.backout()
    out.put(b"committed 1", MD(), SYNC_PUT)
    out.put(b"committed 2", MD(), SYNC_PUT)
    # another application sees nothing of an open unit of work
    assert reason(lambda: inbox.get(None, MD(), wait(ms=1500))) == RC.NO_MSG_AVAILABLE
    putter.commit()
    assert inbox.get(None, MD(), wait()) == b"committed 1"
    assert inbox.get(None, MD(), wait()) == b"committed 2"
    assert reason(lambda: inbox.get(None, MD(), GMO())) == RC.NO_MSG_AVAILABLE


def test_curdepth_counts_puts_not_yet_committed_as_mq_does(
    connect: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    """MQ counts a message put under syncpoint in CURDEPTH before MQCMIT (no getter sees it):
    the putter's own MQINQ, another connection's MQINQ and PCF's inquire queue all count it;
    MQBACK takes it away."""
    name = new_queue()
    putter, other = connect(), connect()
    out = Queue(putter, name, C.MQOO_OUTPUT | C.MQOO_INQUIRE)
    watcher = Queue(other, name, C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE)
    out.put(b"committed")
    out.put(b"open 1", MD(), SYNC_PUT)
    out.put(b"open 2", MD(), SYNC_PUT)

    def pcf_depth(qmgr: QueueManager) -> int:
        args = {C.MQCA_Q_NAME: name.encode(), C.MQIA_Q_TYPE: C.MQQT_LOCAL}
        (row,) = pymqi.PCFExecute(qmgr).MQCMD_INQUIRE_Q(args)
        depth: int = row[C.MQIA_CURRENT_Q_DEPTH]
        return depth

    assert out.inquire(C.MQIA_CURRENT_Q_DEPTH) == 3  # its own, before Kafka has them
    assert watcher.inquire(C.MQIA_CURRENT_Q_DEPTH) == 3  # another's, as Kafka shows them
    assert other.queue_depth(name) == 3 and pcf_depth(other) == 3
    assert watcher.get(None, MD(), wait()) == b"committed"
    assert reason(lambda: watcher.get(None, MD(), wait(ms=1500))) == RC.NO_MSG_AVAILABLE
    assert watcher.inquire(C.MQIA_CURRENT_Q_DEPTH) == 2  # the two not yet committed
    putter.backout()
    assert watcher.inquire(C.MQIA_CURRENT_Q_DEPTH) == 0 and pcf_depth(other) == 0
    out.put(b"open 3", MD(), SYNC_PUT)
    assert watcher.inquire(C.MQIA_CURRENT_Q_DEPTH) == 1
    putter.commit()
    assert watcher.inquire(C.MQIA_CURRENT_Q_DEPTH) == 1
    assert watcher.get(None, MD(), wait()) == b"open 3"
    assert watcher.inquire(C.MQIA_CURRENT_Q_DEPTH) == 0


def test_a_backed_out_get_comes_back_with_backout_count_increased(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    """The issue: "a backed-out message comes back with BackoutCount increased" - and in its
    place, before the messages behind it."""
    queue = Queue(qmgr, new_queue(), C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    for body in (b"first", b"second"):
        queue.put(body)
    md = MD()
    assert queue.get(None, md, wait(C.MQGMO_SYNCPOINT)) == b"first" and md.BackoutCount == 0
    qmgr.backout()
    md = MD()
    assert queue.get(None, md, wait(C.MQGMO_SYNCPOINT)) == b"first" and md.BackoutCount == 1
    qmgr.backout()
    md = MD()
    assert queue.get(None, md, wait(C.MQGMO_SYNCPOINT)) == b"first" and md.BackoutCount == 2
    qmgr.commit()
    assert queue.get(None, MD(), wait()) == b"second"
    assert reason(lambda: queue.get(None, MD(), GMO())) == RC.NO_MSG_AVAILABLE


def test_a_message_released_by_another_getter_counts_its_deliveries(
    connect: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    """BackoutCount across getters: one application backs out and ends, the next one sees
    the earlier delivery (mqi.redelivery)."""
    name = new_queue()
    first = connect()
    queue = Queue(first, name, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    queue.put(b"poison?")
    queue.get(None, MD(), wait(C.MQGMO_SYNCPOINT))
    first.backout()
    queue.close()  # gives the message back to Kafka
    md = MD()
    assert Queue(connect(), name, C.MQOO_INPUT_SHARED).get(None, md, wait()) == b"poison?"
    assert md.BackoutCount >= 1


def test_commit_removes_got_messages_and_mqdisc_commits(
    connect: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    name = new_queue()
    qmgr, observer = connect(), connect()
    queue = Queue(qmgr, name, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    for body in (b"a", b"b"):
        queue.put(body)
    queue.get(None, MD(), wait(C.MQGMO_SYNCPOINT))
    qmgr.commit()
    queue.put(b"c", MD(), SYNC_PUT)
    queue.get(None, MD(), wait(C.MQGMO_SYNCPOINT))  # "b", uncommitted
    qmgr.disconnect()  # MQDISC commits: "b" is gone, "c" is there
    remaining = Queue(observer, name, C.MQOO_INPUT_SHARED)
    assert remaining.get(None, MD(), wait()) == b"c"
    assert reason(lambda: remaining.get(None, MD(), GMO())) == RC.NO_MSG_AVAILABLE


def test_syncpoint_if_persistent(qmgr: QueueManager, new_queue: Callable[..., str]) -> None:
    queue = Queue(qmgr, new_queue(), C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    queue.put(b"persistent", MD(Persistence=C.MQPER_PERSISTENT))
    queue.put(b"not persistent", MD(Persistence=C.MQPER_NOT_PERSISTENT))
    queue.get(None, MD(), wait(C.MQGMO_SYNCPOINT_IF_PERSISTENT))  # under syncpoint
    queue.get(None, MD(), wait(C.MQGMO_SYNCPOINT_IF_PERSISTENT))  # not
    qmgr.backout()
    assert queue.get(None, MD(), wait()) == b"persistent"
    assert reason(lambda: queue.get(None, MD(), GMO())) == RC.NO_MSG_AVAILABLE


def test_competing_getters_in_two_processes_get_each_message_once(
    qmgr: QueueManager, new_queue: Callable[..., str], kafka_bootstrap: str, namespace: str
) -> None:
    """The issue: "MQGET destructive: each message to exactly one getter, across threads and
    processes"."""
    name = new_queue()
    workers = [
        subprocess.Popen(
            [sys.executable, WORKER, "getter", kafka_bootstrap, namespace, name, "4"],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for worker in workers:
        assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"
    queue = Queue(qmgr, name, C.MQOO_OUTPUT)
    bodies = [f"m{i}" for i in range(400)]
    for i, body in enumerate(bodies):
        queue.put(body.encode())
        if i % 100 == 99:
            qmgr.connection.producer.flush(10)  # several batches, so both can take some
    received = []
    for worker in workers:
        out, _ = worker.communicate(timeout=120)
        assert worker.returncode == 0
        received.append(out.split())
    everything = received[0] + received[1]
    assert sorted(everything) == sorted(bodies)  # every message, none twice
    assert qmgr.queue_depth(name) == 0


def test_curdepth_asked_by_another_connection_does_not_count_what_one_got(
    connect: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    """CURDEPTH is what is left to get, whoever asks: a connection that got nothing does not
    count the messages another connection got (outside syncpoint, or under it once
    committed), though the getter's keeper thread sends a non-syncpoint MQGET's
    acknowledgement to Kafka a moment after the get (getter.ACK_GAP)."""
    name = new_queue()
    getter, watcher = connect(), connect()
    queue = Queue(getter, name, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    looking = Queue(watcher, name, C.MQOO_INQUIRE)
    for n in range(4):
        queue.put(f"m{n}".encode())

    def pcf_depth() -> int:
        args = {C.MQCA_Q_NAME: name.encode(), C.MQIA_Q_TYPE: C.MQQT_LOCAL}
        (row,) = pymqi.PCFExecute(watcher).MQCMD_INQUIRE_Q(args)
        depth: int = row[C.MQIA_CURRENT_Q_DEPTH]
        return depth

    assert looking.inquire(C.MQIA_CURRENT_Q_DEPTH) == 4
    # two gets at once: the second's acknowledgement would wait for the getter's next poll
    assert queue.get(None, MD(), wait()) == b"m0"
    assert queue.get(None, MD(), wait()) == b"m1"
    assert looking.inquire(C.MQIA_CURRENT_Q_DEPTH) == 2
    assert watcher.queue_depth(name) == 2 and pcf_depth() == 2
    assert queue.get(None, MD(), wait(C.MQGMO_SYNCPOINT)) == b"m2"
    assert looking.inquire(C.MQIA_CURRENT_Q_DEPTH) == 2  # got, not yet committed: counted
    getter.commit()
    assert looking.inquire(C.MQIA_CURRENT_Q_DEPTH) == 1 and pcf_depth() == 1
    assert queue.get(None, MD(), wait(C.MQGMO_SYNCPOINT)) == b"m3"
    getter.backout()  # back on the queue: counted again
    assert looking.inquire(C.MQIA_CURRENT_Q_DEPTH) == 1
