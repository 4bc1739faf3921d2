"""``mqk listen`` with TLS: the raw client over Python's ``ssl``, IBM's MQ classes for Java
and IBM MQ JMS in migration mode (cipher suite TLS_AES_128_GCM_SHA256, javax.net.ssl
stores). A client certificate signed by the listener's CA is required, and its CN (not what
the client asserts in its USERID_DATA, RAWTEST) is the user id its messages carry; a refused
handshake is one line."""

from __future__ import annotations

import contextlib
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import mqkafka.mqi as pymqi
from tests.integration.channel.certs import make_ca, make_cert
from tests.integration.channel.conftest import ListenerProcess, connect_qmgr, run_java
from tests.integration.channel.rawclient import RawClient

C = pymqi.CMQC
RA_CHANNEL = "DEV.TLS.RA.SVRCONN"  # offered SHARECNV 1: read ahead, the client's heartbeats


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("certs")
    make_ca(folder)
    make_cert(folder, "server", "/CN=localhost")
    make_cert(folder, "alice", "/O=mqk tests/CN=alice")
    make_cert(folder, "mallory", "/CN=mallory", signed=False)
    return folder


@pytest.fixture(scope="module")
def tls_listener(kafka_bootstrap: str, namespace: str, certs: Path) -> Iterator[ListenerProcess]:
    process = ListenerProcess(
        kafka_bootstrap, namespace, "--tls-cert", str(certs / "server.pem"),
        "--tls-key", str(certs / "server.key"), "--tls-ca", str(certs / "ca.pem"),
        "--sharecnv", f"{RA_CHANNEL}=1",
    )  # fmt: skip
    yield process
    if process.proc.poll() is None:
        process.stop()


def client_context(certs: Path, name: str | None) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(certs / "ca.pem"))
    if name is not None:
        context.load_cert_chain(str(certs / f"{name}.pem"), str(certs / f"{name}.key"))
    return context


def test_the_client_certificate_cn_is_the_user_id(
    kafka_bootstrap: str, namespace: str, tls_listener: ListenerProcess, certs: Path
) -> None:
    qmgr = connect_qmgr(kafka_bootstrap, namespace)
    qmgr.define_queue("TLS.Q")
    client = RawClient(tls_listener.port, client_context(certs, "alice"))
    assert client.conn() == 0
    hobj = client.open("TLS.Q", C.MQOO_OUTPUT)
    assert client.put(hobj, b"over TLS", C.MQPMO_NO_SYNCPOINT) == 0
    queue = pymqi.Queue(qmgr, "TLS.Q", C.MQOO_INPUT_AS_Q_DEF)
    md = pymqi.MD()
    assert queue.get_wait(20_000, None, md) == b"over TLS"
    assert md.UserIdentifier.rstrip(b" \0") == b"alice"  # not RAWTEST, the client's claim
    queue.close()
    # the user id is the certificate's: no client has setid/setall authority to put another's
    for options in (C.MQOO_SET_IDENTITY_CONTEXT, C.MQOO_SET_ALL_CONTEXT):
        assert client.open_od("TLS.Q", C.MQOO_OUTPUT | options)[0] == C.MQRC_NOT_AUTHORIZED
    client.drop()
    qmgr.disconnect()
    assert any("user alice" in line for line in tls_listener.lines)


@pytest.mark.parametrize("name", [None, "mallory"])
def test_a_client_without_a_trusted_certificate_is_refused_in_one_line(
    tls_listener: ListenerProcess, certs: Path, name: str | None
) -> None:
    before = len(tls_listener.lines)
    with pytest.raises((ssl.SSLError, OSError, AssertionError)):
        RawClient(tls_listener.port, client_context(certs, name)).conn()
    wait_for_line(tls_listener, before, "refused: TLS handshake")


def test_a_plain_client_on_the_tls_port_is_refused_in_one_line(
    tls_listener: ListenerProcess,
) -> None:
    before = len(tls_listener.lines)
    with socket.create_connection(("127.0.0.1", tls_listener.port), timeout=30) as sock:
        sock.sendall(b"TSH " + bytes(200))
        with contextlib.suppress(OSError):  # the listener closes (or resets) the socket
            sock.recv(100)
    wait_for_line(tls_listener, before, "refused: TLS handshake")
    assert not any("Traceback" in line for line in tls_listener.lines)


def wait_for_line(process: ListenerProcess, since: int, text: str) -> None:
    for _ in range(100):
        if any(text in line for line in process.lines[since:]):
            return
        time.sleep(0.1)
    pytest.fail(f"no {text!r} in the listener's log:\n" + "\n".join(process.lines[since:]))


PASSWORD = "changeit"


@pytest.fixture(scope="module")
def java_tls(certs: Path) -> list[str]:
    """The JVM options of a Java client that is alice: a TLS 1.3 cipher suite by Java's name
    (so IBM's cipher mappings off) and PKCS12 stores, the key made by openssl, the trust
    store by keytool."""
    openssl = ["openssl", "pkcs12", "-export", "-in", "alice.pem", "-inkey", "alice.key",
               "-out", "alice.p12", "-passout", f"pass:{PASSWORD}"]  # fmt: skip
    subprocess.run(openssl, cwd=certs, check=True, capture_output=True, timeout=60)
    keytool = ["keytool", "-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem",
               "-keystore", "trust.p12", "-storetype", "PKCS12",
               "-storepass", PASSWORD]  # fmt: skip
    subprocess.run(keytool, cwd=certs, check=True, capture_output=True, timeout=60)
    return ["-Dcom.ibm.mq.cfg.useIBMCipherMappings=false",
            f"-Djavax.net.ssl.keyStore={certs / 'alice.p12'}",
            f"-Djavax.net.ssl.keyStorePassword={PASSWORD}",
            "-Djavax.net.ssl.keyStoreType=PKCS12",
            f"-Djavax.net.ssl.trustStore={certs / 'trust.p12'}",
            f"-Djavax.net.ssl.trustStorePassword={PASSWORD}",
            "-Djavax.net.ssl.trustStoreType=PKCS12"]  # fmt: skip


def test_ibm_java_client_over_tls(
    kafka_bootstrap: str,
    namespace: str,
    tls_listener: ListenerProcess,
    java_tls: list[str],
    mq_client_jars: Path,
    java_classes: Path,
) -> None:
    """The MQ classes for Java: the message it puts carries the certificate's CN."""
    qmgr = connect_qmgr(kafka_bootstrap, namespace)
    qmgr.define_queue("TLSJ.Q")
    checks = run_java(
        mq_client_jars, java_classes, "TlsCheck", "127.0.0.1", str(tls_listener.port),
        "TLSJ.Q", "TLS_AES_128_GCM_SHA256", timeout=120, jvm=java_tls,
    )  # fmt: skip
    assert checks.get("tls_put") == "OK", checks["_output"]
    queue = pymqi.Queue(qmgr, "TLSJ.Q", C.MQOO_INPUT_AS_Q_DEF)
    md = pymqi.MD()
    assert queue.get_wait(20_000, None, md) == b"over TLS from Java"
    assert md.UserIdentifier.rstrip(b" \0") == b"alice"  # the certificate's, not the OS user
    queue.close()
    qmgr.disconnect()


JMS_CHECKS = ["tls_jms_queue", "tls_jms_to_python", "tls_jms_pubsub_v1", "tls_jms_pubsub_v2"]


def test_ibm_jms_over_tls(
    kafka_bootstrap: str,
    namespace: str,
    tls_listener: ListenerProcess,
    broker_service: str,
    java_tls: list[str],
    mq_client_jars: Path,
    java_classes: Path,
) -> None:
    """JMS migration mode (provider version 6) over TLS, the connection factory naming the
    cipher suite (setSSLCipherSuite): a queue message and a publication (broker versions V1
    and V2) go and come back, each received with JMSXUserID alice (the program checks it),
    and a message JMS sends to a Python program carries alice as its UserIdentifier."""
    qmgr = connect_qmgr(kafka_bootstrap, namespace)
    for name in ("TLSJMS.Q", "TLSJMS2PY"):
        qmgr.define_queue(name)
    checks = run_java(
        mq_client_jars, java_classes, "JmsTlsCheck", "127.0.0.1", str(tls_listener.port),
        "TLSJMS.Q", "TLS_AES_128_GCM_SHA256", "TLSJMS2PY", "alice", timeout=300, jvm=java_tls,
    )  # fmt: skip
    failed = {name: checks.get(name) for name in JMS_CHECKS if checks.get(name) != "OK"}
    assert not failed, f"{failed}\n{checks['_output']}"
    assert "XO00H001" not in checks["_ffdc"], checks["_ffdc"][:2000]
    queue = pymqi.Queue(qmgr, "TLSJMS2PY", C.MQOO_INPUT_AS_Q_DEF)
    md = pymqi.MD()
    assert b"jms-tls-to-python" in queue.get_wait(20_000, None, md)
    assert md.UserIdentifier.rstrip(b" \0") == b"alice"  # not the JVM's OS user
    queue.close()
    qmgr.disconnect()


RA_CHECKS = ["tls_connect", "tls_read_ahead_beside_calls", "tls_long_wait_ends_2033",
             "tls_long_wait_gets_the_message_put_meanwhile", "tls_read_ahead_long_wait",
             "tls_disconnect"]  # fmt: skip


def test_read_ahead_and_long_waits_over_tls_with_sharecnv_1(
    kafka_bootstrap: str,
    namespace: str,
    tls_listener: ListenerProcess,
    java_tls: list[str],
    mq_client_jars: Path,
    java_classes: Path,
) -> None:
    """The MQ classes for Java on a TLS channel with SHARECNV 1: read ahead's flows, sent
    from their stream's thread while the connection's thread reads and answers this
    program's puts, come once each and in order (every 50th message in several segments);
    an MQGET whose wait (6 s) outlasts the client's heartbeat patience (it asks about a
    second into a call, and gives up a second later) ends with 2033 or with the message put
    meanwhile (4 s in), the connection alive, read ahead or not: the heartbeats' thread
    answers the client during the call (before, on TLS only the connection's thread read,
    between calls, and the client ended the connection with 2009)."""
    qmgr = connect_qmgr(kafka_bootstrap, namespace)
    for name in ("TLSRA.Q", "TLSWAIT.Q"):
        qmgr.define_queue(name, max_depth=10_000)
    qmgr.disconnect()
    before = len(tls_listener.lines)
    checks = run_java(
        mq_client_jars, java_classes, "TlsReadAheadCheck", "127.0.0.1", str(tls_listener.port),
        RA_CHANNEL, "TLS_AES_128_GCM_SHA256", "TLSRA.Q", "200", "TLSWAIT.Q", timeout=300,
        jvm=java_tls,
    )  # fmt: skip
    failed = {name: checks.get(name) for name in RA_CHECKS if checks.get(name) != "OK"}
    log = "\n".join(tls_listener.lines[before:])
    assert not failed, f"{failed}\n{checks['_output']}\n{log[-3000:]}"
    assert checks["_ffdc"] == "", checks["_ffdc"][:3000]
    assert "ended: lost" not in log and "read ahead of" not in log, log[-3000:]
