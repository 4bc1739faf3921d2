"""The IBM MQ classes for Java (9.4.4, unmodified) through ``mqk listen``: put/get, browse,
syncpoint, CorrelId match, dynamic queues, MQPUT1, a 150 kB message, an MQGET that waits
longer than the client's patience for silence, 2085 and 2058, and a
message each way between a Java and a Python MQI program on the same queues; a connection's
counters (calls, messages put and got, bytes, last call) as ``mqk listen --status`` shows."""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import mqkafka.mqi as pymqi
from mqkafka.channel.codec import segments
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.query.listeners import ListenerConnection, running_listeners
from tests.integration.channel.conftest import MQK, ListenerProcess, connect_qmgr, run_java
from tests.integration.service.conftest import wait_until
from tests.unit.channel.observed import client_initial_data

CHECKS = [
    "connect", "putget", "browse", "syncpoint", "correlid", "dynamic", "put1", "big", "long_wait",
    "unknown2085", "qmgr2058", "python_exchange", "disconnect",
]  # fmt: skip


@pytest.fixture(scope="module")
def qmgr(kafka_bootstrap: str, namespace: str) -> Iterator[QueueManager]:
    manager = connect_qmgr(kafka_bootstrap, namespace)
    for name in ("DEV.QUEUE.1", "PY2J", "J2PY", "COUNTED.Q"):
        manager.define_queue(name)
    yield manager
    manager.disconnect()


@pytest.fixture(scope="module")
def checks(
    qmgr: QueueManager, listener: ListenerProcess, mq_client_jars: Path, java_classes: Path
) -> dict[str, str]:
    pymqi.Queue(qmgr, "PY2J", pymqi.CMQC.MQOO_OUTPUT).put(b"from-python")
    args = ("127.0.0.1", str(listener.port), "DEV.QUEUE.1", "PY2J", "J2PY")
    return run_java(mq_client_jars, java_classes, "MqClassesCheck", *args)


@pytest.mark.parametrize("name", CHECKS)
def test_the_mq_classes_for_java(checks: dict[str, str], name: str) -> None:
    assert checks.get(name) == "OK", f"{name}: {checks.get(name)}\n{checks['_output']}"


def test_python_gets_what_java_put(checks: dict[str, str], qmgr: QueueManager) -> None:
    assert checks.get("python_exchange") == "OK"
    queue = pymqi.Queue(qmgr, "J2PY", pymqi.CMQC.MQOO_INPUT_AS_Q_DEF)
    assert queue.get_wait(10_000) == b"from-java"
    queue.close()


def test_each_connection_is_logged(checks: dict[str, str], listener: ListenerProcess) -> None:
    text = "\n".join(listener.lines)
    assert "connected: channel DEV.APP.SVRCONN" in text
    assert "ended: closed by the client" in text


def test_a_connection_s_counters_move_as_it_puts_and_gets(
    checks: dict[str, str],
    listener: ListenerProcess,
    namespace: str,
    mq_client_jars: Path,
    java_classes: Path,
    tmp_path: Path,
) -> None:
    """A Java connection puts 3 messages of 1,000 bytes and gets 2, and stays connected
    until its counters have been read from the listener's status (as the console reads
    them) and from ``mqk listen --status``."""
    done = tmp_path / "done"
    args = ("127.0.0.1", str(listener.port), "COUNTERS.SVRCONN", "COUNTED.Q", str(done))
    with ThreadPoolExecutor(1) as pool:
        java = pool.submit(run_java, mq_client_jars, java_classes, "CountersCheck", *args)
        try:
            assert wait_until(lambda: _counted(listener) is not None, 120), listener.lines[-20:]
            seen = _counted(listener)
            status = subprocess.run(
                [MQK, "listen", "--status", "--namespace", namespace], capture_output=True,
                text=True, check=True, env={**os.environ, "MQK_HOME": str(listener.home)},
            )  # fmt: skip
        finally:
            done.touch()
        outcome = java.result(timeout=120)
    assert outcome.get("counted") == "OK", outcome["_output"]
    assert outcome.get("disconnect") == "OK", outcome["_output"]
    assert seen is not None
    assert (seen.puts, seen.gets, seen.last_verb) == (3, 2, "MQGET")
    assert seen.calls >= 7  # MQCONN, MQOPEN, 3 MQPUT, 2 MQGET, and what the client asks
    assert seen.bytes_received > 3 * 1000 and seen.bytes_sent > 2 * 1000
    assert seen.last_time >= seen.since
    lines = status.stdout.splitlines()
    heading = f"127.0.0.1:{listener.port} (queue manager QM1, namespace {namespace}, Kafka "
    assert lines[0].startswith(heading), status.stdout
    (counters,) = [line for line in lines if "put 3  got 2" in line]
    assert "last MQGET" in counters, status.stdout


def _counted(listener: ListenerProcess) -> ListenerConnection | None:
    """The CountersCheck connection once its status shows its 3 puts and 2 gets."""
    for view in running_listeners(listener.home):
        for conn in view.connections:
            if conn.channel == "COUNTERS.SVRCONN" and (conn.puts, conn.gets) == (3, 2):
                return conn
    return None


def test_a_stop_ends_each_connection_with_a_status(
    checks: dict[str, str], listener: ListenerProcess
) -> None:
    with socket.create_connection(("127.0.0.1", listener.port), timeout=30) as sock:
        sock.sendall(client_initial_data())
        answer = _segment(sock)
        assert answer[9] == segments.SegType.INITIAL_DATA
        assert listener.stop() == 0
        status = _segment(sock)
        assert status[9] == segments.SegType.STATUS_DATA
    assert any("listener stopped (1 connections ended)" in line for line in listener.lines)


def _segment(sock: socket.socket) -> bytes:
    head = _exactly(sock, 8)
    return head + _exactly(sock, int.from_bytes(head[4:8], "big") - 8)


def _exactly(sock: socket.socket, size: int) -> bytes:
    out = b""
    while len(out) < size:
        chunk = sock.recv(size - len(out))
        assert chunk, "the listener closed the socket early"
        out += chunk
    return out
