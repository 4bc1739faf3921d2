"""Heartbeats behind a backlog (issue 33). IBM's SHARECNV 1 client asks a HEARTBEAT about a
second into a call it waits on (an MQSTAT after thousands of async puts) and gives the
connection up (MQRC 2009) when no answer comes in about another second; the request comes
on the socket behind the puts sent before it. So the connection's thread, while it works
through them, reads ahead and answers the heartbeat requests it finds between whole
segments, leaving every other segment in its place: the puts are done once each, in order.
On TLS too (there that thread alone reads: the heartbeats' thread never reads a TLS socket).
Each put takes a few milliseconds, so the backlog outlasts the listener's SCAN_S (the look
is due then): the answer comes between puts, not after the last one.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from mqkafka.channel.codec.segments import Flags1, Header, SegType
from mqkafka.channel.connection import SCAN_S
from mqkafka.channel.heartbeats import take_heartbeats, walk_heartbeats
from mqkafka.channel.server import ChannelConnection, Closed, ConnectionInfo
from mqkafka.channel.settings import ListenerSettings
from tests.integration.channel.certs import make_cert, tls_contexts
from tests.unit.channel.test_channel_putstream import (
    ASYNC,
    Connected,
    FakeQueue,
    Put,
    _put_bytes,
)

ASK = Header(SegType.HEARTBEAT, flags1=Flags1.FIRST | Flags1.LAST | Flags1.CONFIRM_REQUEST,
             common=True).to_bytes()  # fmt: skip
ANSWER = Header(SegType.HEARTBEAT, flags1=Flags1.FIRST | Flags1.LAST, common=True).to_bytes()
CLOSE = Header(SegType.STATUS_DATA, multiplexed=True, length=36).to_bytes()


def _put(index: int, tshm: bool = True) -> bytes:
    put = Put(">", 1, ASYNC, 2, 2, b"m%d" % index, "")
    return _put_bytes(put, tshm, (1, index + 3) if tshm else (0, 0))


P1, P2, P3 = _put(1), _put(2), _put(3, tshm=False)


@pytest.mark.parametrize(
    ("inbox", "limit", "asked", "left"),
    [
        ([ASK], 1 << 20, 1, []),
        ([P1, P2, ASK, P3], 1 << 20, 1, [P1, P2, P3]),
        ([ANSWER, P1, ASK, ASK, P2], 1 << 20, 2, [P1, P2]),  # the client's answer needs none
        ([P1, ASK, P2[:40]], 1 << 20, 1, [P1, P2[:40]]),  # a cut segment stays for the reader
        ([P1, P2[:40], ASK], 1 << 20, 0, [P1, P2[:40], ASK]),  # behind a cut one: unseen yet
        ([P1, ASK], 100, 0, [P1, ASK]),  # a segment over the limit: the reader's to refuse
        ([b"XXXX" + bytes(24), ASK], 1 << 20, 0, [b"XXXX" + bytes(24), ASK]),  # not a TSH
        ([CLOSE, ASK], 1 << 20, 1, [CLOSE]),
    ],
)
def test_heartbeat_requests_are_taken_from_between_whole_segments(
    inbox: list[bytes], limit: int, asked: int, left: list[bytes]
) -> None:
    buffer = bytearray(b"".join(inbox))
    taken = take_heartbeats(buffer, limit)
    assert len(taken) == asked
    assert all(h.common and h.flags1 & Flags1.CONFIRM_REQUEST for h in taken)
    assert bytes(buffer) == b"".join(left)


def test_a_walk_goes_on_where_the_last_one_stopped() -> None:
    """A backlog is walked once, and only when a TSHC is in it (looked for once): the next
    look starts at the first segment not walked."""
    inbox = bytearray(P1 + P2 + P2[:40])
    assert walk_heartbeats(inbox, 0, 1 << 20) == ([], 0, len(inbox) - 3)  # not walked yet
    inbox += P2[40:] + ASK + P1 + P2[:40]
    asked, stop, looked = walk_heartbeats(inbox, 0, 1 << 20, len(P1 + P2) + 37)
    assert len(asked) == 1 and bytes(inbox[:stop]) == P1 + P2 + P2 + P1 and looked == stop
    inbox += P2[40:] + ASK
    asked, stop, looked = walk_heartbeats(inbox, stop, 1 << 20, looked)
    assert len(asked) == 1 and stop == len(inbox) and bytes(inbox) == P1 + P2 + P2 + P1 + P2


class SlowQueue(FakeQueue):
    """A put takes at least PUT_S: a backlog of BACKLOG lasts past the listener's SCAN_S."""

    def put(self, msg: Any, *opts: Any) -> None:
        time.sleep(PUT_S)
        super().put(msg, *opts)


BACKLOG, PUT_S = 120, 0.003
assert BACKLOG * PUT_S > 1.4 * SCAN_S


def _segments(data: bytes) -> list[tuple[bytes, int, int]]:
    """(form, type, flags) of each segment the listener sent."""
    out = []
    while data:
        length = int.from_bytes(data[4:8], "big")
        at = 16 if data[:4] == b"TSHM" else 8
        out.append((data[:4], data[at + 1], data[at + 2]))
        data = data[length:]
    return out


@pytest.fixture(scope="module")
def server_cert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("certs")
    make_cert(folder, "server", "/CN=localhost", signed=False)
    return folder


@contextlib.contextmanager
def _pair(tls: bool, certs: Path | None) -> Iterator[tuple[socket.socket, socket.socket]]:
    """The listener's end and the client's, over TLS when ``tls``."""
    ours, theirs = socket.socketpair()
    try:
        if tls:
            assert certs is not None
            server, client = tls_contexts(certs)
            ours = server.wrap_socket(ours, server_side=True, do_handshake_on_connect=False)
            theirs = client.wrap_socket(theirs, do_handshake_on_connect=False)
            handshake = threading.Thread(target=ours.do_handshake)
            handshake.start()
            theirs.do_handshake()
            handshake.join()
        yield ours, theirs
    finally:
        ours.close()
        theirs.close()


@pytest.mark.parametrize(
    ("stream", "tls"), [(True, False), (False, False), (True, True), (False, True)]
)  # the put stream's path, the plain one; a plain socket, TLS (read by one thread alone)
def test_a_heartbeat_behind_a_backlog_of_async_puts_is_answered_before_they_are_done(
    stream: bool, tls: bool, request: pytest.FixtureRequest
) -> None:
    backlog = BACKLOG
    certs = request.getfixturevalue("server_cert") if tls else None
    with _pair(tls, certs) as (ours, theirs):
        connection = ChannelConnection(ours, ConnectionInfo(1, "test"), ListenerSettings("k:1"))
        connection.conversations = 1
        if not stream:
            connection.put_stream.take = lambda pending: False  # type: ignore[method-assign]
        queue = SlowQueue()
        session = connection.session
        session.qmgr = cast(Any, Connected())
        session.handles = {1: queue}
        answered_after: list[int] = []  # puts done when each heartbeat answer went out
        send_header = connection._send_header

        def sending(header: Header) -> None:
            answered_after.append(len(queue.got))
            send_header(header)

        connection._send_header = sending  # type: ignore[method-assign]
        # the backlog already read; the heartbeat request still on the socket behind more
        connection._inbox += b"".join(_put(i) for i in range(backlog - 2))
        theirs.sendall(_put(backlog - 2) + _put(backlog - 1) + ASK + CLOSE)
        connection._scanned = time.monotonic()  # as after a read that found no backlog
        with contextlib.suppress(Closed):
            connection._serve()
        ours.close()  # the client's reads end (TLS: an end without close_notify, taken as one)
        sent = b""
        while chunk := theirs.recv(1 << 16):
            sent += chunk
        assert [got[0] for got in queue.got] == [b"m%d" % i for i in range(backlog)]
        assert len(answered_after) == 1 and answered_after[0] < backlog
        assert _segments(sent) == [(b"TSHC", SegType.HEARTBEAT, Flags1.FIRST | Flags1.LAST)]
