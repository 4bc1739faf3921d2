"""pymqi's ``with`` blocks and the objects its calls return, against the real broker: a
QueueManager, Queue, Topic and Subscription each close what they opened when the block ends,
the block's own exception wins over a failing close, and connect/open/sub return the object
so that ``with qmgr.connect_tcp_client(...)`` and ``with queue.open(od, opts)`` read as in
pymqi (issue 23; pymqi's test_*_isolated and test_pubsub use these forms)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest

import mqkafka.mqi as pymqi
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

pytestmark = pytest.mark.kafka


@pytest.fixture
def conn_name(kafka_bootstrap: str, namespace: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("MQK_NAMESPACE", namespace)
    monkeypatch.delenv("MQK_BOOTSTRAP_SERVERS", raising=False)
    host, port = kafka_bootstrap.split(",")[0].rsplit(":", 1)
    return f"{host}({port})"


def _tcp(conn_name: str) -> pymqi.QueueManager:
    return pymqi.QueueManager(None).connect_tcp_client("QM1", pymqi.CD(), "CH", conn_name)


def _with_options(conn_name: str) -> pymqi.QueueManager:
    return pymqi.QueueManager(None).connect_with_options(
        "QM1", cd=pymqi.CD(ConnectionName=conn_name)
    )


def _connect(conn_name: str) -> pymqi.QueueManager:
    return pymqi.QueueManager(None).connect("QM1", conn_info=conn_name)


@pytest.mark.parametrize("how", [_tcp, _with_options, _connect], ids=lambda f: f.__name__)
def test_a_connect_call_returns_the_queue_manager_and_a_with_block_disconnects(
    how: Callable[[str], pymqi.QueueManager], conn_name: str
) -> None:
    with how(conn_name) as qmgr:
        assert qmgr.is_connected and qmgr.get_name() == b"QM1"
    assert not qmgr.is_connected and qmgr.get_name() == b""
    with qmgr:  # connects again as it last did
        assert qmgr.is_connected
    assert not qmgr.is_connected


def test_the_blocks_exception_wins_over_a_failing_disconnect(
    conn_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    qmgr = _tcp(conn_name)
    real = qmgr.disconnect

    def failing() -> None:
        real()
        raise pymqi.MQMIError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN)

    monkeypatch.setattr(qmgr, "disconnect", failing)
    with pytest.raises(ValueError, match="the application's"), qmgr:
        raise ValueError("the application's")
    assert not qmgr.is_connected
    with pytest.raises(pymqi.MQMIError) as raised, qmgr:  # no exception of its own: the exit's
        pass
    assert raised.value.reason == C.MQRC_CONNECTION_BROKEN


@pytest.fixture
def opened(qmgr: QueueManager, new_queue: Callable[..., str]) -> Iterator[tuple[QueueManager, str]]:
    yield qmgr, new_queue()


def _by_name(qmgr: QueueManager, name: str) -> pymqi.Queue:
    return pymqi.Queue(qmgr, name)  # opened by the with block


def _deferred_open(qmgr: QueueManager, name: str) -> pymqi.Queue:
    queue = pymqi.Queue(qmgr).open(name)
    assert queue.get_handle() is None  # no options: the open waits
    return queue


def _open_with_options(qmgr: QueueManager, name: str) -> pymqi.Queue:
    return pymqi.Queue(qmgr).open(pymqi.OD(ObjectName=name), C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)


@pytest.mark.parametrize(
    "make", [_by_name, _deferred_open, _open_with_options], ids=lambda f: f.__name__
)
def test_a_queue_with_block_opens_and_closes_it(
    make: Callable[[QueueManager, str], pymqi.Queue], opened: tuple[QueueManager, str]
) -> None:
    qmgr, name = opened
    with make(qmgr, name) as queue:
        assert queue.get_handle() is not None
        queue.put(b"in the block")
        assert queue.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=15000))
    assert queue.get_handle() is None
    pymqi.Queue(qmgr, name, C.MQOO_INPUT_EXCLUSIVE).close()  # 2042 if the block left it open


def test_a_queue_closes_when_its_block_raises(opened: tuple[QueueManager, str]) -> None:
    qmgr, name = opened
    with pytest.raises(RuntimeError), pymqi.Queue(qmgr, name, C.MQOO_INPUT_EXCLUSIVE) as queue:
        raise RuntimeError("in the block")
    assert queue.get_handle() is None
    pymqi.Queue(qmgr, name, C.MQOO_INPUT_EXCLUSIVE).close()


def test_topic_and_subscription_blocks_as_pymqis_test_pubsub_writes_them(
    broker_service: str, qmgr: QueueManager
) -> None:
    topic_string = f"/UNITTEST//PUBSUB/{uuid.uuid4().hex[:6]}/NON DURABLE"
    sd = pymqi.SD(Options=C.MQSO_CREATE + C.MQSO_MANAGED)
    sd.set_vs("SubName", "a subscription's name")
    sd.set_vs("ObjectString", topic_string)
    subscription = pymqi.Subscription(qmgr)
    with subscription.sub(sub_desc=sd) as returned:
        assert returned is subscription
        with pymqi.Topic(qmgr, topic_string=topic_string) as topic:
            assert topic.open(open_opts=C.MQOO_OUTPUT) is topic
            topic.pub(b"published in a block")
        with pytest.raises(pymqi.PYIFError):
            topic.close()  # the block closed it
        gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=15000)
        assert subscription.get(None, pymqi.md(), gmo) == b"published in a block"
        subscription.close(sub_close_options=0, close_sub_queue=True)  # the exit has no work
    queue = subscription.get_sub_queue()
    assert queue is not None and queue.get_handle() is None


def test_a_subscription_block_closes_the_subscription_and_its_queue(
    broker_service: str, qmgr: QueueManager
) -> None:
    sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_MANAGED, ObjectString=b"Contexts/Sub")
    with pymqi.Subscription(qmgr, sub_desc=sd) as subscription:
        queue = subscription.get_sub_queue()
        assert queue is not None and queue.get_handle() is not None
    assert queue.get_handle() is None
    with pytest.raises(pymqi.PYIFError):
        subscription.close()
