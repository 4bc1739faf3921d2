"""pymqi programs, import changed and nothing else: connecting as pymqi does, MQINQ/MQSET,
str messages, truncation with pymqi's buffer, RFH2 headers, handles that go with their
objects and programs that fail, the subscription rules of MQDISC, and PCFExecute's
subscription commands, against the real broker (issue 23)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import mqkafka.mqi as pymqi
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.queue import wait_until
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

pytestmark = pytest.mark.kafka

IO = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT


def wait_gmo(options: int = 0) -> pymqi.GMO:
    return pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT | options, WaitInterval=15000)


def reason(call: Callable[[], object]) -> int:
    with pytest.raises(pymqi.MQMIError) as raised:
        call()
    return raised.value.reason


@pytest.fixture
def conn_name(kafka_bootstrap: str) -> str:
    host, port = kafka_bootstrap.split(",")[0].rsplit(":", 1)
    return f"{host}({port})"


@pytest.fixture
def client_env(monkeypatch: pytest.MonkeyPatch, namespace: str) -> Iterator[None]:
    """A pymqi program's environment: its namespace from MQK_NAMESPACE, no product variable."""
    monkeypatch.setenv("MQK_NAMESPACE", namespace)
    monkeypatch.delenv("MQK_BOOTSTRAP_SERVERS", raising=False)
    monkeypatch.delenv("MQSERVER", raising=False)
    yield


def _tcp_client(conn_name: str) -> pymqi.QueueManager:
    qmgr = pymqi.QueueManager(None)
    qmgr.connect_tcp_client(
        b"QM1", pymqi.CD(), b"DEV.APP.SVRCONN", conn_name.encode(), b"app", b"pw"
    )
    return qmgr


def _old_name(conn_name: str) -> pymqi.QueueManager:
    qmgr = pymqi.QueueManager(None)
    qmgr.connectTCPClient("QM1", pymqi.cd(), "DEV.APP.SVRCONN", conn_name)
    return qmgr


def _with_options(conn_name: str) -> pymqi.QueueManager:
    """IBM's samples: a CD and SCO, MQPMO_NEW_CORREL_ID as (ignored) MQCNO options."""
    cd = pymqi.CD()
    cd.ChannelName = b"DEV.APP.SVRCONN"
    cd.ConnectionName = conn_name.encode()
    cd.ChannelType = pymqi.CMQC.MQCHT_CLNTCONN
    cd.TransportType = pymqi.CMQC.MQXPT_TCP
    qmgr = pymqi.QueueManager(None)
    qmgr.connect_with_options(
        b"QM1", user=b"app", password=b"pw", opts=C.MQPMO_NEW_CORREL_ID, cd=cd, sco=pymqi.SCO()
    )
    return qmgr


def _positional_cd(conn_name: str) -> pymqi.QueueManager:
    qmgr = pymqi.QueueManager(None)
    qmgr.connectWithOptions("QM1", pymqi.CD(ConnectionName=conn_name))
    return qmgr


def _connect_function(conn_name: str) -> pymqi.QueueManager:
    return pymqi.connect("QM1", "DEV.APP.SVRCONN", conn_name, "app", "pw")


def _mqserver(conn_name: str) -> pymqi.QueueManager:
    import os

    os.environ["MQSERVER"] = f"DEV.APP.SVRCONN/TCP/{conn_name}"
    try:
        return pymqi.QueueManager(b"QM1")
    finally:
        del os.environ["MQSERVER"]


@pytest.mark.parametrize(
    "how",
    [_tcp_client, _old_name, _with_options, _positional_cd, _connect_function, _mqserver],
    ids=lambda f: f.__name__.strip("_"),
)
def test_every_way_pymqi_connects_reaches_the_queue_manager(
    how: Callable[[str], pymqi.QueueManager], conn_name: str, client_env: None, namespace: str
) -> None:
    qmgr = how(conn_name)
    try:
        assert qmgr.is_connected and qmgr.get_handle() > 0
        assert qmgr.inquire(C.MQCA_Q_MGR_NAME) == b"QM1".ljust(48)
        assert qmgr.connection.settings.namespace == namespace
    finally:
        qmgr.disconnect()
    assert not qmgr.is_connected
    with pytest.raises(pymqi.PYIFError):
        qmgr.disconnect()
    with pytest.raises(pymqi.PYIFError):
        qmgr.get_handle()


def test_a_connection_list_whose_first_host_refuses_connects_quietly(
    conn_name: str, new_queue: Callable[..., str], namespace: str
) -> None:
    """MQ tries a CONNAME list's hosts in turn and says nothing of one that refuses: nor
    does a pymqi program here (no librdkafka line on its stderr) when the next one answers."""
    name = new_queue()
    program = (
        "import sys\n"
        "import mqkafka.mqi as pymqi  # for IBM MQ itself: import pymqi\n"
        "qmgr = pymqi.connect('QM1', 'DEV.APP.SVRCONN', sys.argv[1])\n"
        "pymqi.Queue(qmgr, sys.argv[2]).put(b'through the second host')\n"
        "print(pymqi.Queue(qmgr, sys.argv[2]).get().decode())\n"
        "qmgr.disconnect()\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQK_") and k != "MQSERVER"}
    env["MQK_NAMESPACE"] = namespace
    done = subprocess.run(
        [sys.executable, "-c", program, f"127.0.0.1(1),{conn_name}", name],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "through the second host\n"
    assert done.stderr == ""


def test_the_user_given_is_the_connections_user(conn_name: str, client_env: None) -> None:
    qmgr = _with_options(conn_name)
    try:
        name = f"APP.{uuid.uuid4().hex[:10].upper()}"
        qmgr.define_queue(name)
        md = pymqi.MD()
        pymqi.Queue(qmgr, name).put(b"x", md)
        assert md.UserIdentifier == b"app"
    finally:
        qmgr.disconnect()


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        (C.MQCA_Q_MGR_NAME, b"QM1".ljust(48)),
        (C.MQIA_PLATFORM, C.MQPL_UNIX),
        (C.MQIA_COMMAND_LEVEL, 940),
        (C.MQIA_CODED_CHAR_SET_ID, 1208),
        (C.MQIA_MAX_PRIORITY, 9),
        (C.MQIA_SYNCPOINT, C.MQSP_AVAILABLE),
        (C.MQCA_DEAD_LETTER_Q_NAME, b"SYSTEM.DEAD.LETTER.QUEUE".ljust(48)),
        (C.MQCA_COMMAND_INPUT_Q_NAME, b"SYSTEM.ADMIN.COMMAND.QUEUE".ljust(48)),
    ],
)
def test_inquire_of_the_queue_manager(qmgr: QueueManager, selector: int, expected: object) -> None:
    assert qmgr.inquire(selector) == expected


def test_inquire_of_what_a_queue_manager_has_not(qmgr: QueueManager) -> None:
    with pytest.raises(pymqi.MQMIError) as raised:
        qmgr.inquire(C.MQIA_CURRENT_Q_DEPTH)  # a queue's attribute
    assert (raised.value.comp, raised.value.reason) == (C.MQCC_WARNING, RC.SELECTOR_NOT_FOR_TYPE)
    assert reason(lambda: qmgr.inquire(1999)) == RC.SELECTOR_ERROR


def test_inquire_of_a_queue(qmgr: QueueManager, new_queue: Callable[..., str]) -> None:
    name = new_queue(description="orders", max_depth=7)
    queue = pymqi.Queue(qmgr, name, IO | C.MQOO_INQUIRE)
    queue.put(b"one")
    expected: dict[int, object] = {
        C.MQCA_Q_NAME: name.encode().ljust(48),
        C.MQCA_Q_DESC: b"orders".ljust(64),
        C.MQIA_Q_TYPE: C.MQQT_LOCAL,
        C.MQIA_DEFINITION_TYPE: C.MQQDT_PREDEFINED,
        C.MQIA_MAX_Q_DEPTH: 7,
        C.MQIA_CURRENT_Q_DEPTH: 1,
        C.MQIA_OPEN_INPUT_COUNT: 1,
        C.MQIA_OPEN_OUTPUT_COUNT: 1,
        C.MQIA_INHIBIT_PUT: C.MQQA_PUT_ALLOWED,
        C.MQIA_INHIBIT_GET: C.MQQA_GET_ALLOWED,
        C.MQIA_SHAREABILITY: C.MQQA_SHAREABLE,
    }
    assert {selector: queue.inquire(selector) for selector in expected} == expected
    assert reason(lambda: queue.inquire(C.MQIA_PLATFORM)) == RC.SELECTOR_NOT_FOR_TYPE
    queue.close()


def test_set_inhibits_put_and_get_for_every_connection(
    connect: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    name = new_queue()
    admin = connect()
    queue = pymqi.Queue(admin, name, IO | C.MQOO_SET | C.MQOO_INQUIRE)
    queue.put(b"before")
    queue.set(C.MQIA_INHIBIT_PUT, C.MQQA_PUT_INHIBITED)
    assert queue.inquire(C.MQIA_INHIBIT_PUT) == C.MQQA_PUT_INHIBITED
    assert reason(lambda: queue.put(b"x")) == RC.PUT_INHIBITED
    assert reason(lambda: admin.put1(name, b"x")) == RC.PUT_INHIBITED
    other = connect()
    assert reason(lambda: other.put1(name, b"x")) == RC.PUT_INHIBITED  # the catalogue says so
    queue.set(C.MQIA_INHIBIT_PUT, C.MQQA_PUT_ALLOWED)
    queue.set(C.MQIA_INHIBIT_GET, C.MQQA_GET_INHIBITED)
    queue.put(b"after")
    assert reason(lambda: queue.get(None, pymqi.MD(), wait_gmo())) == RC.GET_INHIBITED
    queue.set(C.MQIA_INHIBIT_GET, C.MQQA_GET_ALLOWED)
    assert queue.get(None, pymqi.MD(), wait_gmo()) == b"before"
    assert reason(lambda: queue.set(C.MQIA_INHIBIT_GET, 5)) == RC.INHIBIT_VALUE_ERROR
    assert reason(lambda: queue.set(C.MQIA_MAX_Q_DEPTH, 5)) == RC.SELECTOR_ERROR
    queue.close()
    output_only = pymqi.Queue(admin, name, C.MQOO_OUTPUT)
    assert reason(lambda: output_only.set(C.MQIA_INHIBIT_PUT, 1)) == RC.NOT_OPEN_FOR_SET
    output_only.close()


def test_a_str_message_is_mqstr_in_utf8(qmgr: QueueManager, new_queue: Callable[..., str]) -> None:
    queue = pymqi.Queue(qmgr, new_queue(), IO)
    put_md = pymqi.MD()
    queue.put("grüße", put_md)
    queue.put("no descriptor")
    assert (put_md.Format, put_md.CodedCharSetId) == (C.MQFMT_STRING, 1208)
    for text in ("grüße", "no descriptor"):
        md = pymqi.MD()
        assert queue.get(None, md, wait_gmo()) == text.encode("utf-8")
        assert (md.Format, md.CodedCharSetId) == (C.MQFMT_STRING, 1208)
    queue.close()


def test_accepting_truncation_without_a_buffer_is_pymqis_empty_buffer(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    name = new_queue()
    queue = pymqi.Queue(qmgr, name, IO)
    queue.put(b"x" * 5000)
    with pytest.raises(pymqi.MQMIError) as raised:
        queue.get(None, pymqi.MD(), wait_gmo(C.MQGMO_ACCEPT_TRUNCATED_MSG))
    error = raised.value
    assert (error.comp, error.reason) == (C.MQCC_WARNING, RC.TRUNCATED_MSG_ACCEPTED)
    assert (error.message, error.original_length) == (b"", 5000)
    assert qmgr.queue_depth(name) == 0  # accepted: the message is gone
    queue.close()


def test_delete_and_define_again_on_one_connection_is_a_new_queue(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    name = new_queue()
    queue = pymqi.Queue(qmgr, name, IO)
    queue.put(b"old")
    assert queue.get(None, pymqi.MD(), wait_gmo()) == b"old"
    queue.close()
    qmgr.delete_queue(name)
    qmgr.define_queue(name)
    queue = pymqi.Queue(qmgr, name, IO)
    queue.put(b"new")
    assert qmgr.queue_depth(name) == 1
    assert queue.get(None, pymqi.MD(), wait_gmo()) == b"new"
    queue.close()


def test_rfh2_headers_put_and_got(qmgr: QueueManager, new_queue: Callable[..., str]) -> None:
    queue = pymqi.Queue(qmgr, new_queue(), IO)
    rfh2 = pymqi.RFH2(Format=C.MQFMT_STRING, CodedCharSetId=1208, NameValueCCSID=1208)
    rfh2.add_folder(b"<mcd><Msd>jms_text</Msd></mcd>")
    rfh2.add_folder(b"<usr><colour>blue</colour></usr>")
    queue.put_rfh2(b"payload", pymqi.MD(Format=C.MQFMT_RF_HEADER_2), pymqi.PMO(), [rfh2])
    headers: list[pymqi.RFH2] = []
    md = pymqi.MD()
    assert queue.get_rfh2(None, md, wait_gmo(), headers) == b"payload"
    assert md.Format == C.MQFMT_RF_HEADER_2 and len(headers) == 1
    assert headers[0]["usr"] == b"<usr><colour>blue</colour></usr>"
    assert headers[0]["Format"] == C.MQFMT_STRING
    queue.close()


def test_a_queue_object_that_is_collected_closes_its_handle(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    name = new_queue()
    pymqi.Queue(qmgr, name, C.MQOO_INPUT_EXCLUSIVE)  # dropped at once, as pymqi code does
    gc.collect()
    again = pymqi.Queue(qmgr, name, C.MQOO_INPUT_EXCLUSIVE)  # 2042 if the first were open
    assert again.get_handle() is not None
    again.close()
    assert again.get_handle() is None
    with pytest.raises(pymqi.PYIFError):
        again.close()


def test_a_queue_manager_object_that_is_collected_disconnects(
    kafka_bootstrap: str, namespace: str, new_queue: Callable[..., str]
) -> None:
    name = new_queue()
    pymqi.QueueManager("QM1", bootstrap_servers=kafka_bootstrap, namespace=namespace)
    held = QueueManager("QM1", bootstrap_servers=kafka_bootstrap, namespace=namespace)
    queue = pymqi.Queue(held, name, C.MQOO_INPUT_EXCLUSIVE)
    gc.collect()
    queue.close()
    held.disconnect()


def test_a_program_that_fails_ends_and_leaves_no_queue_lock(
    qmgr: QueueManager, new_queue: Callable[..., str], kafka_bootstrap: str, namespace: str
) -> None:
    """An uncaught exception with a queue open for exclusive input and a share consumer
    running: the process ends (no client thread keeps it alive) and the queue can be opened
    exclusively again (the handle went with the process, or with its heartbeats)."""
    name = new_queue()
    pymqi.Queue(qmgr, name, C.MQOO_OUTPUT).put(b"last words")
    worker = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("worker.py")), "failing",
         kafka_bootstrap, namespace, name],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        out, err = worker.communicate(timeout=120)  # a hang, not a speed, fails this
    finally:
        worker.kill()
    assert out == "last words\n" and worker.returncode == 1
    assert "RuntimeError: the application fails" in err

    def exclusive() -> bool:
        try:
            pymqi.Queue(qmgr, name, C.MQOO_INPUT_EXCLUSIVE).close()
        except pymqi.MQMIError as error:
            assert error.reason == C.MQRC_OBJECT_IN_USE
            return False
        return True

    assert wait_until(exclusive, 30)


def test_get_sub_queue_of_a_subscription_that_failed_is_none(qmgr: QueueManager) -> None:
    subscription = pymqi.Subscription(qmgr)
    sd = pymqi.SD(Options=C.MQSO_CREATE, ObjectString=b"Drop/In")  # no queue, not managed
    with pytest.raises(pymqi.MQMIError):
        subscription.sub(sub_desc=sd)
    assert subscription.get_sub_queue() is None
    with pytest.raises(pymqi.PYIFError):
        subscription.close()


def test_a_bytes_topic_string_publishes(qmgr: QueueManager) -> None:
    topic = pymqi.Topic(qmgr, topic_string=b"Drop/In/Bytes")
    topic.open(open_opts=C.MQOO_OUTPUT)
    topic.pub(b"data", pymqi.MD(Format=C.MQFMT_STRING))
    topic.pub("text")
    topic.close()
    with pytest.raises(pymqi.PYIFError):
        topic.close()


def test_a_non_durable_subscription_goes_at_mqdisc(
    broker_service: str, connect: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    subscriber = connect()
    name = f"NDSUB.{uuid.uuid4().hex[:8]}"
    queue = pymqi.Queue(subscriber, new_queue(), C.MQOO_INPUT_AS_Q_DEF)
    sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_NON_DURABLE, ObjectString=b"Drop/Disc")
    sd.set_vs("SubName", name)
    subscription = pymqi.Subscription(subscriber)
    subscription.sub(sub_desc=sd, sub_queue=queue)
    observer = pymqi.Subscription(connect())
    assert observer._exists(name)
    subscriber.disconnect()
    assert wait_until(lambda: not observer._exists(name), 60)


def test_pcf_subscriptions_inquired_and_deleted_by_name(
    broker_service: str, connect: Callable[..., QueueManager]
) -> None:
    qmgr = connect()
    name = f"PCFSUB.{uuid.uuid4().hex[:8]}"
    sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_MANAGED, ObjectString=b"Pcf/Sub")
    sd.set_vs("SubName", name)
    subscription = pymqi.Subscription(qmgr)
    queue = subscription.sub(sub_desc=sd).get_sub_queue()
    assert queue is not None
    pcf = pymqi.PCFExecute(qmgr)
    (row,) = pcf.MQCMD_INQUIRE_SUBSCRIPTION({pymqi.CMQCFC.MQCACF_SUB_NAME: name.encode()})
    assert row[pymqi.CMQCFC.MQCA_TOPIC_STRING] == b"Pcf/Sub"
    assert row[pymqi.CMQCFC.MQCACF_DESTINATION].strip() == queue.name.encode()
    assert row[pymqi.CMQCFC.MQBACF_DESTINATION_CORREL_ID] == sd.SubCorrelId
    generic = pcf.MQCMD_INQUIRE_SUBSCRIPTION({pymqi.CMQCFC.MQCACF_SUB_NAME: b"PCFSUB.*"})
    assert name.encode() in [r[pymqi.CMQCFC.MQCACF_SUB_NAME] for r in generic]
    pcf.MQCMD_DELETE_SUBSCRIPTION({pymqi.CMQCFC.MQCACF_SUB_NAME: name})

    def gone() -> bool:
        try:
            pcf.MQCMD_INQUIRE_SUBSCRIPTION({pymqi.CMQCFC.MQCACF_SUB_NAME: name})
        except pymqi.MQMIError as error:
            return error.reason == C.MQRC_UNKNOWN_OBJECT_NAME
        return False

    assert wait_until(gone, 30)
    subscription.close(close_sub_queue=True)


@pytest.mark.parametrize("managed", [True, False], ids=["managed", "provided"])
def test_pcf_subscriptions_created_then_resumed_as_pymqis_test_pubsub_does(
    broker_service: str,
    connect: Callable[..., QueueManager],
    new_queue: Callable[..., str],
    managed: bool,
) -> None:
    qmgr = connect()
    name = f"ADMIN.{uuid.uuid4().hex[:8]}'s subscription"
    topic = f"/UNITTEST//ADMIN/{uuid.uuid4().hex[:6]}"
    args: dict[int, object] = {
        pymqi.CMQCFC.MQCACF_SUB_NAME: name.encode(),
        C.MQCA_TOPIC_STRING: topic.encode(),
        pymqi.CMQCFC.MQIACF_DESTINATION_CLASS: C.MQDC_MANAGED if managed else C.MQDC_PROVIDED,
    }
    given = None
    if not managed:
        queue_name = new_queue()
        args[pymqi.CMQCFC.MQCACF_DESTINATION] = queue_name.encode()
        given = pymqi.Queue(qmgr, queue_name, C.MQOO_INPUT_AS_Q_DEF)
    pymqi.PCFExecute(qmgr).MQCMD_CREATE_SUBSCRIPTION(args)
    sd = pymqi.SD(Options=C.MQSO_RESUME)
    sd.set_vs("SubName", name)
    subscription = pymqi.Subscription(qmgr)
    subscription.sub(sub_desc=sd, sub_queue=given)
    assert sd.Options & C.MQSO_DURABLE and bool(sd.Options & C.MQSO_MANAGED) == managed
    if given is not None:
        assert subscription.get_sub_queue() is given  # the program's own handle
    with pymqi.Topic(qmgr, topic_string=topic) as published:
        published.open(open_opts=C.MQOO_OUTPUT)
        published.pub(b"to an administered subscription")
    assert subscription.get(None, pymqi.md(), wait_gmo()) == b"to an administered subscription"
    subscription.close(sub_close_options=0, close_sub_queue=True)
    pymqi.PCFExecute(qmgr).MQCMD_DELETE_SUBSCRIPTION({pymqi.CMQCFC.MQCACF_SUB_NAME: name})
