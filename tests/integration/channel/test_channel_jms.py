"""IBM MQ JMS 9.4.4 in migration mode (PROVIDERVERSION 6) through ``mqk listen``: queue
send/receive, a transacted session, request/reply over a temporary queue, and a message each
way between a JMS and a Python MQI program; then topic publish/subscribe with broker versions
V1 (MQRFH) and V2 (MQRFH2 <psc>) through ``mqk serve``: non-durable and durable subscribers,
two subscribers on the shared SYSTEM.JMS.ND.SUBSCRIBER.QUEUE, wildcards, a message listener
and two on one session (the second one's publications are got by NO_WAIT MQGETs), and
publications each way between JMS and a Python MQI program. One JVM for all."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import mqkafka.mqi as pymqi
from mqkafka.mq.commands import PubOpt
from mqkafka.mqi.kafkaqm.psclient import PubSub, raise_for
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from tests.integration.channel.conftest import ListenerProcess, connect_qmgr, run_java

CHECKS = [
    "queue_send_receive",
    "queue_transacted",
    "request_reply_temporary_queue",
    "jms_python_exchange",
]
VERSIONS = ("v1", "v2")
TOPIC_CHECKS = [
    f"{check}_{v}"
    for v in VERSIONS
    for check in ("pubsub", "two_subscribers", "wildcard", "listener", "two_listeners",
                  "python_to_jms", "jms_to_python", "durable")
]  # fmt: skip


@pytest.fixture(scope="module")
def qmgr(kafka_bootstrap: str, namespace: str) -> Iterator[QueueManager]:
    manager = connect_qmgr(kafka_bootstrap, namespace)
    for name in ("APP.JMS", "PY2JMS", "JMS2PY", "JMSPUB"):
        manager.define_queue(name)
    yield manager
    manager.disconnect()


@pytest.fixture(scope="module")
def checks(
    qmgr: QueueManager,
    listener: ListenerProcess,
    broker_service: str,
    mq_client_jars: Path,
    java_classes: Path,
) -> dict[str, str]:
    md = pymqi.MD(Format=pymqi.CMQC.MQFMT_STRING)
    pymqi.Queue(qmgr, "PY2JMS", pymqi.CMQC.MQOO_OUTPUT).put(b"from-python", md)
    pubsub = PubSub(qmgr)
    # Python -> JMS: retained, so a JMS subscriber that comes later gets it on registration
    for v in VERSIONS:
        reply = pubsub.publish(
            [f"mqk/jms/{v}/frompy"], f"from-python-{v}".encode(),
            options=PubOpt.RETAIN_PUBLICATION, reply=True,
        )  # fmt: skip
        raise_for(reply)
    # JMS -> Python: a Python subscriber on its own queue
    reply = pubsub.register_subscriber([f"mqk/jms/{v}/topy" for v in VERSIONS], queue="JMSPUB")
    raise_for(reply)
    pubsub.close()
    args = ("127.0.0.1", str(listener.port), "APP.JMS", "PY2JMS", "JMS2PY", "pubsub")
    return run_java(mq_client_jars, java_classes, "JmsCheck", *args)


def said(checks: dict[str, str], listener: ListenerProcess, name: str) -> str:
    """A failed check's line, the program's output and what the listener logged meanwhile."""
    logged = "\n".join(listener.lines[-40:])
    return f"{name}: {checks.get(name)}\n{checks['_output']}\nmqk listen:\n{logged}"


@pytest.mark.parametrize("name", CHECKS)
def test_jms_migration_mode_queues(
    checks: dict[str, str], listener: ListenerProcess, name: str
) -> None:
    assert checks.get(name) == "OK", said(checks, listener, name)


def test_python_gets_what_jms_sent(checks: dict[str, str], qmgr: QueueManager) -> None:
    assert checks.get("jms_python_exchange") == "OK"
    queue = pymqi.Queue(qmgr, "JMS2PY", pymqi.CMQC.MQOO_INPUT_AS_Q_DEF)
    assert queue.get_wait(10_000) == b"from-jms"
    queue.close()


def test_the_jms_system_queues_exist(checks: dict[str, str], qmgr: QueueManager) -> None:
    for name in ("SYSTEM.JMS.REPORT.QUEUE", "SYSTEM.JMS.ND.SUBSCRIBER.QUEUE",
                 "SYSTEM.JMS.D.SUBSCRIBER.QUEUE"):  # fmt: skip
        assert qmgr.display_queue(name) is not None, name


@pytest.mark.parametrize("name", TOPIC_CHECKS)
def test_jms_migration_mode_topics(
    checks: dict[str, str], listener: ListenerProcess, name: str
) -> None:
    assert checks.get(name) == "OK", said(checks, listener, name)


def test_python_gets_what_jms_published(checks: dict[str, str], qmgr: QueueManager) -> None:
    queue = pymqi.Queue(qmgr, "JMSPUB", pymqi.CMQC.MQOO_INPUT_AS_Q_DEF)
    got = [queue.get_wait(10_000) for _ in VERSIONS]
    queue.close()
    # each an MQRFH2 (<psc>, then JMS's own folders) with JMS's text as the data
    assert sorted(bytes(message)[-len("from-jms-v1") :] for message in got) == [
        f"from-jms-{v}".encode() for v in VERSIONS
    ]


def test_the_client_reports_no_full_response_fault(checks: dict[str, str]) -> None:
    """IBM's client writes FFDC XO00H001 when a RegSub full response does not satisfy it."""
    assert "XO00H001" not in checks["_ffdc"]
