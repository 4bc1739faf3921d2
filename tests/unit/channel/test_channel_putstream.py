"""The put stream (module putstream) against the plain path: the same segments, fed to a
connection's loop once with the stream and once without, put the same messages (data and
MQMD), send the same replies, end the same way, and leave the same async status, counters
and reply template. Hypothesis makes the segment streams: async puts the stream takes and
ones it must leave to the plain path (syncpoint, a refused or warned put, an unknown
handle, split in two segments, a cut MQMD, a data length past the segment), synchronous
puts and MQSTATs between them, in both byte orders, TSH and TSHM, with part of the bytes
already in the inbox when the loop starts."""

from __future__ import annotations

import contextlib
import socket
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.channel.codec import stat, verbs
from mqkafka.channel.codec.mqstructs import PMO_KIND, md_bytes, new_struct
from mqkafka.channel.codec.segments import ChannelError, Flags1, Header, SegType
from mqkafka.channel.server import ChannelConnection, Closed, ConnectionInfo
from mqkafka.channel.session import QmgrObject
from mqkafka.channel.settings import ListenerSettings
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.rules.errors import MQMIError
from mqkafka.mqi.rules.structs import MD

ASYNC = C.MQPMO_ASYNC_RESPONSE | C.MQPMO_NO_SYNCPOINT


class FakeQueue(Queue):
    """Records what is put; data starting R is refused (2051), W warned (2049)."""

    def __init__(self) -> None:  # no MQI connection behind it
        self.got: list[tuple[bytes, dict[str, object], int | None]] = []

    @property
    def name(self) -> str:
        return "FAKE.Q"

    def put(self, msg: Any, *opts: Any) -> None:
        md = opts[0]
        pmo = opts[1].Options if len(opts) > 1 else None
        self.got.append((bytes(msg), dict(md.__dict__), pmo))
        if msg[:1] == b"R":
            raise MQMIError(2, 2051, "put inhibited")
        if msg[:1] == b"W":
            raise MQMIError(1, 2049, "a warning")

    def put_run(self, md: MD, items: Sequence[tuple[bytes, bytes]]) -> tuple[int, MQMIError | None]:
        """As Queue.put_run: put(data, md with the item's MsgId) each, to the first raise."""
        for done, (data, msg_id) in enumerate(items):
            one = MD(**{**md.__dict__, "MsgId": msg_id})
            try:
                self.put(data, one)
            except MQMIError as error:
                return done, error
        return len(items), None


@dataclass
class Connected:
    is_connected: bool = True


@dataclass(frozen=True)
class Put:
    order: str
    hobj: int
    options: int
    md_version: int
    pmo_version: int
    data: bytes
    flaw: str  # "", "split", "md_cut", "long_data"
    priority: int = 0  # before the MsgId in the MQMD
    correl_id: bytes = b""  # after it


def _segment(seg_type: int, order: str, body: bytes, tshm: bool, ids: tuple[int, int],
             flags: int = Flags1.FIRST | Flags1.LAST) -> bytes:  # fmt: skip
    header = Header(
        seg_type, length=(36 if tshm else 28) + len(body), flags1=flags,
        byte_order=1 if order == ">" else 2, multiplexed=tshm,
        conversation=ids[0], request=ids[1],
    )  # fmt: skip
    return header.to_bytes() + body


def _api(order: str, hobj: int, rest: bytes) -> bytes:
    return verbs.ApiHeader(16 + len(rest), 0, 0, hobj).to_bytes(order) + rest


def _put_bytes(put: Put, tshm: bool, ids: tuple[int, int]) -> bytes:
    msg_id = put.data[:24].ljust(24, b"\0")
    given = MD(Format=b"MQSTR", MsgId=msg_id, Priority=put.priority, CorrelId=put.correl_id)
    md = md_bytes(given, put.order, put.md_version)
    if put.flaw == "md_cut":
        md = md[:100]
    pmo = new_struct(PMO_KIND, put.pmo_version, put.order, Options=put.options)
    length = len(put.data) + (50 if put.flaw == "long_data" else 0)
    rest = md + pmo.to_bytes(put.order) + struct.pack(put.order + "i", length) + put.data
    body = _api(put.order, put.hobj, rest)
    if put.flaw != "split":
        return _segment(SegType.MQPUT, put.order, body, tshm, ids)
    half = len(body) // 2
    return _segment(SegType.MQPUT, put.order, body[:half], tshm, ids, Flags1.FIRST) + _segment(
        SegType.MQPUT, put.order, body[half:], tshm, ids, Flags1.LAST
    )


orders = st.sampled_from([">", "<"])
puts = st.builds(
    Put,
    order=orders,
    hobj=st.sampled_from([1, 1, 1, 1, 2, 9]),  # 2: the queue manager object, 9: no handle
    options=st.sampled_from(
        [ASYNC] * 4
        + [
            C.MQPMO_ASYNC_RESPONSE | C.MQPMO_SYNCPOINT,
            C.MQPMO_ASYNC_RESPONSE,
            C.MQPMO_SYNC_RESPONSE,
            ASYNC | C.MQPMO_SET_ALL_CONTEXT,
        ]
    ),
    md_version=st.sampled_from([1, 2]),
    pmo_version=st.sampled_from([1, 2, 3]),
    data=st.sampled_from([b"ok", b"", b"R refused", b"W warned", b"x" * 300]),
    flaw=st.sampled_from([""] * 8 + ["split", "md_cut", "long_data"]),
    priority=st.sampled_from([0, 0, 5]),
    correl_id=st.sampled_from([b"", b"", b"C1".ljust(24, b"\0")]),
)
items = st.one_of(puts, st.sampled_from(["MQSTAT"]))


def _stream(chosen: list[Put | str], tshm: bool) -> bytes:
    out = b""
    for index, item in enumerate(chosen):
        ids = (1, index + 3) if tshm else (0, 0)
        if isinstance(item, Put):
            out += _put_bytes(item, tshm, ids)
        else:
            rest = stat.stat_bytes(stat.STAT_TYPE_ASYNC_ERROR, stat.new_sts(">"), ">")
            out += _segment(SegType.MQSTAT, ">", _api(">", 1, rest), tshm, ids)
    return out


def _serve(blob: bytes, in_inbox: int, tshm: bool, stream: bool) -> tuple[object, ...]:
    ours, theirs = socket.socketpair()
    try:
        connection = ChannelConnection(ours, ConnectionInfo(1, "test"), ListenerSettings("k:1"))
        if not stream:
            connection.put_stream.take = lambda pending: False  # type: ignore[method-assign]
        connection.conversations = int(tshm)
        queue = FakeQueue()
        session = connection.session
        session.qmgr = cast(Any, Connected())
        session.handles = {1: queue, 2: QmgrObject()}
        connection._inbox += blob[:in_inbox]
        theirs.sendall(blob[in_inbox:])
        theirs.shutdown(socket.SHUT_WR)
        try:
            connection._serve()
            ended: object = "returned"
        except Closed:
            ended = "closed"
        except ChannelError as error:
            ended = ("error", error.status)
        ours.shutdown(socket.SHUT_WR)
        replies = b""
        while chunk := theirs.recv(1 << 16):
            replies += chunk
        counters = connection.info.counters
        template = connection.template
        return (
            ended, queue.got, replies, (counters.calls, counters.puts, counters.last_verb),
            session.async_puts.take(stat.STAT_TYPE_ASYNC_ERROR),
            (template.conversation, template.request), bytes(connection._inbox),
        )  # fmt: skip
    finally:
        ours.close()
        theirs.close()


@given(st.lists(items, max_size=12), st.integers(0, 20_000), st.booleans())
def test_the_put_stream_does_what_the_plain_path_does(
    chosen: list[Put | str], in_inbox: int, tshm: bool
) -> None:
    blob = _stream(chosen, tshm)
    in_inbox = min(in_inbox, len(blob))
    assert _serve(blob, in_inbox, tshm, stream=True) == _serve(blob, in_inbox, tshm, stream=False)


@pytest.mark.parametrize("in_inbox", ["all", "none", "cut"])
def test_a_run_of_async_puts_is_taken_by_the_stream(in_inbox: str) -> None:
    """Async puts are the stream's, whether already in the inbox, all still to be received
    (the first after a receive too), or one cut by the inbox's end: the Session's
    dispatcher (the plain path) never sees them."""
    chosen: list[Put | str] = [Put(">", 1, ASYNC, 2, 2, b"m%d" % i, "") for i in range(5)]
    blob = _stream(chosen, tshm=False)
    held = {"all": len(blob), "none": 0, "cut": len(blob) // 2 + 7}[in_inbox]
    ours, theirs = socket.socketpair()
    try:
        connection = ChannelConnection(ours, ConnectionInfo(1, "test"), ListenerSettings("k:1"))
        calls: list[int] = []
        session = connection.session
        original = session.call

        def call(seg_type: int, order: str, body: bytes) -> bytes | None:
            calls.append(seg_type)
            return original(seg_type, order, body)

        session.call = call  # type: ignore[method-assign]
        queue = FakeQueue()
        session.qmgr = cast(Any, Connected())
        session.handles = {1: queue}
        connection._inbox += blob[:held]
        theirs.sendall(blob[held:])
        theirs.shutdown(socket.SHUT_WR)
        with contextlib.suppress(Closed):
            connection._serve()
        assert [got[0] for got in queue.got] == [b"m%d" % i for i in range(5)]
        assert calls == [] and connection.info.counters.puts == 5
    finally:
        ours.close()
        theirs.close()
