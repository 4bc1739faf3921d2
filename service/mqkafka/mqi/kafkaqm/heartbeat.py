"""Connection heartbeats: who is connected and what each connection holds open (pure).

Every connection writes a :class:`Heartbeat` to the compacted topic ``mqk-connections``
(key = connection id) every ``heartbeat_interval`` and whenever what it holds changes; a
clean MQDISC writes a tombstone. Every client replays that topic into a
:class:`ConnectionTable`, which answers the questions seed 004 asks of *other* applications:

| question | answered from |
|---|---|
| is the queue in use by another application? | live heartbeats with open handles on it |
| is there uncommitted MQGET/MQPUT work against it? | live heartbeats with ``puts``/``gets`` |
| has the creator of a temporary dynamic queue ended? | no heartbeat for ``timeout`` seconds |

Time is the broker's: the topic uses LogAppendTime, and "now" is the newest timestamp seen
(a client's own beats keep it moving), so no two machines' clocks are ever compared.

A beat also carries the browse barrier's two maps (:mod:`.browsebarrier`): ``flush``, the
queues this connection is about to browse with its request number, and ``flushed``, per
requesting connection the highest request number this one answered; with an answer,
``held``: per queue, the messages it got under syncpoint and has not committed (MQ's browse
never shows them), and ``acked``: per queue, the topic's id and the spans of records it
acknowledged at or above the share group's start offset (:mod:`.ackedspans`: what a browse
that may not read Kafka's share state passes over). All are left out of the record while
empty, so a beat without them is the same bytes as before.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm.ackedspans import (
    LEDGER_PREFIX,
    NONE,
    AckedSpans,
    LedgerEntry,
    decode_ledger,
    decode_lines,
    encode_lines,
)
from mqkafka.mqi.rules.dynamic import Liveness
from mqkafka.mqi.rules.matching import Position

SCHEMA = 1


@dataclass(frozen=True)
class QueueUse:
    """What one connection holds on one queue: open handles (and how many of them are input
    handles, exclusive or shared) and its uncommitted puts and gets."""

    handles: int = 0
    input_exclusive: int = 0
    input_shared: int = 0
    puts: int = 0
    gets: int = 0

    def __post_init__(self) -> None:
        values = (self.handles, self.input_exclusive, self.input_shared, self.puts, self.gets)
        if any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in values):
            raise MQError(RC.OBJECT_DAMAGED, f"queue use counts must be >= 0: {values}")

    @property
    def idle(self) -> bool:
        return not (self.handles or self.puts or self.gets)

    @property
    def has_work(self) -> bool:
        return bool(self.puts or self.gets)

    @property
    def getting(self) -> bool:
        """A getter of the queue for the browse barrier: an input handle, or messages got
        under syncpoint and not yet committed (held after its MQCLOSE, until MQCMIT/MQBACK)."""
        return bool(self.input_shared or self.input_exclusive or self.gets)


def _frozen(mapping: Mapping[str, QueueUse]) -> Mapping[str, QueueUse]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Heartbeat:
    connection: str
    user: str = ""
    appl: str = ""
    host: str = ""
    pid: int = 0
    queues: Mapping[str, QueueUse] = field(default_factory=lambda: _frozen({}))
    flush: Mapping[str, int] = field(default_factory=lambda: _numbers({}))  # queue -> request
    flushed: Mapping[str, int] = field(default_factory=lambda: _numbers({}))  # requester -> no.
    # queue -> the (partition, offset) of each message got under syncpoint, not yet committed
    held: Mapping[str, frozenset[tuple[int, int]]] = field(default_factory=lambda: _held({}))
    # queue -> what it acknowledged at or above the share group's start, and of which topic
    acked: Mapping[str, LedgerEntry] = field(default_factory=lambda: _acked({}))

    def __post_init__(self) -> None:
        if not self.connection:
            raise MQError(RC.OBJECT_DAMAGED, "heartbeat without a connection id")
        object.__setattr__(
            self, "queues", _frozen({q: u for q, u in self.queues.items() if not u.idle})
        )
        object.__setattr__(self, "flush", _numbers(self.flush))
        object.__setattr__(self, "flushed", _numbers(self.flushed))
        object.__setattr__(self, "held", _held(self.held))
        object.__setattr__(self, "acked", _acked(self.acked))

    def encode(self) -> bytes:
        body = {
            "schema": SCHEMA,
            "connection": self.connection,
            "user": self.user,
            "appl": self.appl,
            "host": self.host,
            "pid": self.pid,
            "queues": {
                q: [u.handles, u.input_exclusive, u.input_shared, u.puts, u.gets]
                for q, u in sorted(self.queues.items())
            },
        }
        if self.flush:
            body["flush"] = dict(sorted(self.flush.items()))
        if self.flushed:
            body["flushed"] = dict(sorted(self.flushed.items()))
        if self.held:
            body["held"] = {q: sorted(map(list, p)) for q, p in sorted(self.held.items())}
        if self.acked:
            body["acked"] = encode_lines(self.acked)
        return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()

    @classmethod
    def decode(cls, value: bytes) -> Heartbeat:
        """The heartbeat in ``value``; ``MQRC_OBJECT_DAMAGED`` when it is not one."""
        try:
            body = json.loads(value)
            if body.get("schema") != SCHEMA:
                raise ValueError("unknown schema")
            queues = {q: QueueUse(*counts) for q, counts in body["queues"].items()}
            return cls(
                str(body["connection"]),
                str(body.get("user", "")),
                str(body.get("appl", "")),
                str(body.get("host", "")),
                int(body.get("pid", 0)),
                queues,
                dict(body.get("flush", {})),
                dict(body.get("flushed", {})),
                {q: frozenset(map(tuple, p)) for q, p in body.get("held", {}).items()},
                decode_lines(body.get("acked", {})),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise MQError(RC.OBJECT_DAMAGED, f"heartbeat record: {error}") from None


def _numbers(mapping: Mapping[str, int]) -> Mapping[str, int]:
    """A frozen map of names to request numbers (> 0), checked (OBJECT_DAMAGED)."""
    for name, number in mapping.items():
        if not isinstance(name, str) or not isinstance(number, int) or isinstance(number, bool):
            raise MQError(RC.OBJECT_DAMAGED, f"browse barrier entry {name!r}: {number!r}")
        if number <= 0:
            raise MQError(RC.OBJECT_DAMAGED, f"browse barrier number must be > 0: {number}")
    return MappingProxyType(dict(mapping))


def _held(mapping: Mapping[str, frozenset[tuple[int, int]]]) -> Mapping[str, frozenset[Position]]:
    """A frozen map of queues to positions (two ints >= 0 each), checked (OBJECT_DAMAGED)."""
    for queue, positions in mapping.items():
        for position in positions:
            if (
                not isinstance(queue, str)
                or len(position) != 2
                or any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in position)
            ):
                raise MQError(RC.OBJECT_DAMAGED, f"held message {queue!r}: {position!r}")
    return MappingProxyType({q: frozenset(p) for q, p in mapping.items() if p})


def _acked(mapping: Mapping[str, LedgerEntry]) -> Mapping[str, LedgerEntry]:
    for queue, line in mapping.items():
        if not isinstance(queue, str) or not isinstance(line, LedgerEntry):
            raise MQError(RC.OBJECT_DAMAGED, f"acknowledged spans {queue!r}: {line!r}")
    return MappingProxyType({q: e for q, e in mapping.items() if e.spans})


@dataclass(frozen=True)
class FlushRequest:
    """A browsing connection's newest request: its number and the queues it names."""

    number: int
    queues: frozenset[str]


class ConnectionTable:
    """The latest heartbeat of every connection, and which of them have gone quiet.

    One thread replays the topic into it while others ask (many connections in one process,
    e.g. ``mqk listen``): the readers iterate over a copy taken under the table's lock, so a
    beat applied meanwhile never raises "dictionary changed size during iteration" (a bare
    ``tuple(d.items())`` is not enough: an allocation in it may run the collector, and a
    finalizer lets another thread in)."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._beats: dict[str, Heartbeat] = {}
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()
        self.now = 0.0  # the newest broker timestamp seen
        # the browse barrier: each requester's newest request, and per answering connection
        # the highest number it answered per requester (the highest seen: answers only grow)
        self._requests: dict[str, FlushRequest] = {}
        self._flushed: dict[str, dict[str, int]] = {}
        # per connection, what it held under syncpoint when it last answered a request
        self._held: dict[str, Mapping[str, frozenset[Position]]] = {}
        # per connection, what it acknowledged above the share group's start, at its newest
        # answer (kept till its tombstone: an acknowledgement is for good)
        self._acked: dict[str, Mapping[str, LedgerEntry]] = {}
        # the ledgers of connections that closed their input handles or ended (ackedspans):
        # record key -> queue -> its line; not connections, so never listed nor reaped
        self._ledgers: dict[str, dict[str, LedgerEntry]] = {}
        self.requests_seen = 0  # bumped on each new request: the keeper looks when it moves
        self.on_request: Callable[[], None] = lambda: None  # wakes the keeper thread
        # per queue, bumped by every beat or tombstone of a connection that shows, or showed
        # before it, an input handle on it or gets from it held under syncpoint: unmoved,
        # nobody in another process can have got (and committed) anything from the queue
        # (the browse barrier's quiet check)
        self._inputs: dict[str, int] = {}

    def apply(self, key: str, value: bytes | None, timestamp: float) -> None:
        """One record of the heartbeat topic; a damaged record counts as a bare beat."""
        self.now = max(self.now, timestamp)
        if key.startswith(LEDGER_PREFIX):
            try:
                ledger = decode_ledger(value) if value is not None else {}
            except MQError:
                ledger = {}  # another version's: names nothing
            with self._lock:
                if ledger:
                    self._ledgers[key] = ledger
                else:
                    self._ledgers.pop(key, None)
            return
        if value is None:
            with self._lock:
                self._count_inputs(self._beats.get(key), None)
                self._beats.pop(key, None)
                self._last.pop(key, None)
                self._requests.pop(key, None)
                self._flushed.pop(key, None)
                self._held.pop(key, None)
                self._acked.pop(key, None)
            return
        try:
            beat = Heartbeat.decode(value)
        except MQError:
            beat = Heartbeat(key)
        fresh = False
        with self._lock:
            self._count_inputs(self._beats.get(key), beat)
            self._beats[key] = beat
            self._last[key] = max(timestamp, self._last.get(key, timestamp))
            if beat.flush:
                number = max(beat.flush.values())
                known = self._requests.get(key)
                if known is None or number > known.number:
                    self._requests[key] = FlushRequest(number, frozenset(beat.flush))
                    self.requests_seen += 1
                    fresh = True
            if beat.flushed:
                answered = self._flushed.setdefault(key, {})
                if any(n > answered.get(r, 0) for r, n in beat.flushed.items()):
                    # a new answer: its held was taken after the request was seen (a beat
                    # with only old answers may have been composed before, and is stale)
                    self._held[key] = beat.held
                    self._acked[key] = beat.acked
                for requester, number in beat.flushed.items():
                    answered[requester] = max(number, answered.get(requester, 0))
        if fresh:
            self.on_request()

    def _count_inputs(self, before: Heartbeat | None, after: Heartbeat | None) -> None:
        for beat in (before, after):
            if beat is None:
                continue
            for queue, use in beat.queues.items():
                if use.getting:
                    self._inputs[queue] = self._inputs.get(queue, 0) + 1

    def input_mark(self, queue: str) -> int:
        """A number that moves whenever a beat shows, or stops showing, an input handle on
        ``queue`` or gets from it held under syncpoint: the same twice, no other connection
        got from it in between (unless it was open for input at the first of the two, which
        its beats show)."""
        with self._lock:
            return self._inputs.get(queue, 0)

    def requests(self) -> dict[str, FlushRequest]:
        """Every live requester's newest browse-barrier request."""
        with self._lock:
            pending = tuple(self._requests.items())
        return {r: request for r, request in pending if self.alive(r)}

    def held(self, connection: str, queue: str) -> frozenset[Position]:
        """What ``connection`` held got under syncpoint on ``queue`` at its newest answer."""
        with self._lock:
            return self._held.get(connection, {}).get(queue, frozenset())

    def acked(self, queue: str, topic_id: str | None = None) -> AckedSpans:
        """What every connection known here (alive or not, till its tombstone) said at its
        newest answer it acknowledged at or above the share group's start on ``queue``, and
        what the ledgers name for it: only for ``topic_id``, the queue's topic as Kafka now
        answers it (a queue deleted and defined again starts its offsets afresh)."""
        if topic_id is None:
            return NONE
        with self._lock:
            lines = [a[queue] for a in self._acked.values() if queue in a]
            lines += [ledger[queue] for ledger in self._ledgers.values() if queue in ledger]
        return NONE.union(*(e.spans for e in lines if e.topic_id == topic_id))

    def lines_of(self, queue: str) -> list[LedgerEntry]:
        """Every answer's and ledger's line for ``queue``, whatever its topic."""
        with self._lock:
            return [
                a[queue] for a in (*self._acked.values(), *self._ledgers.values()) if queue in a
            ]

    def answered_acked(self, connection: str) -> dict[str, LedgerEntry]:
        """Per queue, what ``connection`` named acknowledged at its newest answer."""
        with self._lock:
            return dict(self._acked.get(connection, {}))

    def ledgers(self, queue: str) -> dict[str, LedgerEntry]:
        """The ledgers' lines for ``queue``, by record key."""
        with self._lock:
            return {k: ledger[queue] for k, ledger in self._ledgers.items() if queue in ledger}

    def ledger(self, key: str) -> dict[str, LedgerEntry]:
        with self._lock:
            return dict(self._ledgers.get(key, {}))

    def flushed(self, connection: str, requester: str) -> int:
        """The highest request number of ``requester`` that ``connection`` answered."""
        with self._lock:
            return self._flushed.get(connection, {}).get(requester, 0)

    def alive(self, connection: str) -> bool:
        last = self._last.get(connection)
        return last is not None and self.now - last <= self.timeout

    def expired(self) -> list[str]:
        """Connections whose heartbeats stopped: crashed, or ended without MQDISC."""
        liveness = Liveness(self.timeout)
        with self._lock:
            lasts = tuple(self._last.items())
        for connection, last in lasts:
            liveness.heartbeat(connection, last)
        return liveness.expired(self.now)

    def uses(self, queue: str, *, exclude: str = "") -> list[tuple[str, QueueUse]]:
        """Live connections (other than ``exclude``) holding something on ``queue``."""
        with self._lock:
            beats = tuple(self._beats.items())
        return [
            (connection, beat.queues[queue])
            for connection, beat in beats
            if connection != exclude and queue in beat.queues and self.alive(connection)
        ]

    def heartbeat(self, connection: str) -> Heartbeat | None:
        return self._beats.get(connection)

    def __iter__(self) -> Iterator[str]:
        with self._lock:
            names = tuple(self._beats)
        return iter(sorted(names))

    def __len__(self) -> int:
        return len(self._beats)


__all__ = ["ConnectionTable", "FlushRequest", "Heartbeat", "QueueUse"]
