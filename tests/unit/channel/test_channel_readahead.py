"""A read-ahead stream (``channel/readahead.py``) over a queue of our own (a list, no Kafka):
it sends no more than the client's window, each message once and in order on the first
request's id; a check is answered on its own request id with NOTIFICATION 15 when nothing is
there; what it never got stays in the queue when it stops."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from mqkafka.channel.codec import asyncget
from mqkafka.channel.codec.segments import (
    STATUS_INVALID_HOBJ,
    ChannelError,
    Header,
    SegType,
    parse_header,
    peek_length,
)
from mqkafka.channel.readahead import ReadAhead
from mqkafka.mq.reasons import RC
from mqkafka.mqi.rules.errors import MQMIError
from mqkafka.mqi.rules.structs import GMO, MD

MD_V2 = 364


class ListQueue:
    """Messages in a list; a get takes the first (waiting for one, up to its wait)."""

    name = "RA.Q"

    def __init__(self, messages: list[bytes]) -> None:
        self.messages = messages
        self.more = threading.Condition()

    def get(self, max_length: int | None, md: MD, gmo: GMO) -> bytes:
        with self.more:
            if not self.messages:
                self.more.wait(gmo.WaitInterval / 1000)
            if not self.messages:
                raise MQMIError(2, RC.NO_MSG_AVAILABLE, "none")
            return self.messages.pop(0)

    def add(self, data: bytes) -> None:
        with self.more:
            self.messages.append(data)
            self.more.notify()


class Client:
    """The segments the stream sends, parsed as IBM's client would take them."""

    def __init__(self) -> None:
        self.segments: list[tuple[Header, bytes]] = []
        self.arrived = threading.Condition()

    def send(self, data: bytes, messages: int) -> None:
        with self.arrived:
            while data:
                length = peek_length(data[:8], 1 << 20)
                header = parse_header(data[:length])
                self.segments.append((header, data[header.size : length]))
                data = data[length:]
            self.arrived.notify_all()

    def wait_for(self, count: int) -> list[tuple[Header, bytes]]:
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.segments) >= count, 30)
            return list(self.segments)

    def messages(self) -> list[tuple[int, bytes]]:
        """(request id, data) of each ASYNC_MESSAGE."""
        out = []
        for header, body in self.segments:
            if header.seg_type == SegType.ASYNC_MESSAGE:
                _, rest = asyncget.parse_async_header(body, header.order)
                out.append((header.request, rest[MD_V2:]))
        return out


def request_msgs(request_id: int, body: asyncget.MsgRequest) -> tuple[Header, bytes]:
    header = Header(SegType.REQUEST_MSGS, multiplexed=True, conversation=1, request=request_id)
    return header, body.to_bytes(">")


FIRST = asyncget.MsgRequest(
    hobj=5, received=0, requested=10 * (MD_V2 + 10), max_length=4096, options=0x5, wait=3000,
    flags=asyncget.FLAG_SELECTION | 0x08, select_index=1, md_version=2, ccsid=819,
    encoding=273,
)  # fmt: skip


@pytest.fixture
def streaming() -> Iterator[tuple[ReadAhead, ListQueue, Client]]:
    queue = ListQueue([f"message-{i:02d}".encode() for i in range(30)])  # 10 bytes each
    client = Client()
    read_ahead = ReadAhead(client.send, lambda: 32_748)
    yield read_ahead, queue, client
    read_ahead.stop_all()


def test_no_more_than_the_window_once_each_in_order(
    streaming: tuple[ReadAhead, ListQueue, Client],
) -> None:
    read_ahead, queue, client = streaming
    read_ahead.request(*request_msgs(1, FIRST), lambda hobj: queue)
    client.wait_for(10)
    read_ahead.stop(5)  # waits for the stream: nothing more is sent after
    assert client.messages() == [(1, f"message-{i:02d}".encode()) for i in range(10)]
    assert len(queue.messages) == 20  # never got: still on the queue


def test_a_request_opens_the_window_again(streaming: tuple[ReadAhead, ListQueue, Client]) -> None:
    read_ahead, queue, client = streaming
    read_ahead.request(*request_msgs(1, FIRST), lambda hobj: queue)
    client.wait_for(10)
    more = asyncget.MsgRequest(hobj=5, received=10 * (MD_V2 + 10), requested=FIRST.requested,
                               max_length=4096, options=0x5, wait=0, global_index=10)  # fmt: skip
    read_ahead.request(*request_msgs(1, more), lambda hobj: queue)
    client.wait_for(20)
    read_ahead.stop(5)
    assert client.messages() == [(1, f"message-{i:02d}".encode()) for i in range(20)]


def test_a_check_with_nothing_there_is_answered_on_its_own_request_id(
    streaming: tuple[ReadAhead, ListQueue, Client],
) -> None:
    read_ahead, _, client = streaming
    empty = ListQueue([])
    read_ahead.request(*request_msgs(1, FIRST), lambda hobj: empty)
    check = asyncget.MsgRequest(hobj=5, received=0, requested=FIRST.requested, max_length=4096,
                                options=0x5, wait=0, flags=0x0A, global_index=0)  # fmt: skip
    read_ahead.request(*request_msgs(3, check), lambda hobj: empty)
    [(header, body)] = client.wait_for(1)
    assert (header.seg_type, header.request) == (SegType.NOTIFICATION, 3)
    assert asyncget.parse_notification(body, ">") == asyncget.Notification(
        5, asyncget.NC_CLIENT_ASYNC_EMPTY, RC.NO_MSG_AVAILABLE
    )
    empty.add(b"late")  # a message after the check goes on the first request's id
    client.wait_for(2)
    read_ahead.stop(5)
    assert client.messages() == [(1, b"late")]


@pytest.mark.parametrize("handle", [None, object()])
def test_a_request_for_no_queue_ends_the_connection(handle: object) -> None:
    """For a handle that is no queue (the queue manager object, none at all) the connection
    ends with STATUS 0x1D, invalid object handle."""
    read_ahead = ReadAhead(Client().send, lambda: 32_748)
    with pytest.raises(ChannelError) as ended:
        read_ahead.request(*request_msgs(1, FIRST), lambda hobj: handle)
    assert ended.value.status == STATUS_INVALID_HOBJ
    assert not read_ahead.streams
