"""A client that stops reading its socket (its TCP window full) holds up its own connection
alone (issue 33 point 4: "no other connection notices"). The listener's heartbeats' thread
serves every connection: it never waits on one's write lock or socket, what it sends there
is owed and goes out between flows; and a connection whose writes go nowhere past the limit
is ended, its blocked writer woken. Before, that thread waited on the stalled connection's
write lock, and every other connection's heartbeat requests went unanswered (MQRC 2009)."""

from __future__ import annotations

import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mqkafka.channel.codec.segments import Flags1, Header, SegType
from mqkafka.channel.server import ChannelConnection, ConnectionInfo, Listener
from mqkafka.channel.settings import ListenerSettings
from tests.integration.channel.certs import make_cert, tls_contexts
from tests.unit.channel.observed import client_initial_data

ASK = Header(SegType.HEARTBEAT, flags1=Flags1.FIRST | Flags1.LAST | Flags1.CONFIRM_REQUEST,
             common=True).to_bytes()  # fmt: skip
ANSWER = Header(SegType.HEARTBEAT, flags1=Flags1.FIRST | Flags1.LAST, common=True).to_bytes()
BIG = bytes(64 << 20)  # more than any socket pair's buffers hold


def _exactly(sock: socket.socket, size: int, timeout: float = 30) -> bytes:
    sock.settimeout(timeout)
    out = b""
    while len(out) < size:
        chunk = sock.recv(size - len(out))
        assert chunk, "closed"
        out += chunk
    return out


def _until(check: Callable[[], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check() and time.monotonic() < deadline:
        time.sleep(0.01)


@pytest.fixture
def sockets() -> Iterator[list[socket.socket]]:
    made: list[socket.socket] = []
    yield made
    for sock in made:
        sock.close()


def _connection(
    sockets: list[socket.socket], number: int, settings: ListenerSettings
) -> tuple[ChannelConnection, socket.socket]:
    """A SHARECNV 1 connection in a call (the heartbeats' thread answers for it), and the
    client's end."""
    ours, theirs = socket.socketpair()
    sockets += [ours, theirs]
    connection = ChannelConnection(ours, ConnectionInfo(number, "test"), settings)
    connection.conversations = 1
    connection.busy_since = time.monotonic()
    return connection, theirs


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("certs")
    make_cert(folder, "server", "/CN=localhost", signed=False)
    return folder


def _running(
    sockets: list[socket.socket], settings: ListenerSettings, certs: Path | None
) -> tuple[ChannelConnection, threading.Thread, socket.socket]:
    """A connection its own thread runs, over TLS with ``certs``, past the initial data."""
    ours, theirs = socket.socketpair()
    sockets += [ours, theirs]
    if certs is not None:
        server, client = tls_contexts(certs)
        ours = server.wrap_socket(ours, server_side=True, do_handshake_on_connect=False)
        theirs = client.wrap_socket(theirs, do_handshake_on_connect=False)
        sockets += [ours, theirs]
    connection = ChannelConnection(ours, ConnectionInfo(1, "test"), settings)
    thread = threading.Thread(target=connection.run, daemon=True)
    thread.start()
    if isinstance(theirs, ssl.SSLSocket):
        theirs.do_handshake()
    theirs.sendall(client_initial_data())
    head = _exactly(theirs, 8)
    _exactly(theirs, int.from_bytes(head[4:8], "big") - 8)
    return connection, thread, theirs


@pytest.mark.parametrize("tls", [False, True])
def test_a_client_that_stops_reading_holds_up_no_other_connection(
    sockets: list[socket.socket],
    tls: bool,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Connection 1's client reads nothing while a read-ahead stream pushes a large flow to
    it (the writer blocks, the write lock held); connection 2's client, in a call, keeps
    having its heartbeats answered by the same heartbeats' thread. Past the limit
    connection 1 is ended, in one line: its writer and its own thread wake to the end."""
    settings = ListenerSettings("k:1", write_stall=3.0)
    listener = Listener(settings)
    certs = request.getfixturevalue("certs") if tls else None
    stalled, own_thread, _client1 = _running(sockets, settings, certs)
    healthy, client2 = _connection(sockets, 2, settings)
    listener.connections = {1: stalled, 2: healthy}
    woke: list[OSError] = []

    def push() -> None:  # as a read-ahead stream's thread
        try:
            stalled.push(BIG, 1)
        except OSError as error:
            woke.append(error)

    writer = threading.Thread(target=push, daemon=True)
    writer.start()
    _until(lambda: stalled.transport.stalled(time.monotonic()) > 0.2)
    beats = threading.Thread(target=listener._beats, daemon=True)
    caplog.set_level(logging.INFO, "mqkafka.channel.server")
    beats.start()
    try:
        for _ in range(3):  # each answered in its turn, round after round
            client2.sendall(ASK)
            assert _exactly(client2, len(ANSWER), timeout=20) == ANSWER
        writer.join(30)
        own_thread.join(30)
        assert not writer.is_alive() and len(woke) == 1
        assert not own_thread.is_alive()
        ended = [r.getMessage() for r in caplog.records if "ended" in r.getMessage()]
        assert len(ended) == 1
        assert ended[0].startswith("channel: connection 1 ended: the client read nothing for")
        assert not healthy.ending
        client2.sendall(ASK)
        assert _exactly(client2, len(ANSWER), timeout=20) == ANSWER
    finally:
        listener.stop()


def test_what_is_offered_goes_out_between_flows_never_inside_one(
    sockets: list[socket.socket],
) -> None:
    """A heartbeat's answer offered while a writer holds the lock (its flow still going out
    to a client that reads slowly) is owed, and goes out whole right after that flow; one
    offered with the lock free and the socket full is owed too, and goes out before the
    next flow."""
    settings = ListenerSettings("k:1")
    connection, client = _connection(sockets, 1, settings)
    transport = connection.transport
    flow = b"F" * (8 << 20)
    writer = threading.Thread(target=connection.push, args=(flow, 1), daemon=True)
    writer.start()
    _until(lambda: transport.stalled(time.monotonic()) > 0.1)
    transport.offer(ANSWER)  # returns at once: the writer holds the lock
    assert list(transport.owed) == [ANSWER]
    got = _exactly(client, len(flow) + len(ANSWER))
    writer.join(30)
    assert got == flow + ANSWER and not transport.owed
    # the socket full, nobody writing: the offer takes what fits
    ours = sockets[-2]
    ours.setblocking(False)
    filled = 0
    try:
        while True:
            filled += ours.send(b"G" * 4096)
    except BlockingIOError:
        pass
    ours.setblocking(True)
    transport.offer(ANSWER)
    assert transport.owed and transport.stalled(time.monotonic() + 1) >= 1
    got_after: list[bytes] = []
    reader = threading.Thread(
        target=lambda: got_after.append(_exactly(client, filled + 2 * len(ANSWER)))
    )
    reader.start()
    connection.send(SegType.HEARTBEAT, b"")  # a flow: the owed bytes go first
    reader.join(30)
    assert len(got_after) == 1 and got_after[0][: filled + len(ANSWER)] == b"G" * filled + ANSWER
    assert not transport.owed and transport.stalled(time.monotonic()) == 0.0
