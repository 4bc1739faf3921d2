"""Connections that share their Kafka clients (``Settings.share_clients``, what ``mqk listen``
makes): an idle one costs no Kafka client and no thread of its own, and each keeps the
behaviour of a connection with clients of its own: its heartbeats, its unit of work, its
temporary dynamic queues (deleted at its end, or by the others' reaper at its crash)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD, OD, PMO, MQMIError
from mqkafka.mqi.kafkaqm.queue import Queue, wait_until
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.mqi.kafkaqm.sharedclients import shared_pools

pytestmark = pytest.mark.kafka

Connect = Callable[..., QueueManager]
TEMPORARY = b"SYSTEM.DEFAULT.MODEL.QUEUE"
WAIT = GMO(Options=C.MQGMO_WAIT, WaitInterval=20_000)  # a new getter joins its share group


def native_threads() -> int:
    """The process's threads, librdkafka's included (``threading`` sees only Python's)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise AssertionError("no Threads line")


def temporary_queue(qmgr: QueueManager) -> tuple[Queue, str]:
    """Held open (a collected Queue is closed, and its creator's close deletes it)."""
    od = OD(ObjectName=TEMPORARY, DynamicQName=b"SHARED.*")
    queue = Queue(qmgr, od, C.MQOO_OUTPUT)  # output only: no getter, so still no keeper
    return queue, od.ObjectName.decode().strip()


def test_idle_shared_connections_add_no_kafka_client_and_no_thread(connect: Connect) -> None:
    first = connect(share_clients=True)
    before = native_threads()
    others = [connect(share_clients=True) for _ in range(5)]
    # each connection of its own clients had five librdkafka clients, ~17 threads
    assert native_threads() - before < 5
    assert all(o.connection.clients is first.connection.clients for o in others)
    assert all(o.connection._producer is None and o.connection._keeper is None for o in others)
    own = connect()
    assert own.connection.clients is not first.connection.clients


def test_a_shared_connections_first_put_makes_its_producer_and_keeper(
    connect: Connect, new_queue: Callable[..., str]
) -> None:
    name = new_queue()
    qmgr, other = connect(share_clients=True), connect(share_clients=True)
    Queue(qmgr, name, C.MQOO_OUTPUT).put(b"one")
    assert qmgr.connection._producer is not None and qmgr.connection._keeper is not None
    assert other.connection._producer is None and other.connection._keeper is None
    assert Queue(other, name, C.MQOO_INPUT_SHARED).get(None, MD(), WAIT) == b"one"
    assert other.connection._keeper is not None  # its getter's acknowledgements
    assert other.connection._producer is None  # a getter puts nothing


def test_shared_connections_have_their_own_units_of_work(
    connect: Connect, new_queue: Callable[..., str]
) -> None:
    name = new_queue()
    putter, getter = connect(share_clients=True), connect(share_clients=True)
    Queue(putter, name, C.MQOO_OUTPUT).put(b"held", MD(), PMO(Options=C.MQPMO_SYNCPOINT))
    queue = Queue(getter, name, C.MQOO_INPUT_SHARED)
    no_wait = GMO(Options=C.MQGMO_NO_WAIT)
    with pytest.raises(MQMIError):
        queue.get(None, MD(), no_wait)  # not committed: not there for anyone
    putter.backout()
    putter.commit()
    with pytest.raises(MQMIError):
        queue.get(None, MD(), no_wait)
    Queue(putter, name, C.MQOO_OUTPUT).put(b"kept", MD(), PMO(Options=C.MQPMO_SYNCPOINT))
    putter.commit()
    assert queue.get(None, MD(), WAIT) == b"kept"


def test_idle_shared_connections_stay_alive_and_a_crashed_ones_queue_is_reaped(
    connect: Connect,
) -> None:
    """The shared thread sends idle connections' heartbeats: their temporary queues outlive
    the liveness timeout; one that stops (a crash) is reaped by the reaper of the clients it
    shared, while they go on."""
    alive, crashed = connect(share_clients=True), connect(share_clients=True)
    observer = connect()
    (held, kept), (_, lost) = temporary_queue(alive), temporary_queue(crashed)
    crashed.connection.abandon()
    crashed.disconnect_on_exit = False
    assert wait_until(lambda: observer.display_queue(lost) is None, 30)
    assert observer.display_queue(kept) is not None  # 3 s timeout long past: beats went on
    assert alive.connection.clients.usable and alive.connection._keeper is None
    held.close()
    assert wait_until(lambda: observer.display_queue(kept) is None, 30)


def test_the_shared_clients_end_with_their_last_connection(connect: Connect) -> None:
    start = shared_pools()
    one, two = connect(share_clients=True), connect(share_clients=True)
    assert shared_pools() == start + 1
    clients = one.connection.clients
    one.disconnect()
    assert clients.usable and two.is_connected
    two.disconnect()
    assert not clients.usable and shared_pools() == start
    three = connect(share_clients=True)  # a fresh set
    assert three.connection.clients is not clients


def test_a_put_before_a_unit_of_work_is_got_while_the_unit_is_open(
    connect: Connect, new_queue: Callable[..., str]
) -> None:
    """A shared connection's first put makes its producer; it still reaches the queue before
    the unit of work's first record, where an open transaction would hide it from getters (a
    race between two producers: not lost every run without the flush, test_mqi_syncpoint's
    CURDEPTH test lost it three times in four)."""
    name = new_queue()
    putter, getter = connect(share_clients=True), connect(share_clients=True)
    queue = Queue(getter, name, C.MQOO_INPUT_SHARED)
    out = Queue(putter, name, C.MQOO_OUTPUT)
    out.put(b"now")
    out.put(b"later", MD(), PMO(Options=C.MQPMO_SYNCPOINT))
    assert queue.get(None, MD(), WAIT) == b"now"
    putter.commit()
    assert queue.get(None, MD(), WAIT) == b"later"
