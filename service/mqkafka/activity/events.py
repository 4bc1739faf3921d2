"""Activity events (``schemas/activity_event.avsc``) and their Avro encoding.

The encoder is written for this one schema: fastavro's generic writer costs more per event
than the whole publication path can spare (issue 7 allows 10% of its throughput), while the
fixed layout below is a handful of byte appends. ``FastEncoder`` goes further on the hot path:
it keeps the encoded strings and the middle of the events that repeat. One delivery event,
best of 7 x 20,000 on the loaded 2-core machine (issue 22): fastavro ``schemaless_writer``
14.5 us, ``encode`` 5.5 us, ``FastEncoder.event`` 3.3 us, ``FastEncoder.assemble`` from a
kept middle 0.8 us - the publication path is ~20 us, and a publication makes one event per
copy plus one. ``tests/unit/activity`` checks, with Hypothesis, that fastavro reads exactly
what ``encode`` writes for any event and that ``FastEncoder`` writes the same bytes as
``encode``.

A replayed fan-out-1 publication (issue 34: activity's cost to a worker's throughput) is its
plan's ``fan_out_1_template`` filled in by ``blocks``: compiled, the template is copied into
the open record with the publication's MsgId, sizes and times; in the Python twin it is a
``bytes % args``. Before the compiled writer, keeping a tuple per publication and encoding
the batch's in one loop at its end cost more than the format (+1.65 against +1.35 us a
publication over no activity, paired medians of 80 interleaved batches of 2,000, the loaded
2-core VM), and so did a vectorised version of that loop: each object a publication's events
touch after the replay costs a cache miss.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from mqkafka import resources

COMMAND, DELIVERY = 0, 1
_DOUBLE: Final = struct.Struct("<d")


@dataclass(frozen=True, slots=True)
class ActivityEvent:
    kind: int  # COMMAND or DELIVERY (the enum's index)
    time_ms: int
    put_time_ms: int
    qmgr: str
    queue: str
    command: str | None
    completion: str
    reason: int
    user_id: str
    identity_queue: str | None
    correl_id: bytes | None
    sub_name: str | None
    topics: tuple[str, ...]
    msg_id: bytes
    persistent: bool
    bytes: int
    latency_ms: float

    def as_record(self) -> dict[str, Any]:
        """The event as fastavro / Spark see it."""
        record = {name: getattr(self, name) for name in self.__slots__}
        record["kind"] = ("COMMAND", "DELIVERY")[self.kind]
        record["topics"] = list(self.topics)
        return record


class ReplayedPlan(Protocol):
    """What a replayed publication plan keeps of its events (``service.plans.Plan``)."""

    @property
    def activity(self) -> tuple[bytes, bytes]:  # the command event's middle, persistence
        ...

    @property
    def copy_events(self) -> Sequence[tuple[bytes, bytes, int]]:  # middle, persistence, head
        ...

    @property
    def length(self) -> int:  # of the message before its body
        ...

    @property
    def template(self) -> bytes | None:  # fan_out_1_template's, None for another fan-out
        ...


def fan_out_1_template(
    command: tuple[bytes, bytes], copies: Sequence[tuple[bytes, bytes, int]]
) -> bytes | None:
    """A fan-out-1 publication's two events (``command``: the command event's middle and
    persistence byte; ``copies``: the one delivery event's middle, persistence byte and head
    size) as a ``bytes % args`` format whose arguments are what changes per publication,
    in order: ``stamps(...)[0]``, the MsgId, the message's size as an Avro long,
    ``stamps(...)[1]``, the MsgId again, the copy's size as an Avro long, ``stamps(...)[2]``.
    The MsgId is an MQ one, 24 bytes (its length is in the format: two arguments fewer to
    convert per publication); another goes the general way. None for another fan-out. One
    object per plan, so a replayed publication reads one kept object (the join of the
    middles read three, out of the cache by then)."""
    if len(copies) != 1:
        return None
    (middle, persistent), (copy_middle, copy_persistent, _) = command, copies[0]
    return b"".join((
        b"%b", _literal(middle), MSG_ID_LENGTH_24, b"%b", persistent, b"%b%b",
        _literal(copy_middle), MSG_ID_LENGTH_24, b"%b", copy_persistent, b"%b%b",
    ))  # fmt: skip


def _literal(data: bytes) -> bytes:
    return data.replace(b"%", b"%%")


def stamps(stamp: bytes, latency: bytes) -> tuple[bytes, bytes, bytes]:
    """The parts of ``fan_out_1_template``'s arguments that a publication's times decide
    (``stamp``: the encoded processing and put times; ``latency``: the encoded double): the
    block's count and the command kind and stamp; the command's latency, the delivery kind
    and its stamp; the delivery's latency."""
    return _TWO_EVENTS + stamp, latency + KIND_BYTES[DELIVERY] + stamp, latency


def _long(value: int, out: bytearray) -> None:
    n = (value << 1) ^ (value >> 63)  # zigzag
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _varint(value: int) -> bytes:
    out = bytearray()
    _long(value, out)
    return bytes(out)


def _bytes(data: bytes, out: bytearray) -> None:
    _long(len(data), out)
    out += data


def _string(text: str, out: bytearray) -> None:
    _bytes(text.encode("utf-8"), out)


def _optional_string(text: str | None, out: bytearray) -> None:
    if text is None:
        out.append(0)  # union branch 0: null
    else:
        out.append(2)  # union branch 1, zigzag
        _string(text, out)


def encode(event: ActivityEvent) -> bytes:
    out = bytearray()
    out.append(event.kind << 1)
    _long(event.time_ms, out)
    _long(event.put_time_ms, out)
    _string(event.qmgr, out)
    _string(event.queue, out)
    _optional_string(event.command, out)
    _string(event.completion, out)
    _long(event.reason, out)
    _string(event.user_id, out)
    _optional_string(event.identity_queue, out)
    if event.correl_id is None:
        out.append(0)
    else:
        out.append(2)
        _bytes(event.correl_id, out)
    _optional_string(event.sub_name, out)
    if event.topics:
        _long(len(event.topics), out)
        for topic in event.topics:
            _string(topic, out)
    out.append(0)  # end of the array
    _bytes(event.msg_id, out)
    out.append(1 if event.persistent else 0)
    _long(event.bytes, out)
    out += _DOUBLE.pack(event.latency_ms)
    return bytes(out)


def load_schema() -> dict[str, Any]:
    return resources.schema("activity_event")


def batch_schema() -> dict[str, Any]:
    """The schema of an activity record's value, ActivityBatch, with ActivityEvent inlined
    (Spark's ``from_avro`` and other one-schema readers need it whole)."""
    schema = resources.schema("activity_batch")
    (events,) = schema["fields"]
    assert events["type"]["items"] == "mqkafka.ActivityEvent"
    events["type"]["items"] = load_schema()
    return schema


def encode_batch(events: Sequence[bytes]) -> bytes:
    """An ActivityBatch of already encoded events: an Avro array is its item count, the items,
    and a zero count that ends it."""
    return join_blocks([encode_block(events)] if events else [])


def encode_block(events: Sequence[bytes]) -> bytes:
    """Events as one block of an Avro array: their count, then the events."""
    count = bytearray()
    _long(len(events), count)
    return b"".join((count, *events))


def join_blocks(blocks: Sequence[bytes]) -> bytes:
    """An ActivityBatch from array blocks (Avro writes an array as blocks, ended by a zero)."""
    return b"".join((*blocks, b"\x00"))


class FastEncoder:
    """``encode`` for the hot path: strings that repeat (queue manager, queues, user ids,
    topics, command names) are encoded once and kept, so an event is a few joins."""

    def __init__(self, limit: int = 65536) -> None:
        self._strings: dict[str, bytes] = {}
        self.varints: dict[int, bytes] = {}  # times within a millisecond, sizes, reasons
        self._limit = limit
        # stamp_of's last processing and put times, encoded
        self._time_ms = self._put_ms = -1
        self._time = self._put = b""
        self._highs: dict[int, bytes] = {}  # time_long's: a long's bytes after its first
        # template_times's processing time and what it keeps for it
        self._head_ms, self._head = -1, b""
        self._betweens: dict[int, tuple[bytes, bytes]] = {}
        self._latencies: dict[int, bytes] = {}  # stamp_of's latencies by ms, as Avro doubles

    def text(self, value: str) -> bytes:
        found = self._strings.get(value)
        if found is None:
            out = bytearray()
            _string(value, out)
            found = bytes(out)
            if len(self._strings) >= self._limit:
                self._strings.clear()
            self._strings[value] = found
        return found

    def optional(self, value: str | None) -> bytes:
        return b"\x00" if value is None else b"\x02" + self.text(value)

    def varint(self, value: int) -> bytes:
        found = self.varints.get(value)
        if found is None:
            out = bytearray()
            _long(value, out)
            found = bytes(out)
            if len(self.varints) >= self._limit:
                self.varints.clear()
            self.varints[value] = found
        return found

    def time_long(self, value: int) -> bytes:
        """``varint`` for values that seldom repeat but move slowly, such as times in ms (a
        put time is new every millisecond): the bytes after the first, the value's higher
        bits, are kept (they change every 64 ms for a time) and the first is looked up, where
        ``_long``'s loop costs ~0.7 us a time (seven bytes of a ms since 1970)."""
        n = (value << 1) ^ (value >> 63)  # zigzag
        if n < 0x80:
            return _ONE_BYTE[n]
        high = self._highs.get(n >> 7)
        if high is None:
            out = bytearray()
            rest = n >> 7
            while rest > 0x7F:
                out.append((rest & 0x7F) | 0x80)
                rest >>= 7
            out.append(rest)
            high = bytes(out)
            if len(self._highs) >= self._limit:
                self._highs.clear()
            self._highs[n >> 7] = high
        return _CONTINUED[n & 0x7F] + high

    def event(
        self,
        kind: int,
        time_ms: int,
        put_time_ms: int,
        qmgr: str,
        queue: str,
        command: str | None,
        completion: str,
        reason: int,
        user_id: str,
        identity_queue: str | None,
        correl_id: bytes | None,
        sub_name: str | None,
        topics: tuple[str, ...] | list[str],
        msg_id: bytes,
        persistent: bool,
        size: int,
        latency_ms: float,
    ) -> bytes:
        middle = self.middle(
            qmgr, queue, command, completion, reason, user_id, identity_queue, correl_id,
            sub_name, topics,
        )  # fmt: skip
        return self.assemble(
            kind, time_ms, put_time_ms, middle, msg_id, persistent, size, latency_ms
        )

    def middle(
        self,
        qmgr: str,
        queue: str,
        command: str | None,
        completion: str,
        reason: int,
        user_id: str,
        identity_queue: str | None,
        correl_id: bytes | None,
        sub_name: str | None,
        topics: tuple[str, ...] | list[str],
    ) -> bytes:
        """The fields from ``qmgr`` to ``topics``: what the events of one subscription (or one
        publisher's publications) share, so it can be kept and ``assemble``d again."""
        varint = self.varint
        text = self.text
        optional = self.optional
        parts = [
            text(qmgr),
            text(queue),
            optional(command),
            text(completion),
            varint(reason),
            text(user_id),
            optional(identity_queue),
        ]
        if correl_id is None:
            parts.append(b"\x00")
        else:
            parts += (b"\x02", varint(len(correl_id)), correl_id)
        parts.append(optional(sub_name))
        if topics:
            parts.append(varint(len(topics)))
            parts += [text(topic) for topic in topics]
        parts.append(b"\x00")
        return b"".join(parts)

    def assemble(
        self,
        kind: int,
        time_ms: int,
        put_time_ms: int,
        middle: bytes,
        msg_id: bytes,
        persistent: bool,
        size: int,
        latency_ms: float,
    ) -> bytes:
        """An event from its ``middle`` and the fields that change from event to event."""
        varint = self.varint
        return b"".join(
            (
                KIND_BYTES[kind],
                varint(time_ms),
                varint(put_time_ms),
                middle,
                varint(len(msg_id)),
                msg_id,
                BOOLEAN_BYTES[persistent],
                varint(size),
                _DOUBLE.pack(latency_ms),
            )
        )

    def publication_block(
        self,
        time_ms: int,
        put_time_ms: int,
        msg_id: bytes,
        command: tuple[bytes, bytes],
        size: int,
        copies: Sequence[tuple[bytes, bytes, int]],
        body_size: int,
    ) -> bytes:
        """One publication's events as one Avro array block (its count, then the events): the
        command event (``command``: its middle and persistence byte; ``size`` the message's)
        and a delivery event per copy (its middle, persistence byte, and size less the body),
        each naming the publication's ``msg_id``. Fan-out 1 goes through
        ``fan_out_1_template``, as the dispatcher's replays do; tests/unit/activity compares
        it with the general path."""
        stamp, latency = self.stamp_of(time_ms, put_time_ms)
        template = fan_out_1_template(command, copies)
        if template is None or len(msg_id) != MQ_MSG_ID_LENGTH:
            return self.general_block(stamp, latency, msg_id, command, size, copies, body_size)
        head, between, tail = stamps(stamp, latency)
        varint = self.varint
        copy_size = varint(copies[0][2] + body_size)
        return template % (head, msg_id, varint(size), between, msg_id, copy_size, tail)

    def stamp_of(self, time_ms: int, put_time_ms: int) -> tuple[bytes, bytes]:
        """The encoded times (processing, put) and latency of events at ``time_ms`` put at
        ``put_time_ms``. Put times are not kept in the varint cache (each is new), only the
        last one is."""
        if time_ms != self._time_ms:
            self._time_ms, self._time = time_ms, self.time_long(time_ms)
        if put_time_ms != self._put_ms:
            self._put_ms, self._put = put_time_ms, self.time_long(put_time_ms)
        # a few distinct latencies a batch: the batch's time less its put times
        latency_ms = time_ms - put_time_ms
        latency = self._latencies.get(latency_ms) or self._latency(latency_ms)
        return self._time + self._put, latency

    def template_times(self, time_ms: int, put_time_ms: int) -> tuple[bytes, bytes, bytes]:
        """``stamps(*self.stamp_of(time_ms, put_time_ms))`` in one call: a replay's hot path
        meets a put time of its own every few publications (a live flow: at nearly every one).
        Kept: the head's part before the put time, and by latency (a few a batch: its time
        less its put times) the latency and ``between``'s part before the put time."""
        if time_ms != self._head_ms:
            self._head_ms, self._head = time_ms, _TWO_EVENTS + self.time_long(time_ms)
            self._betweens = {}
        n = (put_time_ms << 1) ^ (put_time_ms >> 63)  # zigzag; time_long, inlined
        high = self._highs.get(n >> 7)  # never 0: a long of one byte is not kept
        put = self.time_long(put_time_ms) if high is None else _CONTINUED[n & 0x7F] + high
        latency_ms = time_ms - put_time_ms
        kept = self._betweens.get(latency_ms)
        if kept is None:
            latency = self._latencies.get(latency_ms) or self._latency(latency_ms)
            kept = latency, latency + _DELIVERY_KIND + self._head[2:]
            if len(self._betweens) >= self._limit:
                self._betweens.clear()
            self._betweens[latency_ms] = kept
        latency, between = kept
        return self._head + put, between + put, latency

    def _latency(self, latency_ms: int) -> bytes:
        latency = _DOUBLE.pack(float(latency_ms))
        if len(self._latencies) >= self._limit:
            self._latencies.clear()
        self._latencies[latency_ms] = latency
        return latency

    def general_block(
        self,
        stamp: bytes,
        latency: bytes,
        msg_id: bytes,
        command: tuple[bytes, bytes],
        size: int,
        copies: Sequence[tuple[bytes, bytes, int]],
        body_size: int,
    ) -> bytes:
        """``publication_block`` for any fan-out and MsgId, from the encoded times."""
        varint = self.varint
        publication = varint(len(msg_id)) + msg_id
        middle, persistent = command
        parts = [varint(1 + len(copies)), b"\x00", stamp, middle, publication, persistent]
        parts += (varint(size), latency)
        for middle, persistent, head in copies:
            parts += (b"\x02", stamp, middle, publication, persistent)
            parts += (varint(head + body_size), latency)
        return b"".join(parts)


_TWO_EVENTS: Final = b"\x04\x00"  # an array block of two events, the first a COMMAND
_DELIVERY_KIND: Final = b"\x02"  # KIND_BYTES[DELIVERY]
MQ_MSG_ID_LENGTH: Final = 24
MSG_ID_LENGTH_24: Final = b"\x30"  # 24, an MQ MsgId's length, as an Avro long
KIND_BYTES: Final = (b"\x00", b"\x02")  # COMMAND, DELIVERY as the enum's zigzag index
BOOLEAN_BYTES: Final = (b"\x00", b"\x01")  # False, True
_ONE_BYTE: Final = tuple(bytes((n,)) for n in range(0x80))  # a long's last (or only) byte
_CONTINUED: Final = tuple(bytes((n | 0x80,)) for n in range(0x80))  # a byte more follows
