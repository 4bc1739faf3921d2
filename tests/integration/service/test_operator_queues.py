"""Issue 35 points 6 to 10 against the real service and Kafka, as an operator's shell runs
mqk: queues defined, altered, cleared and deleted with runmqsc's rules; a runmqsc script
applied; errors that name the queue and say what to do, with one exit code each; a command
put but not answered said so (exit 6) and applied once the service runs; no publisher left
registered by mqk publish; a listing's depths (asked of Kafka at once) as the MQI counts them;
a dead letter re-put only when its cause is not its own, or when confirmed; and the first
publication after a start reaching every subscriber queue, the missing ones made at once."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import IsolationLevel, OffsetSpec, TopicPartition
from mqkafka.mq.dlh import DeadLetterHeader
from mqkafka.mq.mqmd import MQFMT_STRING
from mqkafka.mq.reasons import RC
from mqkafka.query.actions import reput_dead_letter
from mqkafka.query.messages import DEAD_LETTER_QUEUE
from mqkafka.query.queues import QueueReader
from mqkafka.state.kinds import STATE_KINDS
from mqkafka.wire.names import queue_to_topic
from tests.integration.service.conftest import MQK, ServiceProcess, wait_until

pytestmark = pytest.mark.kafka

Run = Callable[..., "Ran"]


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def mqk(
    kafka_bootstrap: str,
    namespace: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Run:
    """mqk in this process (a shell's mqk pays a second of start-up a command): its exit
    code and what it printed; ``mqk_shell`` runs the installed one once, as a shell does."""
    monkeypatch.setenv("MQK_BOOTSTRAP_SERVERS", kafka_bootstrap)
    monkeypatch.setenv("MQK_NAMESPACE", namespace)

    def run(*args: str, stdin: str | None = None) -> Ran:
        from mqkafka.cli import main

        capsys.readouterr()
        if stdin is not None:
            monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        code = main(list(args))
        out, err = capsys.readouterr()
        return Ran(code, out, err)

    return run


def mqk_shell(bootstrap: str, namespace: str, *args: str) -> Ran:
    env = {**os.environ, "MQK_BOOTSTRAP_SERVERS": bootstrap, "MQK_NAMESPACE": namespace}
    done = subprocess.run(
        [MQK, *args], capture_output=True, text=True, env=env, timeout=180, check=False
    )
    assert "Traceback" not in done.stderr, done.stderr
    return Ran(done.returncode, done.stdout, done.stderr)


def said(result: Ran, code: int) -> str:
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    return result.stdout + result.stderr


def test_queues_are_administered_with_runmqsc_s_rules(
    mqk: Run, kafka_bootstrap: str, namespace: str
) -> None:
    missing = said(mqk_shell(kafka_bootstrap, namespace, "put", "NO.SUCH.QUEUE", "x"), 4)
    assert missing.strip() == (
        "mqk: queue NO.SUCH.QUEUE is not defined (MQRC_UNKNOWN_OBJECT_NAME 2085); define it "
        "with mqk queue define NO.SUCH.QUEUE"
    )
    assert "NO.SUCH.QUEUE is not defined" in said(mqk("browse", "NO.SUCH.QUEUE"), 4)

    defined = mqk("queue", "define", "OPS.ADMIN", "--max-depth", "3", "--description", "ops",
                  "--partitions", "2")  # fmt: skip
    assert said(defined, 0).startswith("queue OPS.ADMIN defined (local)")
    assert "already defined (MQRC_OBJECT_ALREADY_EXISTS 2100)" in said(
        mqk("queue", "define", "OPS.ADMIN"), 1
    )
    shown = json.loads(said(mqk("queue", "show", "OPS.ADMIN", "--json"), 0))
    assert (shown["partitions"], shown["description"]) == (2, "ops")

    for n in range(2):
        said(mqk("put", "OPS.ADMIN", f"m{n}"), 0)
    said(mqk("queue", "alter", "OPS.ADMIN", "--max-message-length", "5"), 0)
    assert "--max-message-length N" in said(mqk("put", "OPS.ADMIN", "longer"), 1)  # 2030
    said(mqk("queue", "alter", "OPS.ADMIN", "--max-depth", "10", "--put", "disabled"), 0)
    assert "--put enabled" in said(mqk("put", "OPS.ADMIN", "m3"), 1)  # 2051, and the way out
    said(mqk("queue", "alter", "OPS.ADMIN", "--put", "enabled"), 0)

    not_empty = said(mqk("queue", "delete", "OPS.ADMIN"), 1)
    assert "holds messages (MQRC_Q_NOT_EMPTY 2055)" in not_empty and "--purge" in not_empty
    assert "2 message(s) discarded" in said(mqk("queue", "clear", "OPS.ADMIN"), 0)
    assert "queue OPS.ADMIN is empty" in said(mqk("get", "OPS.ADMIN"), 5)
    said(mqk("put", "OPS.ADMIN", "again"), 0)
    said(mqk("queue", "delete", "OPS.ADMIN", "--purge"), 0)

    model = mqk("queue", "define", "OPS.MODEL", "--model", "--definition-type", "permanent")
    assert "defined (model)" in said(model, 0)
    assert "does not apply to a local queue" in said(
        mqk("queue", "define", "OPS.L", "--definition-type", "permanent"), 2
    )


SCRIPT = """\
* the build script of QM1
DEFINE QLOCAL(app.in) MAXDEPTH(100) +
       DESCR('Bob''s input') BOQNAME(APP.BACKOUT) REPLACE
DEF QMODEL(APP.REPLY.MODEL) DEFTYPE(TEMPDYN)
DEFINE CHANNEL(APP.SVRCONN) CHLTYPE(SVRCONN) TRPTYPE(TCP)
ALTER QL(APP.IN) MAXMSGL(1000)
DISPLAY QLOCAL(APP.*) ALL
DELETE QLOCAL(APP.OLD)
ALTER QLOCAL(APP.REPLY.MODEL) MAXDEPTH(5)
END
DEFINE QLOCAL(NEVER.READ)
"""


def test_a_runmqsc_script_provisions_the_queues_and_names_what_it_skips(
    mqk: Run, tmp_path: Path, kafka_bootstrap: str, namespace: str
) -> None:
    script = tmp_path / "setup.mqsc"
    script.write_text(SCRIPT)
    out = said(mqk("mqsc", str(script)), 1)  # DELETE of a queue never defined failed
    lines = out.splitlines()
    assert any(line.startswith("line 2: DEFINE QLOCAL(app.in)") and "queue APP.IN defined"
               in line and "BOQNAME not emulated, ignored" in line for line in lines)  # fmt: skip
    assert any(line.startswith("line 5: DEFINE CHANNEL(APP.SVRCONN)") and "not supported"
               in line for line in lines)  # fmt: skip
    assert any(line.startswith("line 8: DELETE QLOCAL(APP.OLD)") and "2085" in line
               for line in lines)  # fmt: skip
    assert "  QUEUE(APP.IN) TYPE(QLOCAL) CURDEPTH(0) DESCR(Bob's input) MAXDEPTH(100) " \
        "MAXMSGL(1000) DEFPSIST(NO) PUT(ENABLED) GET(ENABLED)" in lines  # fmt: skip
    wrong_type = next(line for line in lines if line.startswith("line 9: ALTER QLOCAL("))
    assert "MQRCCF_Q_WRONG_TYPE" in wrong_type and "a model queue, not a local one" in wrong_type
    assert (
        "NEVER.READ" not in out and "7 command(s) read: 4 applied, 1 not supported, 2 failed" in out
    )

    reader = QueueReader(ClientConfig(kafka_bootstrap), namespace)
    try:
        definitions = reader.definitions()
    finally:
        reader.close()
    assert definitions["APP.IN"].max_depth == 100 and definitions["APP.IN"].max_msg_length == 1000
    assert definitions["APP.REPLY.MODEL"].is_model and "NEVER.READ" not in definitions
    checked = mqk("mqsc", "--check", "--strict", stdin="DEFINE QREMOTE(R)\nCLEAR QLOCAL(APP.IN)\n")
    assert "line 1: DEFINE QREMOTE(R): not supported" in said(checked, 1)


def publishers(config: ClientConfig, namespace: str) -> list[str]:
    from mqkafka.query.state import values

    kind = next(k for k in STATE_KINDS if "publisher" in k.name)
    return [p.key.topic.text for p in values(config, kind, namespace)]


def test_replies_tell_the_truth_and_mqk_leaves_no_publisher(
    mqk: Run, kafka_bootstrap: str, namespace: str, start_service: Callable[..., ServiceProcess]
) -> None:
    service = start_service()
    said(mqk("subscribe", "News/#", "--queue", "OPS.NEWS"), 0)
    said(mqk("publish", "News/Today", "sun", "--retain"), 0)
    said(mqk("publish", "News/Tomorrow", "rain", "--register"), 0)
    assert publishers(ClientConfig(kafka_bootstrap), namespace) == ["News/Tomorrow"]

    assert service.proc is not None
    service.proc.send_signal(signal.SIGSTOP)  # a member of its group, but answering nothing
    try:
        unanswered = said(mqk("publish", "News/Later", "snow", "--wait", "2"), 6)
    finally:
        service.proc.send_signal(signal.SIGCONT)
    assert unanswered.strip() == (
        "mqk: put; no reply from the broker service within 2 s: it will be applied when the "
        "service runs; do not re-send"
    )
    client = KafkaPubSub(kafka_bootstrap, namespace=namespace)
    try:
        bodies = [r.body for r in client.read_queue("OPS.NEWS", count=3, timeout=60)]
    finally:
        client.close()
    assert bodies == [b"sun", b"rain", b"snow"]  # applied once the service ran, once

    listed = [q["name"] for q in json.loads(said(mqk("queue", "list", "--json"), 0))]
    assert "OPS.NEWS" in listed and "MQK.CLIENT.REPLY" not in listed
    everything = [q["name"] for q in json.loads(said(mqk("queue", "list", "--all", "--json"), 0))]
    assert "MQK.CLIENT.REPLY" in everything

    assert "nothing to delete" in said(mqk("retained", "delete", "News/Never"), 4)
    said(mqk("retained", "delete", "News/Today"), 0)
    said(mqk("retained", "show", "News/Today"), 4)


def test_a_listing_counts_every_queue_as_the_mqi_does(kafka_bootstrap: str, namespace: str) -> None:
    import mqkafka.mqi as pymqi
    from mqkafka.mqi import CMQC

    qmgr = pymqi.connect("QM1", bootstrap_servers=kafka_bootstrap, namespace=namespace)
    names = [f"LIST.Q{n}" for n in range(12)]
    try:
        for n, name in enumerate(names):
            qmgr.define_queue(name, partitions=1 + n % 3)
            queue = pymqi.Queue(qmgr, name, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
            for m in range(n % 4):
                queue.put(f"m{m}".encode(), pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
            qmgr.commit()  # a transaction marker after the messages: offsets are not messages
            if n % 4 >= 2:
                queue.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10000))
            queue.close()
        expected = {name: qmgr.queue_depth(name) for name in names}
    finally:
        qmgr.disconnect()
    assert expected == {name: max(n % 4 - (n % 4 >= 2), 0) for n, name in enumerate(names)}
    reader = QueueReader(ClientConfig(kafka_bootstrap), namespace)
    try:
        assert wait_until(lambda: {v.name: v.depth for v in reader.list(names)} == expected, 30), {
            v.name: v.depth for v in reader.list(names)
        }
    finally:
        reader.close()


def dead_letter(kafka_bootstrap: str, namespace: str, reason: int, dest: str, body: bytes) -> str:
    """A dead letter as the service writes one (MQDLH, then the message); its MsgId."""
    import mqkafka.mqi as pymqi
    from mqkafka.mqi import CMQC

    qmgr = pymqi.connect("QM1", bootstrap_servers=kafka_bootstrap, namespace=namespace)
    try:
        header = DeadLetterHeader(reason=reason, dest_q_name=dest, format=MQFMT_STRING)
        md = pymqi.MD(Format=CMQC.MQFMT_DEAD_LETTER_HEADER)
        queue = pymqi.Queue(qmgr, DEAD_LETTER_QUEUE, CMQC.MQOO_OUTPUT)
        queue.put(header.encode(md.Encoding) + body, md)
        queue.close()
        return bytes(md.MsgId).hex()
    finally:
        qmgr.disconnect()


def test_a_dead_letter_is_re_put_with_the_real_reason_and_its_own_cause_confirmed(
    mqk: Run, kafka_bootstrap: str, namespace: str
) -> None:
    config = ClientConfig(kafka_bootstrap)
    said(mqk("queue", "define", "OPS.TARGET"), 0)
    own = dead_letter(kafka_bootstrap, namespace, RC.RFH_FORMAT_ERROR, "OPS.TARGET", b"bad")
    refused = reput_dead_letter(config, own, namespace=namespace)
    assert not refused.ok and "MQRC_RFH_FORMAT_ERROR (2421)" in refused.text
    assert "confirm" in refused.text
    assert reput_dead_letter(config, own, namespace=namespace, confirmed=True).ok

    # the destination's topic takes records of 1,000 bytes at most (max.message.bytes)
    admin = clients.admin(config)
    from mqkafka.kafka.topicadmin import set_topic_configs

    set_topic_configs(admin, queue_to_topic("OPS.TARGET", namespace), {"max.message.bytes": "1000"})
    big = dead_letter(kafka_bootstrap, namespace, RC.Q_FULL, "OPS.TARGET", b"x" * 5000)
    failed = reput_dead_letter(config, big, namespace=namespace)
    # the queue's own limit, as MQPUT says it (2030; 2031 is the queue manager's)
    assert not failed.ok and "MQRC_MSG_TOO_BIG_FOR_Q 2030" in failed.text, failed.text
    assert "MQRC_BACKED_OUT" not in failed.text and "5000 bytes" in failed.text


def end_offsets(config: ClientConfig, topics: list[str]) -> dict[str, int]:
    admin = clients.admin(config)
    request = {TopicPartition(t, 0): OffsetSpec.latest() for t in topics}
    answer: Any = admin.list_offsets(
        request, isolation_level=IsolationLevel.READ_COMMITTED, request_timeout=30
    )
    found = {}
    for tp, future in answer.items():
        try:
            found[tp.topic] = future.result().offset
        except clients.KafkaException:  # not made again yet
            found[tp.topic] = 0
    return found


def test_the_first_publication_after_a_start_reaches_every_queue_the_missing_made_at_once(
    kafka_bootstrap: str, namespace: str, start_service: Callable[..., ServiceProcess]
) -> None:
    config = ClientConfig(kafka_bootstrap)
    queues = [f"FAN.Q{n:02d}" for n in range(20)]  # PREPARE_FROM (16) copies or more
    topics = [queue_to_topic(q, namespace) for q in queues]
    service = start_service()
    client = KafkaPubSub(kafka_bootstrap, namespace=namespace)
    try:
        for queue in queues[:-1]:
            client.register("Fan/Out", queue=queue, wait=None)
        last = client.register("Fan/Out", queue=queues[-1])
        assert last is not None and last.ok
        service.stop()
        admin = clients.admin(config)  # half the subscriber queues go while it is stopped
        for future in admin.delete_topics(topics[::2], operation_timeout=60).values():
            future.result()
        assert wait_until(lambda: not set(topics[::2]) & set(admin.list_topics(timeout=10).topics))
        service = start_service()
        client.publish("Fan/Out", b"first", wait=None)
        assert wait_until(lambda: min(end_offsets(config, topics).values()) > 0, 60)
    finally:
        client.close()
    for queue in (queues[0], queues[1]):
        reader = KafkaPubSub(kafka_bootstrap, namespace=namespace)
        try:
            assert [r.body for r in reader.read_queue(queue, count=1)] == [b"first"]
        finally:
            reader.close()
    assert any("created 10 queue topics" in m for m in service.messages())


def test_the_console_defines_clears_and_deletes_queues(
    kafka_bootstrap: str, namespace: str
) -> None:
    import http.client
    import socket
    import threading
    import time
    from urllib.parse import unquote_plus, urlencode

    import uvicorn

    from mqkafka.console.app import create_app
    from mqkafka.console.pages import ConsoleSettings

    settings = ConsoleSettings(
        ClientConfig(kafka_bootstrap), namespace, allow_actions=True, token="t0k"
    )
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    )
    threading.Thread(target=server.run, daemon=True).start()
    assert wait_until(lambda: server.started, 30)

    def request(method: str, path: str, form: dict[str, str] | None = None) -> tuple[int, str]:
        """The status and the redirect's query (an action) or the page (a GET)."""
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        body = urlencode(form) if form is not None else None
        headers = {"Content-Type": "application/x-www-form-urlencoded"} if form else {}
        conn.request(method, path, body=body, headers=headers)
        answer = conn.getresponse()
        text = answer.read().decode()
        where = answer.getheader("Location") or ""
        conn.close()
        return answer.status, unquote_plus(where.partition("?")[2]) if where else text

    def act(**form: str) -> str:
        status, said_back = request("POST", "/actions/queue", {"token": "t0k", **form})
        assert status == 303, (status, said_back)
        return said_back

    try:
        defined = act(action="define", queue="WEB.Q", description="from the console",
                      max_depth="7")  # fmt: skip
        assert defined == "notice=queue WEB.Q defined (local)"
        status, page = request("GET", "/queues")
        assert status == 200 and 'data-queue="WEB.Q"' in page and "from the console" in page
        missing = act(action="delete", queue="NO.SUCH.Q")
        assert missing.startswith("failed=delete NO.SUCH.Q: MQRC_UNKNOWN_OBJECT_NAME (2085)")
        assert "cleared" in act(action="clear", queue="WEB.Q")
        assert act(action="delete", queue="WEB.Q", purge="yes") == "notice=queue WEB.Q deleted"
        assert request("POST", "/actions/queue", {"token": "wrong"})[0] == 403
    finally:
        server.should_exit = True
        time.sleep(0.5)
        settings.close()


def test_pcf_clears_a_queue_unless_it_is_open(kafka_bootstrap: str, namespace: str) -> None:
    import mqkafka.mqi as pymqi
    from mqkafka.mqi import CMQC

    qmgr = pymqi.connect("QM1", bootstrap_servers=kafka_bootstrap, namespace=namespace)
    try:
        pcf = pymqi.PCFExecute(qmgr)
        pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: b"PCF.CLEARED", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
        queue = pymqi.Queue(qmgr, "PCF.CLEARED", CMQC.MQOO_OUTPUT)
        queue.put(b"one")
        queue.put(b"two")
        with pytest.raises(pymqi.MQMIError) as in_use:
            pcf.MQCMD_CLEAR_Q({CMQC.MQCA_Q_NAME: b"PCF.CLEARED"})
        assert in_use.value.reason == CMQC.MQRC_OBJECT_IN_USE
        queue.close()
        pcf.MQCMD_CLEAR_Q({CMQC.MQCA_Q_NAME: b"PCF.CLEARED"})
        assert qmgr.queue_depth("PCF.CLEARED") == 0
        with pytest.raises(pymqi.MQMIError) as unknown:
            pcf.MQCMD_CLEAR_Q({CMQC.MQCA_Q_NAME: b"PCF.NEVER"})
        assert unknown.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    finally:
        qmgr.disconnect()
