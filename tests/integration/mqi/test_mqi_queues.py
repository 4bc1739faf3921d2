"""Queue semantics on Kafka share groups: MQPUT/MQPUT1/MQGET, waits, browse, match by id,
truncation, persistence, and the reason codes of misuse (reference §9.4)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable

import pytest

from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD, OD, PMO, MQMIError
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

pytestmark = pytest.mark.kafka

IO = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT
NO_WAIT = GMO(Options=C.MQGMO_NO_WAIT)


def wait_gmo(ms: int, **fields: int) -> GMO:
    return GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=ms, **fields)


def reason(call: Callable[[], object]) -> int:
    with pytest.raises(MQMIError) as raised:
        call()
    return raised.value.reason


def test_put_then_get_returns_the_message_with_its_descriptor(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    queue = Queue(qmgr, new_queue(), IO)
    md = MD(Format=C.MQFMT_STRING, CorrelId=b"c" * 24, ReplyToQ=b"R.Q", MsgType=C.MQMT_REQUEST)
    queue.put(b"hello", md)
    assert any(md.MsgId) and md.PutDate and md.UserIdentifier  # MQPUT fills these in
    got = MD()
    gmo = wait_gmo(15000)
    assert queue.get(None, got, gmo) == b"hello"
    assert (got.MsgId, got.CorrelId, got.Format) == (md.MsgId, b"c" * 24, C.MQFMT_STRING)
    assert (got.ReplyToQ, got.MsgType, got.BackoutCount) == (b"R.Q", C.MQMT_REQUEST, 0)
    assert got.Persistence == C.MQPER_NOT_PERSISTENT  # AS_Q_DEF resolved to DEFPSIST(NO)
    assert gmo.ReturnedLength == 5 and any(gmo.MsgToken)
    queue.close()


def test_messages_come_back_in_the_order_they_were_put(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    """Wire contract §2: messages put by one producer to one queue keep their order."""
    queue = Queue(qmgr, new_queue(), IO)
    for i in range(50):
        queue.put(b"%d" % i)
    assert [queue.get(None, MD(), wait_gmo(15000)) for _ in range(50)] == [
        b"%d" % i for i in range(50)
    ]
    assert reason(lambda: queue.get(None, MD(), GMO())) == RC.NO_MSG_AVAILABLE
    queue.close()


def test_no_wait_on_an_empty_queue_is_2033_at_once(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    queue = Queue(qmgr, new_queue(), IO)
    started = time.monotonic()
    assert reason(lambda: queue.get(None, MD(), NO_WAIT)) == RC.NO_MSG_AVAILABLE
    assert time.monotonic() - started < 3.0
    queue.put(b"now there is one")
    assert queue.get(None, MD(), NO_WAIT) == b"now there is one"  # own put visible at once
    queue.close()


def test_wait_returns_a_message_put_during_the_wait_and_times_out_otherwise(
    connect: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    name = new_queue()
    getter = Queue(connect(), name, C.MQOO_INPUT_SHARED)
    started = time.monotonic()
    assert reason(lambda: getter.get(None, MD(), wait_gmo(1000))) == RC.NO_MSG_AVAILABLE
    assert 0.9 <= time.monotonic() - started < 6.0
    putter = connect()
    threading.Timer(0.5, lambda: putter.put1(name, b"late")).start()
    assert getter.get(None, MD(), wait_gmo(20000)) == b"late"
    assert reason(lambda: getter.get(None, MD(), wait_gmo(-5))) == RC.WAIT_INTERVAL_ERROR
    getter.close()


def test_no_wait_finds_a_message_put_after_its_first_look(
    connect: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    """MQGMO_NO_WAIT answers from what the queue holds now, however long ago the handle last
    looked: a get by CorrelId and a browse cursor that found nothing find what another
    connection put since. (A NO_WAIT get by CorrelId never saw it: JMS polls a session's
    second message listener so, and its publications never arrived.)"""
    name = new_queue()
    reader = Queue(connect(), name, C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    mine = b"N" * 24
    by_correl = GMO(Version=C.MQGMO_VERSION_2, MatchOptions=C.MQMO_MATCH_CORREL_ID,
                    Options=C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT)  # fmt: skip
    browse_next = GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_BROWSE_NEXT)
    assert reason(lambda: reader.get(None, MD(CorrelId=mine), by_correl)) == RC.NO_MSG_AVAILABLE
    assert reason(lambda: reader.get(None, MD(), browse_next)) == RC.NO_MSG_AVAILABLE
    putter = Queue(connect(), name, C.MQOO_OUTPUT)
    putter.put(b"theirs", MD(CorrelId=b"T" * 24))
    putter.put(b"mine", MD(CorrelId=mine))

    def soon(get: Callable[[], bytes]) -> bytes:
        """What ``get`` answers once the puts have reached Kafka (2033 until then)."""
        deadline = time.monotonic() + 30
        while True:
            try:
                return get()
            except MQMIError as error:
                if error.reason != RC.NO_MSG_AVAILABLE or time.monotonic() > deadline:
                    raise
            time.sleep(0.2)

    assert soon(lambda: reader.get(None, MD(), browse_next)) == b"theirs"
    assert soon(lambda: reader.get(None, MD(CorrelId=mine), by_correl)) == b"mine"
    reader.close()


def test_put1_opens_puts_and_closes(qmgr: QueueManager, new_queue: Callable[..., str]) -> None:
    name = new_queue()
    od = OD(ObjectName=name)
    md = MD()
    qmgr.put1(od, b"one shot", md, PMO())
    assert any(md.MsgId) and od.ResolvedQName == name.encode()
    assert Queue(qmgr, name, C.MQOO_INPUT_SHARED).get(None, MD(), wait_gmo(15000)) == b"one shot"
    assert reason(lambda: qmgr.put1("SYSTEM.DEFAULT.MODEL.QUEUE", b"x")) == RC.Q_TYPE_ERROR


def test_browse_first_next_and_under_cursor_do_not_consume(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    queue = Queue(qmgr, new_queue(), IO | C.MQOO_BROWSE)
    for body in (b"a", b"b", b"c"):
        queue.put(body)

    def browse(options: int) -> bytes:
        return queue.get(None, MD(), GMO(Options=options))

    assert browse(C.MQGMO_BROWSE_FIRST) == b"a"
    assert browse(C.MQGMO_BROWSE_NEXT) == b"b"
    assert browse(C.MQGMO_BROWSE_MSG_UNDER_CURSOR) == b"b"
    assert browse(C.MQGMO_BROWSE_NEXT) == b"c"
    assert reason(lambda: browse(C.MQGMO_BROWSE_NEXT)) == RC.NO_MSG_AVAILABLE
    assert browse(C.MQGMO_BROWSE_FIRST) == b"a"  # nothing was consumed
    assert browse(C.MQGMO_BROWSE_NEXT) == b"b"
    # MQGMO_MSG_UNDER_CURSOR gets (destructively) exactly the browsed message.
    assert queue.get(None, MD(), GMO(Options=C.MQGMO_MSG_UNDER_CURSOR)) == b"b"
    assert queue.get(None, MD(), wait_gmo(15000)) == b"a"
    assert browse(C.MQGMO_BROWSE_FIRST) == b"c"  # a and b are gone
    queue.close()


def test_get_by_msg_id_and_by_correl_id(qmgr: QueueManager, new_queue: Callable[..., str]) -> None:
    queue = Queue(qmgr, new_queue(), IO)
    mds = [MD(CorrelId=b"%d" % (i % 2) * 24) for i in range(6)]
    for i, md in enumerate(mds):
        queue.put(b"m%d" % i, md)
    by_id = MD(MsgId=mds[4].MsgId)
    assert queue.get(None, by_id, wait_gmo(15000)) == b"m4"
    v2 = GMO(Version=C.MQGMO_VERSION_2, MatchOptions=C.MQMO_MATCH_CORREL_ID, Options=C.MQGMO_WAIT,
             WaitInterval=15000)  # fmt: skip
    odd = [queue.get(None, MD(CorrelId=b"1" * 24), v2) for _ in range(3)]
    assert odd == [b"m1", b"m3", b"m5"]
    v2.WaitInterval = 500
    assert reason(lambda: queue.get(None, MD(CorrelId=b"1" * 24), v2)) == RC.NO_MSG_AVAILABLE
    assert [queue.get(None, MD(), wait_gmo(15000)) for _ in range(2)] == [b"m0", b"m2"]
    bad = GMO(Version=C.MQGMO_VERSION_2, MatchOptions=0x400)
    assert reason(lambda: queue.get(None, MD(), bad)) == RC.MATCH_OPTIONS_ERROR
    queue.close()


def test_identities_sharing_one_queue_each_get_only_their_own(
    connect: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    """Seed 001: "This allows several applications to share a queue ... The recipient can
    then use MQGET with the CorrelId to retrieve the messages." Three applications share one
    queue; each gets by its own CorrelId, concurrently, and gets exactly its own messages,
    each once (in put order only while they do not contend: see mqi.getter)."""
    name = new_queue()
    correls = [b"%c" % c * 24 for c in b"XYZ"]
    apps = {correl: connect() for correl in correls}
    sender = Queue(connect(), name, C.MQOO_OUTPUT | C.MQOO_INQUIRE)
    expected: dict[bytes, list[bytes]] = {correl: [] for correl in correls}
    for i in range(24):
        correl = correls[i % 3]
        body = b"%s-%d" % (correl[:1], i)
        sender.put(body, MD(CorrelId=correl))
        expected[correl].append(body)
    got: dict[bytes, list[bytes]] = {correl: [] for correl in correls}

    def app(correl: bytes, qmgr: QueueManager) -> None:
        queue = Queue(qmgr, name, C.MQOO_INPUT_SHARED)
        gmo = GMO(Version=C.MQGMO_VERSION_2, MatchOptions=C.MQMO_MATCH_CORREL_ID,
                  Options=C.MQGMO_WAIT, WaitInterval=20000)  # fmt: skip
        while len(got[correl]) < len(expected[correl]):
            md = MD(CorrelId=correl)
            got[correl].append(queue.get(None, md, gmo))
            assert md.CorrelId == correl
        queue.close()

    threads = [threading.Thread(target=app, args=item) for item in apps.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    for correl in correls:
        assert sorted(got[correl]) == sorted(expected[correl])
    assert sender.inquire(C.MQIA_CURRENT_Q_DEPTH) == 0  # nothing left, nothing twice


def test_truncation_fails_without_accept_and_keeps_the_message(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    queue = Queue(qmgr, new_queue(), IO)
    queue.put(b"0123456789")
    with pytest.raises(MQMIError) as failed:
        queue.get(4, MD(), wait_gmo(15000))
    assert (failed.value.comp, failed.value.reason) == (C.MQCC_FAILED, RC.TRUNCATED_MSG_FAILED)
    assert failed.value.original_length == 10
    accept = GMO(Options=C.MQGMO_ACCEPT_TRUNCATED_MSG)
    with pytest.raises(MQMIError) as warned:
        queue.get(4, MD(), accept)
    assert (warned.value.comp, warned.value.reason) == (C.MQCC_WARNING, RC.TRUNCATED_MSG_ACCEPTED)
    assert warned.value.message == b"0123" and warned.value.original_length == 10
    assert reason(lambda: queue.get(None, MD(), GMO())) == RC.NO_MSG_AVAILABLE  # it was removed
    queue.close()


def test_persistent_messages_and_a_persistent_queue_default(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    queue = Queue(qmgr, new_queue(default_persistence=C.MQPER_PERSISTENT), IO)
    queue.put(b"as queue", MD())
    queue.put(b"explicit no", MD(Persistence=C.MQPER_NOT_PERSISTENT))
    first, second = MD(), MD()
    assert queue.get(None, first, wait_gmo(15000)) == b"as queue"
    assert queue.get(None, second, wait_gmo(15000)) == b"explicit no"
    assert (first.Persistence, second.Persistence) == (C.MQPER_PERSISTENT, C.MQPER_NOT_PERSISTENT)
    assert reason(lambda: queue.put(b"x", MD(Persistence=7))) == RC.PERSISTENCE_ERROR
    queue.close()


def test_asynchronous_persistent_puts_complete_when_kafka_has_them(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    queue = Queue(qmgr, new_queue(), IO)
    persistent = [
        queue.put_async(b"p%d" % i, MD(Persistence=C.MQPER_PERSISTENT)) for i in range(20)
    ]
    for future in persistent:
        assert future.result(timeout=30) is None
    assert queue.put_async(b"np").result(timeout=1) is None
    got = [queue.get(None, MD(), wait_gmo(15000)) for _ in range(21)]
    assert got == [b"p%d" % i for i in range(20)] + [b"np"]
    with pytest.raises(MQMIError) as raised:
        queue.put_async(b"x", MD(Persistence=9))  # MQPUT's checks, raised at once
    assert raised.value.reason == RC.PERSISTENCE_ERROR
    queue.close()


def test_expired_messages_are_discarded_and_expiry_counts_down(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    queue = Queue(qmgr, new_queue(), IO | C.MQOO_INQUIRE)
    queue.put(b"short-lived", MD(Expiry=3))  # 0.3 s
    queue.put(b"long-lived", MD(Expiry=6000))
    time.sleep(1.0)
    md = MD()
    assert queue.get(None, md, wait_gmo(15000)) == b"long-lived"
    assert 5900 <= md.Expiry < 6000
    assert reason(lambda: queue.put(b"x", MD(Expiry=0))) == RC.EXPIRY_ERROR
    queue.close()


def test_inquire_depth_and_attributes(qmgr: QueueManager, new_queue: Callable[..., str]) -> None:
    queue = Queue(qmgr, new_queue(max_msg_length=64), IO | C.MQOO_INQUIRE)
    for _ in range(3):
        queue.put(b"x")
    assert queue.inquire(C.MQIA_CURRENT_Q_DEPTH) == 3
    assert queue.inquire(C.MQIA_MAX_MSG_LENGTH) == 64
    assert queue.inquire(C.MQIA_DEFINITION_TYPE) == C.MQQDT_PREDEFINED
    assert reason(lambda: queue.put(b"y" * 65)) == RC.MSG_TOO_BIG_FOR_Q
    queue.get(None, MD(), wait_gmo(15000))
    assert queue.inquire(C.MQIA_CURRENT_Q_DEPTH) == 2
    assert reason(lambda: queue.inquire(9999)) == C.MQRC_SELECTOR_ERROR
    queue.close()


@pytest.mark.parametrize(
    ("od", "options", "expected"),
    [
        (OD(ObjectName=b"NO.SUCH.QUEUE"), C.MQOO_OUTPUT, RC.UNKNOWN_OBJECT_NAME),
        (OD(ObjectName=b"bad name"), C.MQOO_OUTPUT, RC.OBJECT_NAME_ERROR),
        (OD(ObjectName=b"SYSTEM.DEFAULT.LOCAL.QUEUE", ObjectType=C.MQOT_TOPIC), C.MQOO_OUTPUT,
         RC.OBJECT_TYPE_ERROR),
        (OD(ObjectName=b"SYSTEM.DEFAULT.LOCAL.QUEUE", ObjectQMgrName=b"OTHERQM"), C.MQOO_OUTPUT,
         RC.UNKNOWN_REMOTE_Q_MGR),
        (OD(ObjectName=b"SYSTEM.DEFAULT.LOCAL.QUEUE"), 0, RC.OPTIONS_ERROR),
    ],
)  # fmt: skip
def test_mqopen_refuses(qmgr: QueueManager, od: OD, options: int, expected: int) -> None:
    assert reason(lambda: Queue(qmgr, od, options)) == expected


def test_handles_refuse_what_they_were_not_opened_for(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    name = new_queue()
    output_only = Queue(qmgr, name, C.MQOO_OUTPUT)
    input_only = Queue(qmgr, name, C.MQOO_INPUT_SHARED)
    assert reason(lambda: output_only.get(None, MD(), GMO())) == RC.NOT_OPEN_FOR_INPUT
    browse = GMO(Options=C.MQGMO_BROWSE_FIRST)
    assert reason(lambda: output_only.get(None, MD(), browse)) == RC.NOT_OPEN_FOR_BROWSE
    assert reason(lambda: input_only.put(b"x")) == RC.NOT_OPEN_FOR_OUTPUT
    assert reason(lambda: input_only.inquire(C.MQIA_CURRENT_Q_DEPTH)) == RC.NOT_OPEN_FOR_INQUIRE
    cursor = GMO(Options=C.MQGMO_MSG_UNDER_CURSOR)
    assert reason(lambda: input_only.get(None, MD(), cursor)) == RC.NO_MSG_UNDER_CURSOR
    assert reason(lambda: output_only.get(-1, MD(), GMO())) == RC.BUFFER_LENGTH_ERROR
    output_only.close()
    assert reason(output_only.close) == RC.HOBJ_ERROR  # closed twice
    hobj = input_only._handle.hobj if input_only._handle else 0
    input_only.close()
    assert reason(lambda: qmgr.connection.close(hobj, C.MQCO_NONE)) == RC.HOBJ_ERROR


def test_exclusive_input_excludes_every_other_input_handle(
    connect: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    name = new_queue()
    first, second = connect(), connect()
    exclusive = Queue(first, name, C.MQOO_INPUT_EXCLUSIVE)
    assert reason(lambda: Queue(second, name, C.MQOO_INPUT_SHARED)) == RC.OBJECT_IN_USE
    assert reason(lambda: Queue(first, name, C.MQOO_INPUT_SHARED)) == RC.OBJECT_IN_USE
    Queue(second, name, C.MQOO_OUTPUT).close()  # output is not input
    exclusive.close()
    Queue(second, name, C.MQOO_INPUT_SHARED).close()


def test_a_disconnected_queue_manager_refuses_every_call(
    connect: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    qmgr = connect()
    name = new_queue()
    queue = Queue(qmgr, name, C.MQOO_OUTPUT)
    qmgr.disconnect()
    assert reason(lambda: queue.put(b"x")) == RC.HCONN_ERROR
    assert reason(lambda: Queue(qmgr, name, C.MQOO_OUTPUT)) == RC.HCONN_ERROR
    assert reason(qmgr.commit) == RC.HCONN_ERROR
    assert reason(qmgr.disconnect) == RC.HCONN_ERROR


def test_connecting_to_nothing_is_2059(namespace: str) -> None:
    started = time.monotonic()
    with pytest.raises(MQMIError) as raised:
        QueueManager("QM1", bootstrap_servers="127.0.0.1:1", namespace=namespace, admin_timeout=2)
    assert raised.value.reason == RC.Q_MGR_NOT_AVAILABLE
    assert time.monotonic() - started < 30


def test_what_one_connection_puts_to_a_queue_of_several_partitions_keeps_its_order(
    connect: Callable[..., QueueManager], kafka_bootstrap: str, namespace: str
) -> None:
    """Wire contract §2: one producer's messages to one queue are processed in put order,
    which Kafka keeps within a partition: a connection keys what it puts without a CorrelId
    by itself, so its messages share one partition (without a key they would be spread)."""
    from mqkafka.wire.names import queue_to_topic
    from tests.integration.raw import read_records

    qmgr = connect(queue_partitions=4)
    name = f"APP.{uuid.uuid4().hex[:10].upper()}"
    qmgr.define_queue(name)
    queue = Queue(qmgr, name)
    for n in range(40):
        queue.put(b"%d" % n)
    records = [
        (m.partition(), m.value())
        for m in read_records(kafka_bootstrap, queue_to_topic(name, namespace), count=40)
    ]
    assert len({partition for partition, _ in records}) == 1
    assert [value for _, value in records] == [b"%d" % n for n in range(40)]
