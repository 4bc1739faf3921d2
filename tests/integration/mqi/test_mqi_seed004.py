"""Seed 004 "Dynamic queues" on Kafka: one named test per property, each quoting it.

A queue is "there" when the catalogue has it and MQOPEN finds it; "gone" when MQOPEN
answers MQRC_UNKNOWN_OBJECT_NAME (2085) and its topic is deleted.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD, OD, PMO, MQMIError
from mqkafka.mqi.kafkaqm.queue import Queue, wait_until
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.mqi.kafkaqm.reaper import start_queue_manager
from mqkafka.mqi.rules.catalogue import SYSTEM_PERMANENT_MODEL, QueueDefinition

pytestmark = pytest.mark.kafka

TEMPORARY = b"SYSTEM.DEFAULT.MODEL.QUEUE"
PERMANENT = SYSTEM_PERMANENT_MODEL.encode()
IO = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT
WORKER = str(Path(__file__).with_name("worker.py"))
Connect = Callable[..., QueueManager]


def open_model(
    qmgr: QueueManager, model: bytes, options: int = IO, name: bytes = b"AMQ.*"
) -> tuple[Queue, str]:
    od = OD(ObjectName=model, DynamicQName=name)
    queue = Queue(qmgr, od, options)
    return queue, od.ObjectName.decode()


def reason(call: Callable[[], object]) -> int:
    with pytest.raises(MQMIError) as raised:
        call()
    return raised.value.reason


def gone(qmgr: QueueManager, name: str) -> bool:
    topic = qmgr.connection.settings.topic_of(name)
    return (
        qmgr.display_queue(name) is None
        and reason(lambda: Queue(qmgr, name, C.MQOO_OUTPUT)) == RC.UNKNOWN_OBJECT_NAME
        and wait_until(lambda: qmgr.connection.admin.partitions_of(topic) is None, 30)
    )


def logically_deleted(qmgr: QueueManager, name: str) -> bool:
    definition = qmgr.display_queue(name)
    return definition is not None and definition.logically_deleted


# ---- creating -----------------------------------------------------------------------


def test_opening_a_model_creates_a_local_queue_with_the_models_attributes(
    qmgr: QueueManager,
) -> None:
    """S4: "When an application program issues an MQOPEN call to open a model queue, the
    queue manager dynamically creates an instance of a local queue with the same attributes
    as the model queue"; MQOD.ObjectName returns the new name."""
    queue, name = open_model(qmgr, TEMPORARY, name=b"CREDIT.REPLY.*")
    assert name.startswith("CREDIT.REPLY.") and len(name) == len("CREDIT.REPLY.") + 16
    definition = qmgr.display_queue(name)
    assert definition is not None and definition.queue_type == C.MQQT_LOCAL
    assert definition.definition_type == C.MQQDT_TEMPORARY_DYNAMIC
    assert definition.model == "SYSTEM.DEFAULT.MODEL.QUEUE"
    other, other_name = open_model(qmgr, TEMPORARY, name=b"CREDIT.REPLY.*")
    assert other_name != name  # the trailing * makes every name unique
    queue.close()
    other.close()


def test_a_dynamic_name_without_star_is_used_as_given_once(qmgr: QueueManager) -> None:
    queue, name = open_model(qmgr, PERMANENT, name=b"FIXED.NAME.%d" % id(qmgr))
    assert name == f"FIXED.NAME.{id(qmgr)}"
    assert (
        reason(lambda: open_model(qmgr, PERMANENT, name=name.encode())) == RC.OBJECT_ALREADY_EXISTS
    )
    assert reason(lambda: open_model(qmgr, PERMANENT, name=b"BAD*NAME")) == RC.DYNAMIC_Q_NAME_ERROR
    queue.close(C.MQCO_DELETE_PURGE)


def test_temporary_dynamic_queues_cannot_be_shared_queues() -> None:
    """S4: "They cannot be shared queues, accessible from queue managers in a queue-sharing
    group" - a SHAREDYN model cannot even be defined here."""
    with pytest.raises(Exception) as raised:
        QueueDefinition("SHARED.MODEL", C.MQQT_MODEL, C.MQQDT_SHARED_DYNAMIC)
    assert getattr(raised.value, "reason", None) == RC.Q_TYPE_ERROR


# ---- temporary dynamic queues -------------------------------------------------------


def test_temporary_queues_hold_nonpersistent_messages_only(qmgr: QueueManager) -> None:
    """S4: "They hold nonpersistent messages only." """
    queue, _ = open_model(qmgr, TEMPORARY)
    queue.put(b"fine", MD(Persistence=C.MQPER_NOT_PERSISTENT))
    queue.put(b"as queue: fine", MD())
    assert (
        reason(lambda: queue.put(b"no", MD(Persistence=C.MQPER_PERSISTENT)))
        == RC.PERSISTENT_NOT_ALLOWED
    )
    queue.close()


def test_temporary_queues_are_deleted_when_their_creator_closes_them(qmgr: QueueManager) -> None:
    """S4: "They are deleted when the application that issued the MQOPEN call that created
    the queue closes the queue" ... "If there are any committed messages on the queue,
    they are deleted." """
    queue, name = open_model(qmgr, TEMPORARY)
    queue.put(b"committed")
    queue.close()
    assert gone(qmgr, name)


@pytest.mark.parametrize("options", [C.MQCO_NONE, C.MQCO_DELETE, C.MQCO_DELETE_PURGE])
def test_the_creators_close_options_are_treated_as_none(qmgr: QueueManager, options: int) -> None:
    """S4: "MQCO_NONE, MQCO_DELETE and MQCO_DELETE_PURGE are all treated as MQCO_NONE when
    specified on an MQCLOSE call for the corresponding MQOPEN call that created the queue"
    (MQCO_DELETE on a queue holding a message would otherwise fail)."""
    queue, name = open_model(qmgr, TEMPORARY)
    queue.put(b"still here")
    queue.close(options)
    assert gone(qmgr, name)


def test_temporary_queues_are_deleted_when_their_creator_ends(connect: Connect) -> None:
    """S4: "They are deleted when the application that issued the MQOPEN call that created
    the queue ... terminates." (a clean MQDISC; a crash is the liveness test)"""
    creator, observer = connect(), connect()
    _, name = open_model(creator, TEMPORARY)
    creator.disconnect()
    assert gone(observer, name)


def test_a_crashed_creators_temporary_queue_disappears(
    connect: Connect, kafka_bootstrap: str, namespace: str
) -> None:
    """S4 "...or terminates": a creator killed outright (no MQCLOSE, no MQDISC) is noticed by
    its missing heartbeats, and its temporary dynamic queue is deleted."""
    observer = connect()
    worker = subprocess.Popen(
        [sys.executable, WORKER, "creator", kafka_bootstrap, namespace],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert worker.stdout is not None
        name = worker.stdout.readline().strip()
        assert name.startswith("CRASH.") and observer.display_queue(name) is not None
        worker.kill()  # SIGKILL: nothing runs in the creator any more
        worker.wait(30)
        assert wait_until(lambda: observer.display_queue(name) is None, 30)
        assert gone(observer, name)
    finally:
        worker.kill()


def test_temporary_queues_are_deleted_when_the_queue_manager_starts(connect: Connect) -> None:
    """S4: "They are deleted when the queue manager is started." and "They are
    non-recoverable": a restart of the queue manager takes them and their messages away;
    a permanent dynamic queue stays, with its messages ("recoverable")."""
    app, service = connect(), connect(reap=False)
    temporary, temp_name = open_model(app, TEMPORARY)
    temporary.put(b"lost at restart")
    permanent, perm_name = open_model(app, PERMANENT)
    permanent.put(b"kept", MD(Persistence=C.MQPER_PERSISTENT))
    conn = service.connection
    deleted = start_queue_manager(conn.replica, conn.effects)
    assert temp_name in deleted and perm_name not in deleted
    assert gone(service, temp_name)
    reader = Queue(service, perm_name, C.MQOO_INPUT_SHARED)
    assert reader.get(None, MD(), GMO(Options=C.MQGMO_WAIT, WaitInterval=15000)) == b"kept"
    Queue(service, perm_name, C.MQOO_OUTPUT).close(C.MQCO_DELETE)


def test_uncommitted_work_makes_the_close_a_logical_deletion(qmgr: QueueManager) -> None:
    """S4: "If there are any uncommitted MQGET, MQPUT, or MQPUT1 calls outstanding against the
    queue at this time, the queue is marked as being logically deleted, and is only
    physically deleted (after these calls have been committed) as part of close
    processing, or when the application terminates." """
    queue, name = open_model(qmgr, TEMPORARY)
    queue.put(b"uncommitted", MD(), PMO(Options=C.MQPMO_SYNCPOINT))
    queue.close()
    assert logically_deleted(qmgr, name)
    qmgr.commit()
    assert gone(qmgr, name)


def test_a_queue_in_use_is_logically_deleted_until_its_last_user_closes_it(
    connect: Connect,
) -> None:
    """S4: "If the queue is in use at this time (by the creating, or another application),
    the queue is marked as being logically deleted, and is only physically deleted when
    closed by the last application using the queue." and "Attempts to access a logically
    deleted queue (other than to close it) fail with reason code MQRC_Q_DELETED." """
    creator, server = connect(), connect()
    queue, name = open_model(creator, TEMPORARY)
    queue.put(b"purged")
    used = Queue(server, name, IO)
    queue.close()
    assert logically_deleted(server, name)
    assert server.queue_depth(name) == 0  # committed messages deleted at once
    assert wait_until(lambda: _put_reason(used) == RC.Q_DELETED, 10)
    assert reason(lambda: used.get(None, MD(), GMO())) == RC.Q_DELETED
    assert reason(lambda: Queue(server, name, C.MQOO_OUTPUT)) == RC.Q_DELETED
    used.close()  # the last user: now it goes
    assert gone(server, name)


def _put_reason(queue: Queue) -> int:
    try:
        queue.put(b"x")
    except MQMIError as error:
        return error.reason
    return 0


# ---- permanent dynamic queues -------------------------------------------------------


def test_permanent_queues_hold_persistent_and_nonpersistent_messages_and_survive_their_creator(
    connect: Connect,
) -> None:
    """S4: "They hold persistent or nonpersistent messages." "They are recoverable in the
    event of system failures." (the creator goes; queue and messages stay)"""
    creator, other = connect(), connect()
    queue, name = open_model(creator, PERMANENT)
    queue.put(b"p", MD(Persistence=C.MQPER_PERSISTENT))
    queue.put(b"n", MD(Persistence=C.MQPER_NOT_PERSISTENT))
    creator.disconnect()
    reader = Queue(other, name, C.MQOO_INPUT_SHARED)
    gmo = GMO(Options=C.MQGMO_WAIT, WaitInterval=15000)
    first, second = MD(), MD()
    assert (reader.get(None, first, gmo), reader.get(None, second, gmo)) == (b"p", b"n")
    assert (first.Persistence, second.Persistence) == (1, 0)
    reader.close(C.MQCO_DELETE)
    assert gone(other, name)


def test_any_application_may_delete_a_permanent_queue_with_delete(connect: Connect) -> None:
    """S4: "They are deleted when an application (not necessarily the one that issued the
    MQOPEN call that created the queue) successfully closes the queue using the MQCO_DELETE
    or MQCO_DELETE_PURGE option." """
    creator, other = connect(), connect()
    queue, name = open_model(creator, PERMANENT)
    queue.close()  # MQCO_NONE: a permanent queue stays
    assert creator.display_queue(name) is not None
    Queue(other, name, C.MQOO_OUTPUT).close(C.MQCO_DELETE)
    assert gone(other, name)


def test_delete_fails_while_messages_are_on_the_queue(qmgr: QueueManager) -> None:
    """S4: "A close request with the MQCO_DELETE option fails if there are any messages
    (committed or uncommitted) still on the queue." """
    queue, name = open_model(qmgr, PERMANENT)
    queue.put(b"committed")
    assert reason(lambda: queue.close(C.MQCO_DELETE)) == RC.Q_NOT_EMPTY
    queue.get(None, MD(), GMO(Options=C.MQGMO_WAIT, WaitInterval=15000))
    queue.put(b"uncommitted", MD(), PMO(Options=C.MQPMO_SYNCPOINT))
    assert reason(lambda: queue.close(C.MQCO_DELETE)) == RC.Q_NOT_EMPTY
    qmgr.backout()
    queue.close(C.MQCO_DELETE)
    assert gone(qmgr, name)


def test_delete_purge_purges_but_fails_on_uncommitted_work(qmgr: QueueManager) -> None:
    """S4: "A close request with the MQCO_DELETE_PURGE option succeeds even if there are
    committed messages on the queue (the messages being deleted as part of the close), but
    fails if there are any uncommitted MQGET, MQPUT, or MQPUT1 calls outstanding against
    the queue." """
    queue, name = open_model(qmgr, PERMANENT)
    for body in (b"a", b"b"):
        queue.put(body)
    queue.get(None, MD(), GMO(Options=C.MQGMO_WAIT | C.MQGMO_SYNCPOINT, WaitInterval=15000))
    assert reason(lambda: queue.close(C.MQCO_DELETE_PURGE)) == RC.Q_NOT_EMPTY
    qmgr.commit()
    queue.close(C.MQCO_DELETE_PURGE)  # "b" is still there, committed: purged with the queue
    assert gone(qmgr, name)


def test_a_deleted_permanent_queue_in_use_waits_for_its_last_user(connect: Connect) -> None:
    """S4: "If the delete request is successful, but the queue happens to be in use (by the
    creating, or another application), the queue is marked as being logically deleted and
    is only physically deleted when closed by the last application using the queue." """
    first, second = connect(), connect()
    queue, name = open_model(first, PERMANENT)
    user = Queue(second, name, C.MQOO_OUTPUT)
    queue.close(C.MQCO_DELETE)
    assert logically_deleted(second, name)
    assert wait_until(lambda: _put_reason(user) == RC.Q_DELETED, 10)
    user.close()
    assert gone(second, name)


def test_an_unauthorized_closer_does_not_delete_unless_it_created_the_queue(
    connect: Connect,
) -> None:
    """S4: "They are not deleted if closed by an application that is not authorized to
    delete the queue, unless the closing application issued the MQOPEN call that created
    the queue. Authorization checks are performed against the user identifier (or
    alternate user identifier if MQOO_ALTERNATE_USER_AUTHORITY was specified) that was used
    to validate the corresponding MQOPEN call." """

    def authorised(user: str, queue: str) -> bool:
        return user in ("alice", "bob")

    alice = connect(user="alice", authority=authorised)
    bob = connect(user="bob", authority=authorised)
    mallory = connect(user="mallory", authority=authorised)
    created, name = open_model(alice, PERMANENT)
    Queue(mallory, name, C.MQOO_OUTPUT).close(C.MQCO_DELETE)  # succeeds, deletes nothing
    assert not logically_deleted(alice, name)
    # bob may delete, but this open was validated against the alternate user mallory
    od = OD(ObjectName=name, AlternateUserId=b"mallory")
    Queue(bob, od, C.MQOO_OUTPUT | C.MQOO_ALTERNATE_USER_AUTHORITY).close(C.MQCO_DELETE)
    assert not logically_deleted(alice, name)
    # the creator is never refused: mallory creates, mallory deletes
    own, own_name = open_model(mallory, PERMANENT)
    own.close(C.MQCO_DELETE)
    assert gone(mallory, own_name)
    Queue(bob, name, C.MQOO_OUTPUT).close(C.MQCO_DELETE)  # bob as himself: deleted ...
    assert logically_deleted(alice, name)  # ... once alice, still using it, closes
    created.close()
    assert gone(alice, name)


def test_permanent_queues_can_be_deleted_like_a_normal_queue(qmgr: QueueManager) -> None:
    """S4: "They can be deleted in the same way as a normal queue." (DELETE QLOCAL: refused
    while open or holding messages, unless PURGE)"""
    queue, name = open_model(qmgr, PERMANENT)
    queue.put(b"x")
    assert reason(lambda: qmgr.delete_queue(name)) == RC.OBJECT_IN_USE
    queue.close()
    assert reason(lambda: qmgr.delete_queue(name)) == RC.Q_NOT_EMPTY
    qmgr.delete_queue(name, purge=True)
    assert gone(qmgr, name)


# ---- uses of dynamic queues -----------------------------------------------------------


def test_client_server_with_a_dynamic_reply_queue(
    connect: Connect, new_queue: Callable[..., str]
) -> None:
    """S4 "Uses of dynamic queues": "a client application can: Create a dynamic queue.
    Supply its name in the ReplyToQ field of the message descriptor structure of the request
    message. Place the request on a queue being processed by a server. The server can then
    place the reply message on the reply-to queue. Finally, the client could process the
    reply, and close the reply-to queue with the delete option." """
    requests = new_queue()
    server_qmgr, client_qmgr = connect(), connect()
    served = threading.Event()

    def server() -> None:
        inbox = Queue(server_qmgr, requests, C.MQOO_INPUT_SHARED)
        request = MD()
        body = inbox.get(None, request, GMO(Options=C.MQGMO_WAIT, WaitInterval=30000))
        reply = MD(CorrelId=request.MsgId, MsgType=C.MQMT_REPLY)
        server_qmgr.put1(request.ReplyToQ.rstrip(b" "), b"reply to " + body, reply)
        inbox.close()
        served.set()

    thread = threading.Thread(target=server)
    thread.start()
    reply_q, reply_name = open_model(client_qmgr, TEMPORARY, C.MQOO_INPUT_EXCLUSIVE, b"CLIENT.*")
    request = MD(MsgType=C.MQMT_REQUEST, ReplyToQ=reply_name.encode())
    Queue(client_qmgr, requests, C.MQOO_OUTPUT).put(b"balance?", request)
    got = MD(CorrelId=request.MsgId)
    gmo = GMO(
        Version=2, MatchOptions=C.MQMO_MATCH_CORREL_ID, Options=C.MQGMO_WAIT, WaitInterval=30000
    )
    assert reply_q.get(None, got, gmo) == b"reply to balance?"
    assert got.MsgType == C.MQMT_REPLY
    thread.join(30)
    assert served.is_set()
    reply_q.close(C.MQCO_DELETE)
    assert gone(client_qmgr, reply_name)


def test_a_put_after_another_connection_deleted_the_queue_is_2052_every_time(
    connect: Connect,
) -> None:
    """Issue 35 point 4: a permanent dynamic queue deleted (MQCO_DELETE) by another
    connection while its creator holds it open: the creator's next MQPUT is MQRC_Q_DELETED
    (2052) every time, not once the deletion has happened to reach it."""
    creator, other = connect(), connect()
    for attempt in range(10):
        queue, name = open_model(creator, PERMANENT, C.MQOO_OUTPUT)
        Queue(other, name, C.MQOO_OUTPUT).close(C.MQCO_DELETE)
        assert _put_reason(queue) == RC.Q_DELETED, attempt
        queue.close()
