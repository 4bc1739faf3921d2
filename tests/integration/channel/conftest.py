"""IBM's MQ client against ``mqk listen`` on the session's Kafka.

The client (``com.ibm.mq.allclient`` 9.4.4.0 with ``javax.jms-api`` and ``org.json``) is
resolved from Maven Central at test time by ``devsupport/javaclient.py`` (shared with the
benchmarks), cached like Kafka's jars, never vendored; the Java programs in this folder's
``java/`` are ours, compiled with ``javac``. One JVM runs many scenarios and prints one
``CHECK <name> OK|FAIL <why>`` line each; the tests read those lines.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from devsupport import javaclient

from mqkafka.cli.serveprocess import ServeProcess
from mqkafka.kafka.localbroker import free_port
from mqkafka.kafka.provision import apply_catalogue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

HERE = Path(__file__).resolve().parent
MQK = str(Path(sys.executable).with_name("mqk"))
CLIENT_VERSION = javaclient.CLIENT_VERSION


@pytest.fixture(scope="session")
def mq_client_jars() -> Path:
    """The MQ client's jars, fetched once into the cache (``$MQK_CACHE``)."""
    try:
        return javaclient.client_jars()
    except javaclient.JavaClientError as error:
        pytest.fail(str(error), False)


@pytest.fixture(scope="session")
def java_classes(mq_client_jars: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Our Java programs, compiled against the client."""
    try:
        programs = sorted((HERE / "java").glob("*.java"))
        return javaclient.compile_programs(
            mq_client_jars, tmp_path_factory.mktemp("java-classes"), programs
        )
    except javaclient.JavaClientError as error:
        pytest.fail(str(error), False)


class ListenerProcess:
    """``mqk listen`` on a free port; its log lines kept. Its ``$MQK_HOME`` (where it writes
    the status ``mqk listen --status`` reads) is ``home``, by default a folder of its own
    removed at its stop: never the developer's ``~/.mqk``."""

    def __init__(
        self, bootstrap: str, namespace: str, *extra: str, home: Path | None = None
    ) -> None:
        self.port = free_port()
        self.own_home = home is None
        self.home = Path(tempfile.mkdtemp(prefix="mqk-listen-")) if home is None else home
        self.lines: list[str] = []
        self._ready = threading.Event()
        self.proc = subprocess.Popen(
            [MQK, "listen", "--bootstrap-servers", bootstrap, "--namespace", namespace,
             "--port", str(self.port), *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1", "MQK_HOME": str(self.home)},
        )  # fmt: skip
        threading.Thread(target=self._read, daemon=True).start()
        if not self._ready.wait(120):
            self.proc.kill()
            pytest.fail("mqk listen did not start:\n" + "\n".join(self.lines[-20:]), False)

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line.rstrip())
            if "listening on" in line:
                self._ready.set()

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(60)
        if self.own_home:
            shutil.rmtree(self.home, ignore_errors=True)
        return code


@pytest.fixture(scope="module")
def namespace(kafka_bootstrap: str) -> str:
    ns = f"c{uuid.uuid4().hex[:8]}."
    apply_catalogue(kafka_bootstrap, prefix=ns)
    return ns


@pytest.fixture(scope="module")
def listener(kafka_bootstrap: str, namespace: str) -> Iterator[ListenerProcess]:
    process = ListenerProcess(kafka_bootstrap, namespace)
    yield process
    if process.proc.poll() is None:
        process.stop()


@pytest.fixture(scope="module")
def broker_service(
    kafka_bootstrap: str, namespace: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """``mqk serve`` on the module's namespace: the queued pub/sub engine JMS topics reach
    through the listener (its commands go to SYSTEM.BROKER.CONTROL.QUEUE on Kafka)."""
    state = tmp_path_factory.mktemp("serve-state")
    with ServeProcess(kafka_bootstrap, namespace, state, instance_id="channel-tests"):
        yield namespace


def connect_qmgr(bootstrap: str, namespace: str) -> QueueManager:
    """A Python MQI connection (to a fresh namespace, whose state topics' leaders may still be
    being chosen: MQCONN waits for them)."""
    return QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace)


def run_java(
    jars: Path,
    classes: Path,
    main: str,
    *args: str,
    timeout: float = 400,
    jvm: Sequence[str] = (),
) -> dict[str, str]:
    """Run one of our Java programs (``jvm``: options before the class, ``-D...``); its CHECK
    lines as {name: "OK" or "FAIL why"}, with its output and FFDC reports (module javaclient)."""
    try:
        done = javaclient.run_java(jars, classes, main, *args, timeout=timeout, jvm=jvm)
    except javaclient.JavaClientError as error:
        pytest.fail(str(error), False)
    return javaclient.checks_of(done, classes)


JavaRunner = Callable[..., dict[str, str]]
