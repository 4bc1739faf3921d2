"""Heartbeats during a verb: on a channel without shared conversations the listener sends
them only while an MQGET is in the MQI (IBM: with SHARECNV(0) heartbeats flow only when an
MQGET call is waiting). The Java client failed on one met during a slow MQCONN."""

from __future__ import annotations

import socket
import time

import pytest

from mqkafka.channel.codec import verbs
from mqkafka.channel.codec.segments import Header, SegType
from mqkafka.channel.server import ChannelConnection, ConnectionInfo
from mqkafka.channel.settings import ListenerSettings


def _segments(sock: socket.socket) -> list[int]:
    """The segment types the listener sent, until it closed its end."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    types = []
    while data:
        length = int.from_bytes(data[4:8], "big")
        types.append(data[9])
        data = data[length:]
    return types


@pytest.mark.parametrize(
    ("verb", "heartbeat"),
    [(SegType.MQGET, True), (SegType.MQCONN, False), (SegType.MQPUT, False),
     (SegType.SPI, False), (SegType.MQCMIT, False)],
)  # fmt: skip
def test_a_heartbeat_only_during_an_mqget(verb: int, heartbeat: bool) -> None:
    ours, client = socket.socketpair()
    connection = ChannelConnection(
        ours, ConnectionInfo(1, "test"), ListenerSettings(bootstrap_servers="127.0.0.1:1")
    )

    def slow_verb(seg_type: int, order: str, body: bytes) -> bytes:
        connection.beat_if_due(time.monotonic() + 60)  # as the beat thread sees a long call
        return verbs.reply_body(order, 0, 0, 0, b"")

    connection.session.call = slow_verb  # type: ignore[method-assign]
    request = verbs.ApiHeader(16, 0, 0, 0).to_bytes(">")
    client.sendall(Header(verb, length=28 + len(request)).to_bytes() + request)
    client.sendall(Header(SegType.STATUS_DATA).to_bytes())  # the client's close
    connection._serve()
    ours.close()
    expected = [SegType.HEARTBEAT] if heartbeat else []
    assert _segments(client) == [*expected, verb + 0x10]
