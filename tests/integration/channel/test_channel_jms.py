"""IBM MQ JMS 9.4.4 in migration mode (PROVIDERVERSION 6) through ``mqk listen``: queue
send/receive, a transacted session, request/reply over a temporary queue, and a message each
way between a JMS and a Python MQI program."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import mqkafka.mqi as pymqi
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from tests.integration.channel.conftest import ListenerProcess, connect_qmgr, run_java

CHECKS = [
    "queue_send_receive",
    "queue_transacted",
    "request_reply_temporary_queue",
    "jms_python_exchange",
]


@pytest.fixture(scope="module")
def qmgr(kafka_bootstrap: str, namespace: str) -> Iterator[QueueManager]:
    manager = connect_qmgr(kafka_bootstrap, namespace)
    for name in ("APP.JMS", "PY2JMS", "JMS2PY"):
        manager.define_queue(name)
    yield manager
    manager.disconnect()


@pytest.fixture(scope="module")
def checks(
    qmgr: QueueManager, listener: ListenerProcess, mq_client_jars: Path, java_classes: Path
) -> dict[str, str]:
    md = pymqi.MD(Format=pymqi.CMQC.MQFMT_STRING)
    pymqi.Queue(qmgr, "PY2JMS", pymqi.CMQC.MQOO_OUTPUT).put(b"from-python", md)
    args = ("127.0.0.1", str(listener.port), "APP.JMS", "PY2JMS", "JMS2PY")
    return run_java(mq_client_jars, java_classes, "JmsCheck", *args)


@pytest.mark.parametrize("name", CHECKS)
def test_jms_migration_mode_queues(checks: dict[str, str], name: str) -> None:
    assert checks.get(name) == "OK", f"{name}: {checks.get(name)}\n{checks['_output']}"


def test_python_gets_what_jms_sent(checks: dict[str, str], qmgr: QueueManager) -> None:
    assert checks.get("jms_python_exchange") == "OK"
    queue = pymqi.Queue(qmgr, "JMS2PY", pymqi.CMQC.MQOO_INPUT_AS_Q_DEF)
    assert queue.get_wait(10_000) == b"from-jms"
    queue.close()


def test_the_jms_system_queues_exist(checks: dict[str, str], qmgr: QueueManager) -> None:
    for name in ("SYSTEM.JMS.REPORT.QUEUE", "SYSTEM.JMS.ND.SUBSCRIBER.QUEUE",
                 "SYSTEM.JMS.D.SUBSCRIBER.QUEUE"):  # fmt: skip
        assert qmgr.display_queue(name) is not None, name
