"""A connection's socket shared by its threads (module ``channel.transport``), over TLS: the
SSL object is never in two calls at once (OpenSSL forbids a read beside a write, CPython
gh-143756), though read ahead's streams write while the connection's thread waits to read;
and the heartbeats' thread answers a SHARECNV 1 client's heartbeat request during a long call
(an MQGET's wait) on TLS as on a plain socket, a record that came in part waited for without
holding anyone up. The SSL socket here counts the calls inside it at once."""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from mqkafka.channel.codec.segments import Flags1, Header, SegType
from mqkafka.channel.server import ChannelConnection, ConnectionInfo
from mqkafka.channel.settings import ListenerSettings
from tests.integration.channel.certs import make_cert, tls_contexts

ASK = Header(SegType.HEARTBEAT, flags1=Flags1.FIRST | Flags1.LAST | Flags1.CONFIRM_REQUEST,
             common=True).to_bytes()  # fmt: skip
ANSWER = Header(SegType.HEARTBEAT, flags1=Flags1.FIRST | Flags1.LAST, common=True).to_bytes()


class Watched(ssl.SSLSocket):
    """An SSL socket that counts the calls inside its SSL object at once (each one made
    to last a little, as a loaded machine makes it)."""

    lock: ClassVar[threading.Lock] = threading.Lock()
    inside: ClassVar[int] = 0
    overlaps: ClassVar[int] = 0

    @contextlib.contextmanager
    def _call(self) -> Iterator[None]:
        with Watched.lock:
            Watched.overlaps += Watched.inside > 0
            Watched.inside += 1
        try:
            time.sleep(0.001)
            yield
        finally:
            with Watched.lock:
                Watched.inside -= 1

    def recv(self, buflen: int = 1024, flags: int = 0) -> bytes:
        with self._call():
            return super().recv(buflen, flags)

    def send(self, data: Any, flags: int = 0) -> int:
        with self._call():
            return super().send(data, flags)


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("certs")
    make_cert(folder, "server", "/CN=localhost", signed=False)
    return folder


@pytest.fixture
def pair(certs: Path) -> Iterator[tuple[ChannelConnection, ssl.SSLSocket]]:
    """The listener's connection (its socket watched) and the client's TLS socket."""
    ours, theirs = socket.socketpair()
    server, client = tls_contexts(certs)
    server.sslsocket_class = Watched
    listener_end = server.wrap_socket(ours, server_side=True, do_handshake_on_connect=False)
    client_end = client.wrap_socket(theirs, do_handshake_on_connect=False)
    connection = ChannelConnection(listener_end, ConnectionInfo(1, "test"), ListenerSettings("k:1"))
    handshake = threading.Thread(target=connection._tls_handshake)
    handshake.start()
    client_end.do_handshake()
    handshake.join()
    Watched.inside = Watched.overlaps = 0
    try:
        yield connection, client_end
    finally:
        connection.transport.close()
        client_end.close()


def test_writers_never_enter_the_ssl_object_beside_the_waiting_reader(
    pair: tuple[ChannelConnection, ssl.SSLSocket],
) -> None:
    """The connection's thread waits for the client's next segment while a read-ahead
    stream's thread pushes 50 flows: each arrives whole and in order, and no SSL call
    overlapped another (a blocking read inside the SSL object overlapped every push)."""
    connection, client = pair
    read: list[tuple[Header, bytes]] = []
    reader = threading.Thread(target=lambda: read.append(connection.read_segment(1 << 16)))
    reader.start()
    flows = [b"flow %02d " % i + bytes(3000) for i in range(50)]

    def push_all() -> None:  # as a read-ahead stream's thread
        for flow in flows:
            connection.push(flow, 1)

    pusher = threading.Thread(target=push_all)
    pusher.start()
    expected = b"".join(flows)
    got = b""
    client.settimeout(30)
    while len(got) < len(expected):
        got += client.recv(1 << 16)
    pusher.join(30)
    client.sendall(ASK)  # the reader's segment
    reader.join(30)
    assert got == expected
    assert [header.seg_type for header, _ in read] == [SegType.HEARTBEAT]
    assert Watched.overlaps == 0
    assert connection.info.counters.gets == 50


def test_a_heartbeat_during_a_long_call_is_answered_on_tls(
    pair: tuple[ChannelConnection, ssl.SSLSocket],
) -> None:
    """In a call (busy) on a SHARECNV 1 channel the heartbeats' thread answers the client's
    request, the request in two TLS records, the first alone a part of a segment: that look
    finds nothing whole and waits for nobody; the next one answers. The segment after it
    stays for the connection's thread."""
    connection, client = pair
    connection.conversations = 1
    connection.busy_since = time.monotonic()
    client.sendall(ASK[:10])
    time.sleep(0.1)
    connection.beat_if_due(time.monotonic())  # the heartbeats' thread's look
    client.sendall(ASK[10:] + ASK[:4])
    client.settimeout(30)
    answer = b""
    deadline = time.monotonic() + 30
    while len(answer) < len(ANSWER) and time.monotonic() < deadline:
        connection.beat_if_due(time.monotonic())
        with contextlib.suppress(TimeoutError):
            client.settimeout(0.1)
            answer += client.recv(1 << 10)
    assert answer == ANSWER
    assert bytes(connection._inbox) == ASK[:4]
    assert Watched.overlaps == 0
