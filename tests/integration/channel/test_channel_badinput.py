"""Bad input ends only its own connection, with a STATUS and one log line; the listener
never dies and keeps no state of ended connections (Hypothesis fuzzes the framing).

No Kafka here: nothing below reaches MQCONN with our queue manager's name, so the MQI is
never asked to connect (the listener's bootstrap address is never dialled)."""

from __future__ import annotations

import logging
import socket
import struct
import threading
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqkafka.channel.codec import segments
from mqkafka.channel.codec.segments import Header, SegType
from mqkafka.channel.server import Listener
from mqkafka.channel.settings import ListenerSettings
from tests.unit.channel.observed import client_initial_data

ID = client_initial_data()


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    made = Listener(
        ListenerSettings(
            bootstrap_servers="127.0.0.1:1", port=0, max_connections=4, max_message=100_000
        )
    )
    made.start()
    thread = threading.Thread(target=made.serve, daemon=True)
    thread.start()
    yield made
    made.stop()
    thread.join(15)
    assert not thread.is_alive()


def _port(listener: Listener) -> int:
    assert listener.server is not None
    return int(listener.server.getsockname()[1])


def _segment(sock: socket.socket) -> bytes | None:
    head = _exactly(sock, 8)
    if head is None:
        return None
    rest = _exactly(sock, int.from_bytes(head[4:8], "big") - 8)
    return None if rest is None else head + rest


def _exactly(sock: socket.socket, size: int) -> bytes | None:
    out = b""
    while len(out) < size:
        chunk = sock.recv(size - len(out))
        if not chunk:
            return None
        out += chunk
    return out


def _converse(listener: Listener, data: bytes, handshake: bool = True) -> list[bytes]:
    """Send ``data`` (after the initial data when ``handshake``); every segment answered."""
    with socket.create_connection(("127.0.0.1", _port(listener)), timeout=20) as sock:
        if handshake:
            sock.sendall(ID)
            answer = _segment(sock)
            assert answer is not None and answer[9] == SegType.INITIAL_DATA
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        except OSError:  # the listener already ended the connection
            pass
        got: list[bytes] = []
        try:
            while (segment := _segment(sock)) is not None:
                got.append(segment)
        except OSError:
            pass
        return got


def _status(got: list[bytes]) -> int | None:
    for segment in got:
        if segment[9] == SegType.STATUS_DATA:
            return int(struct.unpack(">i", segment[32:36])[0])
    return None


def _segment_of(seg_type: int, body: bytes, flags: int = 0x30) -> bytes:
    return Header(seg_type, length=28 + len(body), flags1=flags).to_bytes() + body


def _wait_empty(listener: Listener) -> None:
    deadline = time.monotonic() + 10
    while listener.listing() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert listener.listing() == []


CASES = [
    ("not a TSH", b"HELLO WORLD, THIS IS NOT MQ", False, segments.STATUS_ID_ERROR),
    ("first segment not the initial data", _segment_of(SegType.MQCONN, bytes(100)), False,
     segments.STATUS_SEGMENT_TYPE),
    ("FAP level 3", ID[:32] + b"\x03" + ID[33:], False, segments.STATUS_FAP_LEVEL),
    ("oversized segment", b"TSH " + struct.pack(">I", 10_000_000), True,
     segments.STATUS_LENGTH_ERROR),
    ("unknown segment type", _segment_of(0x70, b""), True, segments.STATUS_SEGMENT_TYPE),
    ("middle segment with no first", _segment_of(SegType.MQPUT, bytes(40), flags=0x20), True,
     segments.STATUS_SEGMENT_ERROR),
    ("verb without an API header", _segment_of(SegType.MQOPEN, b"short"), True,
     segments.STATUS_INVALID_DATA),
    ("flow beyond the message size", _segment_of(SegType.MQPUT, bytes(30_000), flags=0x10)
     + _segment_of(SegType.MQPUT, bytes(30_000), flags=0) * 4, True,
     segments.STATUS_MESSAGE_LENGTH),
]  # fmt: skip


@pytest.mark.parametrize(("what", "data", "handshake", "status"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_ends_that_connection_with_a_status(
    listener: Listener,
    caplog: pytest.LogCaptureFixture,
    what: str,
    data: bytes,
    handshake: bool,
    status: int,
) -> None:
    with caplog.at_level(logging.INFO, logger="mqkafka.channel.server"):
        got = _converse(listener, data, handshake)
        _wait_empty(listener)
    assert _status(got) == status, what
    ended = [r.getMessage() for r in caplog.records if "ended:" in r.getMessage()]
    assert len(ended) == 1 and f"(status {status})" in ended[0]


def test_a_verb_before_mqconn_is_answered_with_hconn_error(listener: Listener) -> None:
    api = struct.pack(">Iiii", 20, 0, 0, 1) + struct.pack(">i", 0)
    got = _converse(listener, _segment_of(SegType.MQCLOSE, api))
    reply = got[0]
    assert reply[9] == SegType.MQCLOSE + 0x10
    assert struct.unpack(">ii", reply[32:40]) == (2, 2018)  # MQRC_HCONN_ERROR


def test_a_heartbeat_request_is_answered(listener: Listener) -> None:
    got = _converse(listener, _segment_of(SegType.HEARTBEAT, b"", flags=0x31))
    assert [(s[9], s[10], len(s)) for s in got] == [(SegType.HEARTBEAT, 0x30, 28)]


def test_a_wrong_queue_manager_name_is_2058(listener: Listener) -> None:
    conn = b"QMX".ljust(48) + b"probe".ljust(28) + bytes(64)
    api = struct.pack(">Iiii", 16 + len(conn), 0, 0, 0)
    got = _converse(listener, _segment_of(SegType.MQCONN, api + conn))
    assert struct.unpack(">ii", got[0][32:40]) == (2, 2058)


def test_connections_beyond_the_maximum_get_status_37(listener: Listener) -> None:
    held = []
    try:
        for _ in range(4):
            sock = socket.create_connection(("127.0.0.1", _port(listener)), timeout=20)
            sock.sendall(ID)
            assert _segment(sock) is not None
            held.append(sock)
        extra = _converse(listener, ID, handshake=False)
        assert _status(extra) == segments.STATUS_MAX_CONNS
    finally:
        for sock in held:
            sock.close()
    _wait_empty(listener)


segment_headers = st.builds(
    Header,
    seg_type=st.integers(0, 255).filter(lambda t: t != SegType.MQCONN),
    flags1=st.integers(0, 255),
    byte_order=st.sampled_from([1, 2, 0, 3]),
)


@st.composite
def garbage(draw: st.DrawFn) -> bytes:
    """Random bytes, or segments with random headers and bodies (some lying about length)."""
    if draw(st.booleans()):
        return draw(st.binary(max_size=400))
    out = b""
    for _ in range(draw(st.integers(1, 4))):
        header = draw(segment_headers)
        body = draw(st.binary(max_size=200))
        raw = bytearray(Header(**{**header.__dict__, "length": 28 + len(body)}).to_bytes())
        if draw(st.booleans()):
            raw[4:8] = struct.pack(">I", draw(st.integers(0, 1 << 20)))
        out += bytes(raw) + body
    return out


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=garbage(), handshake=st.booleans())
def test_fuzzed_framing_never_kills_the_listener(
    listener: Listener, data: bytes, handshake: bool
) -> None:
    _converse(listener, data, handshake)
    _wait_empty(listener)
    again = _converse(listener, b"", handshake=True)  # a new client is still served
    assert again == [] or _status(again) is None


def test_a_client_that_stops_reading_is_ended_alone(caplog: pytest.LogCaptureFixture) -> None:
    """Over TCP: a client asks heartbeats and reads none of the answers, till the listener's
    writer waits on its full socket (and the listener stops reading it). Another connection
    is served meanwhile; past ``write_stall`` the listener ends the stalled one, in one line,
    and its stop is not held up by it (before, the stop's status waited for its writer)."""
    made = Listener(ListenerSettings(bootstrap_servers="127.0.0.1:1", port=0, write_stall=2.0))
    made.start()
    serving = threading.Thread(target=made.serve, daemon=True)
    serving.start()
    ask = _segment_of(SegType.HEARTBEAT, b"", flags=0x31)
    caplog.set_level(logging.INFO, logger="mqkafka.channel.server")
    try:
        stalled = socket.socket()
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.connect(("127.0.0.1", _port(made)))
        stalled.settimeout(20)
        stalled.sendall(ID)
        assert _segment(stalled) is not None
        stalled.settimeout(3)
        flood, sent = ask * 10_000, 0
        with pytest.raises(TimeoutError):  # the listener no longer reads it
            while sent < 1 << 30:
                stalled.sendall(flood)
                sent += len(flood)
        got = _converse(made, ask)  # meanwhile another connection is served
        assert [(s[9], s[10]) for s in got] == [(SegType.HEARTBEAT, 0x30)]
        deadline = time.monotonic() + 30
        while made.listing() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert made.listing() == []
        ended = [r.getMessage() for r in caplog.records if "ended:" in r.getMessage()]
        assert sum("the client read nothing for" in line for line in ended) == 1
        stalled.close()
    finally:
        made.stop()
        serving.join(15)
    assert not serving.is_alive()
