"""Read ahead: the listener pushes a queue's messages to IBM's client before its application
asks, on a channel with conversations (SHARECNV 1), so an MQGET loop costs no round trip.

What the 9.4 Java client does (observed against this listener, ``docs/channel-protocol.md``):
a queue opened with MQOO_READ_AHEAD and got from outside syncpoint is not asked with MQGET
(the listener's MQOPEN reply says the queue's default is no read ahead, so
MQOO_READ_AHEAD_AS_Q_DEF does not read ahead): at its application's first MQGET the client
sends REQUEST_MSGS (the get options, the wait, the largest message it takes, how many bytes it
wants) and takes the messages from the ASYNC_MESSAGE flows that come. It never sends a plain
MQGET on such a handle (tests/integration/channel/test_channel_readahead.py): a get matching
another MsgId or CorrelId is a REQUEST_MSGS with that selection (and, the window full, all
received and room for one message), which the stream follows from its next get; a get under
syncpoint once read ahead has begun the client refuses itself (2046); a first get under
syncpoint makes it ask 1 byte at a time, a message per MQGET, which the stream gets with the
client's options, in the connection's unit of work.

A stream per such handle runs in a thread of its own: it gets each message from the MQI with
the client's options (MQGMO_NO_SYNCPOINT when it reads ahead: outside syncpoint), in order, right
before it sends it, so a message is got only as the listener sends it: what the MQI's
share-group getter has fetched from Kafka and not handed out stays there and goes back with
the handle at MQCLOSE or disconnect. The messages there at once go out together, 8 kB at a
time (one send; 64 kB at a time starved the client, which asks for more with a fifth of its
100 kB window left). A message whose send fails because the connection broke is lost, as MQ
allows for a message read ahead; so is one the client received and its application did not
get before MQCLOSE (MQ's own read ahead discards its buffer then). A persistent message on
such a handle goes the same way: the stream cannot tell it before it has got it. The stream
sends no more than the client asked for (the bytes it wants beyond those it said it has).

Fast path: a message that fits one segment is packed in one go (``asyncget.async_single``,
4.7 us against 102 us through ``AsyncHeader`` and ``async_segments`` measured with timeit
on the loaded 2-core VM; a Hypothesis test holds the two to the same bytes).
"""

from __future__ import annotations

import itertools
import logging
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

from mqkafka.channel.codec import asyncget
from mqkafka.channel.codec.mqstructs import md_bytes_fast
from mqkafka.channel.codec.segments import (
    STATUS_INVALID_HOBJ,
    TSHM_LENGTH,
    ChannelError,
    Flags1,
    Header,
    SegType,
)
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.rules.structs import GMO, MD

log = logging.getLogger(__name__)

SLICE_MS = 200  # a stream's MQI wait at a time: how soon it sees a stop or a new request
MAX_MESSAGE = 104_857_600  # MQ's largest message: the client takes any size it is sent
BATCH_BYTES = 8192  # segments sent at once: messages got while more are there at once
WAITED_S = 0.002  # a get that took longer waited on Kafka: send what was got before the next
Send = Callable[[bytes, int], None]  # whole segments sent at once, the messages in them
_FIRST = int(Flags1.FIRST)
_LAST = int(Flags1.LAST)
_ASYNC = int(SegType.ASYNC_MESSAGE)
_SINGLE_HEAD = 54  # the first segment's header before the queue name
_NOTIFICATION = int(SegType.NOTIFICATION)


@runtime_checkable
class Gettable(Protocol):
    """What a stream asks of its queue (the MQI's :class:`Queue`)."""

    @property
    def name(self) -> str: ...

    def get(self, max_length: int | None, md: MD, gmo: GMO) -> bytes: ...


@dataclass
class Stream:
    """One handle's read ahead: what the client asked, what was sent."""

    queue: Gettable
    template: Header  # TSHM on the conversation and request id of the client's requests
    request: asyncget.MsgRequest
    send: Send
    max_segment: int
    next_global: Callable[[], int]  # the connection's message count (all its handles)
    sent_bytes: int = 0  # MQMD and data of the messages sent
    acked_bytes: int = 0  # what the client said it received (each request adds its share)
    index: int = 0
    check: Header | None = None  # a check to answer, on its own request id
    stop: threading.Event = field(default_factory=threading.Event)
    wake: threading.Condition = field(default_factory=threading.Condition)
    thread: threading.Thread | None = None
    _gmo: GMO = field(default_factory=GMO)
    _name: bytes = b""  # the resolved queue name as the ASYNC_MESSAGE header carries it
    _prefix: tuple[Header | None, bytes, bytes] = (None, b"", b"")

    def __post_init__(self) -> None:
        self._name = asyncget.padded_name(self.queue.name)

    def update(self, request: asyncget.MsgRequest, template: Header) -> None:
        """A later REQUEST_MSGS: bytes received since the last, the bytes wanted now. A
        check (flag 0x02: the application's wait ended with nothing read ahead) comes on a
        request id of its own and waits for its answer there; messages go on the first's."""
        with self.wake:
            if not request.selection:  # a later request keeps the first one's selection
                request = replace(
                    self.request, received=request.received, requested=request.requested,
                    wait=request.wait, flags=request.flags, global_index=request.global_index,
                )  # fmt: skip
            self.acked_bytes += request.received
            if request.flags & asyncget.FLAG_CHECK:
                self.check = template
            else:
                self.template = template
            self.request = request
            self.wake.notify()

    def _room(self) -> bool:
        return self.sent_bytes - self.acked_bytes < self.request.requested

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                with self.wake:
                    while not (self._room() or self.check or self.stop.is_set()):
                        self.wake.wait(SLICE_MS / 1000)
                if self.stop.is_set():
                    return
                self._pump()
        except OSError as error:
            log.debug("channel: read ahead of %s ended: %s", self.queue.name, error)
        except Exception:  # a bug of ours: the stream ends, the connection goes on
            log.exception("channel: read ahead of %s failed", self.queue.name)

    def _pump(self) -> None:
        """Messages got and sent while the client has room: the first get waits a slice,
        the next ones take only what is there at once, and go out together, unless a get
        had to wait (on Kafka): what was got goes out before the next one, which may wait
        too (an MQI MQGMO_NO_WAIT get waits up to a fetch round, 250 ms, when its last poll
        brought messages: a message put and got in turn waited that long in a batch)."""
        request, check = self.request, self.check
        options = request.options | C.MQGMO_WAIT
        match = request.match_options
        gmo = self._gmo  # one, its fields set afresh: a GMO made costs ~5 us
        gmo.WaitInterval = 0 if check is not None else SLICE_MS
        out: list[bytes] = []
        size = got = 0
        while self._room():
            md = MD()
            if match & asyncget.MATCH_MSG_ID:
                md.MsgId = request.msg_id
            if match & asyncget.MATCH_CORREL_ID:
                md.CorrelId = request.correl_id
            gmo.Options, gmo.MatchOptions = options, match
            began = time.monotonic()
            try:
                data = self.queue.get(MAX_MESSAGE, md, gmo)
            except MQError as error:
                if error.reason != RC.NO_MSG_AVAILABLE:
                    log.debug("channel: read ahead of %s: %s", self.queue.name, error)
                    self.stop.wait(SLICE_MS / 1000)
                break
            gmo.WaitInterval = 0
            got += 1
            size += self._segments(request, md, data, out)
            if size >= BATCH_BYTES or self.stop.is_set():
                break
            if time.monotonic() - began > WAITED_S:  # it waited: the next may wait too
                self.send(b"".join(out), got)
                out.clear()
                size = got = 0
        if check is not None:  # answered, after any message got meanwhile
            out.append(self._empty(request, check))
            with self.wake:
                if self.check is check:
                    self.check = None
        if out:
            self.send(b"".join(out), got)

    def _segments(self, request: asyncget.MsgRequest, md: MD, data: bytes, out: list[bytes]) -> int:
        """One message's ASYNC_MESSAGE segments added to ``out``; their length."""
        template = self.template
        self.index += 1
        global_index = self.next_global()
        order = template.order
        md_bytes = md_bytes_fast(md, order, request.md_version or 2)
        self.sent_bytes += len(md_bytes) + len(data)
        room = self.max_segment - TSHM_LENGTH
        if len(self._name) + len(md_bytes) + len(data) + _SINGLE_HEAD <= room:  # fast path
            body = asyncget.async_single(
                order, request.hobj, self.index, global_index, request.select_index,
                self._name, md_bytes, data,
            )  # fmt: skip
            length = template.size + len(body)
            if self._prefix[0] is not template:  # the header's bytes around its length
                whole = template.bytes_for(_ASYNC, 0, _FIRST | _LAST)
                self._prefix = (template, whole[:4], whole[8:])
            _, struc_id, rest = self._prefix
            out.append(struc_id + length.to_bytes(4, "big") + rest + body)
            return length
        head = asyncget.AsyncHeader(
            hobj=request.hobj, msg_index=self.index, global_index=global_index,
            seg_length=len(data), select_index=request.select_index, reason=0,
            total_length=len(data), actual_length=len(data), resolved_queue=self.queue.name,
        )  # fmt: skip
        size = 0
        for body, first, last in asyncget.async_segments(head, md_bytes, data, room, order):
            flags = (_FIRST if first else 0) | (_LAST if last else 0)
            out.append(template.bytes_for(_ASYNC, template.size + len(body), flags) + body)
            size += template.size + len(body)
        return size

    def _empty(self, request: asyncget.MsgRequest, template: Header) -> bytes:
        """The answer to the client's check when no message is there: NOTIFICATION 15
        (client async empty) on the check's request id; its MQGET returns MQRC 2033 (on
        the other request id the client takes it for a failure)."""
        note = asyncget.Notification(
            request.hobj, asyncget.NC_CLIENT_ASYNC_EMPTY, RC.NO_MSG_AVAILABLE
        ).to_bytes(template.order)
        head = template.bytes_for(_NOTIFICATION, template.size + len(note), _FIRST | _LAST)
        return head + note


@dataclass
class ReadAhead:
    """One connection's streams, by object handle."""

    send: Send
    max_segment: Callable[[], int]  # the connection's, agreed at its start
    streams: dict[int, Stream] = field(default_factory=dict)
    counted: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def request(
        self, header: Header, body: bytes, handle_of: Callable[[int], object | None]
    ) -> None:
        """A REQUEST_MSGS: the handle's stream starts, or hears the client's new request."""
        request = asyncget.parse_request(body, header.order)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("channel: REQUEST_MSGS hobj %d received %d requested %d wait %d flags "
                      "%#x index %d", request.hobj, request.received, request.requested,
                      request.wait, request.flags, request.global_index)  # fmt: skip
        template = replace(header, seg_type=SegType.ASYNC_MESSAGE)
        stream = self.streams.get(request.hobj)
        if stream is not None:
            stream.update(request, template)
            return
        queue = handle_of(request.hobj)
        if not isinstance(queue, Gettable):  # the queue manager object, or a handle closed
            raise ChannelError(STATUS_INVALID_HOBJ, f"REQUEST_MSGS for handle {request.hobj}")
        stream = Stream(
            queue, template, request, self.send, self.max_segment(), self.counted.__next__
        )
        stream.thread = threading.Thread(
            target=stream.run, name=f"readahead-{request.hobj}", daemon=True
        )
        self.streams[request.hobj] = stream
        stream.thread.start()

    def before(self, seg_type: int, request: bytes, order: str) -> None:
        """Before a verb: MQCLOSE of a streamed handle ends its stream, MQDISC all of them
        (what the MQI read and did not hand out then goes back with the handle)."""
        if seg_type == SegType.MQDISC:
            self.stop_all()
        elif seg_type == SegType.MQCLOSE and len(request) >= 16:
            self.stop(struct.unpack_from(order + "i", request, 12)[0])

    def stop(self, hobj: int) -> None:
        """The stream of ``hobj`` ends (waits for its MQI call: one slice at most)."""
        stream = self.streams.pop(hobj, None)
        if stream is None:
            return
        stream.stop.set()
        with stream.wake:
            stream.wake.notify()
        if stream.thread is not None:
            stream.thread.join()

    def stop_all(self) -> None:
        for hobj in list(self.streams):
            self.stop(hobj)


__all__ = ["ReadAhead", "Stream"]
