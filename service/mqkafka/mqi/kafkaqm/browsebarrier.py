"""The browse barrier: no browse call shows a message whose MQGET returned before it began.

A browse reads Kafka's per-record share state (:mod:`.logreader`), which Kafka writes before
it answers an acknowledgement. A persistent message, and one got under syncpoint, is
committed before MQGET (MQCMIT) returns; a non-persistent one got outside syncpoint is
committed by the getter's keeper thread milliseconds after (:mod:`.getter`), because a
commit before every MQGET returns ran 855 gets/s against 38,255 (bench/bench_browse_window.py).
Within those milliseconds another process's browse showed the message. The barrier closes
that window only when someone browses: each browse call asks the queue's getters in other
processes to commit what they got, and waits for their answers. Every call: BROWSE_FIRST
(or a handle's first browse), each BROWSE_NEXT of the walk, BROWSE_MSG_UNDER_CURSOR and a
destructive MSG_UNDER_CURSOR get (MQ's NO_MSG_UNDER_CURSOR, 2034, for a message got since
the cursor reached it); ``mqk browse`` and the console make one call per listing
(:mod:`.browsevisitor`).

The protocol, over the heartbeats every connection already writes and reads (its two maps
``flush`` and ``flushed``, :mod:`.heartbeat`):

1. A browse call begins at T. The browser syncs its replica (everything written to the
   heartbeat topic before T is applied) and lists the *getters*: other processes' live
   connections whose beat shows an input handle on the queue, or gets from it held under
   syncpoint (after an MQCLOSE too, until MQCMIT or MQBACK). This process's own need no
   barrier: a browse hides what any connection of the process got, committed or not
   (:mod:`.liveconnections`), as soon as its MQGET accepted it.
2. No getter: the browse goes on (its cost: the sync). Otherwise the browser takes its next
   request number n, puts ``{queue: n}`` in its beat's ``flush`` map and writes the beat,
   waiting for Kafka's acknowledgement.
3. Every process's replica thread applies the beat and wakes the process's answering thread
   (``ConnectionTable.on_request``), which, for each of its connections that gets from a
   named queue, commits every lane of those getters (waiting for a commit or a poll in
   flight, never for the application's call) and then writes the connection's beat with
   ``flushed`` ``{browser: n}`` and ``held``: the messages it got under syncpoint and has not
   committed (their acknowledgements wait for MQCMIT), taken after the request was seen.
4. The browser waits until each getter listed has answered n or more, no longer gets from
   the queue (MQCLOSE commits first; what it holds under syncpoint keeps it a getter until
   MQCMIT or MQBACK), or is no longer alive; then it reads the
   share state to its end and browses, passing over what the getters said they hold (MQ's
   browse never shows a message got under syncpoint; backed out, the next call shows it).

Why it holds: an MQGET that returned before T noted its acceptance before returning
(``Getter.accept``), so before the getter's connection applied the request (written after
T), so before the answering thread's commit, which either carries it or waits for the commit in
flight that does; the browser reads the share state after that commit was answered. Calls of
one connection that begin while a round runs share the next round (group commit): a round
covers every call begun before its T, never one begun after.

A BROWSE_NEXT reads the share state to its end again after its round (``LogReader.refresh``),
unless nothing can have changed it: the round found no getter elsewhere and the table's
*input mark* for the queue (moved by every beat that shows, or stops showing, an input
handle on it or gets from it held under syncpoint) is where it was when the walk last read
it. A getter that opened since wrote a beat before its MQOPEN returned, so before its first
get, and the sync shows it; one open at the last read is either still listed or its
closing beat moved the mark.

Why a BROWSE_NEXT with a getter elsewhere always takes a round, however far its message
lies from the getters: nothing the browser knew before the call began says the getter has
not got it since. A getter's answer is about the instant it was written; after it, the
getter may poll, be handed the very message (Kafka offers the oldest available records to
whoever fetches), and return it from MQGET before the call begins, its acknowledgement still
in its lane. A position "every getter confirmed committed up to", or a getter's highest
acquired offset, bounds what it held when it answered, not what it holds a moment later. A
skip would need the getter to promise something about what it does after answering:
commit before MQGET returns while a browse walks (a lease: every getter at the strict rate
while anybody browses), or write a beat before each poll while a browse walks (one
acknowledged write per read-ahead batch, 500 gets; the browser then skips a round for a
message above every getter's announced acquisitions). Neither is done: a getter pays
nothing for a browse but one commit and one beat per round it is asked.

Races, and what happens in each:

- A getter that joined after the request: if any of its MQGETs returned before T, its
  MQOPEN's beat (written and acknowledged before MQOPEN returned) is older than T, and the
  sync of step 1 lists it. One that opened after T got nothing before T.
- An MQGET that returns after its connection saw the request, or whose acceptance is noted
  after the answering commit took the lane's acknowledgements: it returned after T, while
  the call runs. Shown or not, as MQ's browse may show a message got while it looks.
- A poll carrying an acceptance (not confirmed when the poll returns): take() commits
  before it polls, under the getter's lock that accept() holds, so a poll carries none.
- A getter that dies, hangs, or runs a version without the barrier never answers: the
  browser waits at most ``BARRIER_WAIT``, then browses anyway and logs a line naming the
  connection (process and host): a message it got in its last milliseconds may show, as
  without the barrier. Once its heartbeat expires it is not waited for; what a dead getter
  acquired returns to the queue after Kafka's acquisition lock, as an uncommitted message.
- Requests that cross (one connection browsing two queues, or two threads one queue): the
  browser's map holds every queue it waits for; a getter answers the highest number it saw
  after committing every queue of that beat's map; the table keeps the highest answer seen,
  so a beat written late with an older map changes nothing.
- Two threads of one connection browsing one queue: the second call, begun while the
  first's round runs, waits for it to end and then for the next round, which it starts or
  joins; it never takes the running round, whose T is older than its own beginning.
- A getter that closes the queue before its connection looks at the request, and opens it
  again after: it had nothing of that queue to commit, so it answers without a beat, and
  its MQOPEN's beat carries no answer; the browser waits ``BARRIER_WAIT`` for it and says
  so (a delay, never a message shown wrongly: its gets before T were committed at MQCLOSE).
- A ``held`` list that is stale: the table takes it only from a beat that answers something
  new (composed after the request was seen); an older beat written late, or a plain one,
  leaves the last answer's list. A message backed out after that answer stays hidden until
  the browser's next call, whose round asks again.
- A browser that dies while waiting: its request stays in its last beat until the beat
  expires; getters answered it once and do nothing more.
- The cursor's message got elsewhere between the BROWSE_NEXT that reached it and a call
  under the cursor: that call's round and read find it done (2034); a destructive get
  under the cursor that the check passes still asks Kafka for that record alone, and gets
  2034 if another getter took it meanwhile.
- No lease: a request is about one instant (T), so nothing expires mid-browse and getters
  never turn strict (see above for what a lease would cost), and no two processes' clocks
  are compared.

Where the application user may not read Kafka's share state (``__share_group_state``; the
shipped ACLs grant it, an operator may withhold it), Kafka's lag says how many records above
the share group's start were got, not which. Each answer therefore also names, per queue,
what the connection acknowledged at or above the start as Kafka answers it after the commit
(``acked``, :mod:`.ackedspans`); the table keeps every connection's newest such list until
its tombstone (an acknowledgement is for good: a connection that closed its handle since, or
stopped beating, still counts), and the browse passes over those and counts them out of the
lag's number, which then passes over only the oldest records nobody named (in-order gets). A
connection that closes an input handle writes the same in a ledger record of its own, which
MQDISC leaves and a reaper writes for a crashed one from its newest answers
(:mod:`.ackledger`); the browse counts its lines too. A call whose lag, read after its
round, counts more got than was named (a getter acknowledged more since it answered) has one
round more (:func:`acked_again`). Not covered there: what a crashed getter acknowledged
above the start after its last answer (nobody knows it), while an older record stays in
flight or available: the lag's count passes over the oldest record instead.

Cost: nobody browsing, nothing (no request, no thread). Each browse call with getters
elsewhere waits for one beat each way and reads the share state again (about two round
trips besides: bench/bench_browse_window.py measures the wait), and each getter commits once
and writes one beat per round; a call with none elsewhere costs the sync, and the read only
when a getter came or went since the walk's last.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import weakref
from collections.abc import Mapping, Set
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mqkafka.mq.errors import MQError
from mqkafka.mqi.kafkaqm import ackledger
from mqkafka.mqi.kafkaqm import liveconnections as live
from mqkafka.mqi.kafkaqm.ackedspans import NONE, AckedSpans, LedgerEntry, acked_above
from mqkafka.mqi.kafkaqm.heartbeat import ConnectionTable, FlushRequest, Heartbeat
from mqkafka.mqi.rules.matching import Position

if TYPE_CHECKING:
    from mqkafka.mqi.kafkaqm.connection import Connection
    from mqkafka.mqi.kafkaqm.getter import Getter

log = logging.getLogger("mqkafka.mqi.kafkaqm.connection")  # the operator's lines: the MQI's

# Seconds a browse waits at most for the getters' answers (one whose heartbeat expires is
# not waited for after): answers took up to 0.9 s at a load average of 20 on two cores, and
# a hung getter costs each browse begun this long.
BARRIER_WAIT = 10.0


# ---- the protocol, pure ------------------------------------------------------------------


@dataclass(frozen=True)
class GetterSeen:
    """What a browser's table says of one getter it waits for."""

    alive: bool
    getting: bool  # its beat shows an input handle on the queue, or gets held from it
    answered: int  # the highest of this browser's request numbers it answered


def owed(
    requests: Mapping[str, FlushRequest], answered: Mapping[str, int], me: str
) -> dict[str, FlushRequest]:
    """The requests a connection has not yet answered (not its own)."""
    return {
        requester: request
        for requester, request in requests.items()
        if requester != me and request.number > answered.get(requester, 0)
    }


def to_commit(owing: Mapping[str, FlushRequest], getting: Set[str]) -> set[str]:
    """The queues whose getters commit before the answer: named and got from here."""
    named: set[str] = set()
    for request in owing.values():
        named |= request.queues
    return named & set(getting)


def answered_after(
    answered: Mapping[str, int],
    owing: Mapping[str, FlushRequest],
    requests: Mapping[str, FlushRequest],
) -> dict[str, int]:
    """The answers a beat carries once ``owing`` is answered: only live requesters'."""
    merged = {**answered, **{r: request.number for r, request in owing.items()}}
    return {r: n for r, n in merged.items() if r in requests}


def outstanding(seen: Mapping[str, GetterSeen], number: int) -> set[str]:
    """The getters still to answer request ``number``."""
    return {c for c, s in seen.items() if s.alive and s.getting and s.answered < number}


def getter_seen(table: ConnectionTable, connection: str, queue: str, me: str) -> GetterSeen:
    beat = table.heartbeat(connection)
    use = beat.queues.get(queue) if beat is not None else None
    getting = use is not None and use.getting
    return GetterSeen(table.alive(connection), getting, table.flushed(connection, me))


# ---- each connection's part -------------------------------------------------------------


@dataclass(frozen=True)
class Settled:
    """What a round found: the table's input mark for the queue when no getter was found
    elsewhere (None: getters; the share state is read again), the messages the getters
    said they held got under syncpoint, and what connections elsewhere said they
    acknowledged above the share group's start (the browse passes over both)."""

    mark: int | None
    held: frozenset[Position] = frozenset()
    acked: AckedSpans = NONE


@dataclass
class _Rounds:
    """A browser's rounds of one queue: the one running (when it began), and the newest
    done (when it began, and what it found)."""

    running: float | None = None
    done_at: float = -1.0
    settled: Settled = Settled(None)


class BrowseBarrier:
    """One connection's requests as a browser and answers as a getter (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._number = 0
        self._asking: dict[str, int] = {}  # queue -> request number, while waiting
        self._answered: dict[str, int] = {}  # requester -> highest number answered
        self._looked = 0  # the table's requests_seen at the last answer
        self._rounds: dict[str, _Rounds] = {}  # per queue browsed: its rounds as a browser
        self._rounds_changed = threading.Condition()

    def maps(self) -> tuple[dict[str, int], dict[str, int]]:
        """The beat's ``flush`` and ``flushed`` maps."""
        with self._lock:
            return dict(self._asking), dict(self._answered)

    def answer(self, conn: Connection) -> None:
        """Step 3: commit the getters the new requests name, then answer."""
        table = conn.replica.connections
        seen = table.requests_seen
        if seen == self._looked:
            return
        self._looked = seen  # before reading: a request applied meanwhile moves it again
        requests = table.requests()
        owing = owed(requests, self._answered, conn.id)
        if not owing:
            return
        # the getters of its open handles, and those its unit of work holds gets of (a
        # handle closed before MQCMIT keeps them: its beat still shows the queue's gets)
        getters = [(h.name, h.getter) for h in conn.handles.values() if h.getter is not None]
        getters += [(got.queue, got.getter) for got in list(conn.uow.gets)]
        queues = to_commit(owing, {name for name, _ in getters})
        done: set[int] = set()
        for name, getter in getters:
            if name not in queues or id(getter) in done:
                continue
            done.add(id(getter))
            for lane in list(getter.lanes):
                try:
                    lane.commit(sync=True)
                except MQError as error:  # not acknowledged: the records come back
                    log.warning("browse barrier: committing gets of %s: %s", name, error)
        acked: dict[str, LedgerEntry] = {}
        for name, getter in getters:  # after the commits: what they acknowledged is named
            if name in queues and name not in acked:
                line = acked_of(conn, getter)
                if line is not None:
                    acked[name] = line
        with self._lock:
            self._answered = answered_after(self._answered, owing, requests)
        if queues:  # a connection that gets none of them is not waited for
            self._beat(conn, acked)

    def before_browse(self, conn: Connection, queue: str) -> Settled:
        """Steps 1, 2 and 4, before a browse call reads the share state: a round of its own,
        or one that began after this call began (threads browsing together share it).
        Answers what the round found (:class:`Settled`)."""
        began = time.monotonic()
        with self._rounds_changed:
            while True:
                state = self._rounds.setdefault(queue, _Rounds())
                if state.done_at >= began:
                    return state.settled  # begun after this call began: it covers this call
                if state.running is None:
                    state.running = time.monotonic()
                    break
                self._rounds_changed.wait()  # one older than this call: the next one
        settled: Settled | None = None
        try:
            settled = self._round(conn, queue)
        finally:
            with self._rounds_changed:
                if settled is not None and state.running is not None:
                    state.done_at, state.settled = state.running, settled
                state.running = None
                self._rounds_changed.notify_all()
        return settled

    def _round(self, conn: Connection, queue: str) -> Settled:
        conn.replica.sync()
        table = conn.replica.connections
        mine = {c.id for c in live.snapshot()}
        getters = {
            c for c, use in table.uses(queue, exclude=conn.id) if use.getting and c not in mine
        }
        if not getters:
            topic_id = ackledger.sweep(conn, queue)  # closed or ended getters' lines
            return Settled(table.input_mark(queue), acked=table.acked(queue, topic_id))
        with self._lock:
            self._number += 1
            number = self._number
            self._asking[queue] = number

        def left() -> set[str]:
            return outstanding({c: getter_seen(table, c, queue, conn.id) for c in getters}, number)

        try:
            self._beat(conn)
            if not conn.replica.wait_until(lambda: not left(), BARRIER_WAIT):
                for connection in sorted(left()):
                    beat = table.heartbeat(connection)
                    where = f"pid {beat.pid} on {beat.host}" if beat is not None else "?"
                    log.warning(
                        "browse of %s: connection %s (%s) did not confirm its gets within "
                        "%.0f s; a message it got in its last moments may show",
                        queue,
                        connection,
                        where,
                        BARRIER_WAIT,
                    )
        finally:
            with self._lock:
                if self._asking.get(queue) == number:
                    del self._asking[queue]
        held = frozenset().union(*(table.held(c, queue) for c in getters))
        # after the answers: the first line naming the queue may be in one (the topic id is
        # asked only once a line names the queue)
        topic_id = ackledger.sweep(conn, queue)
        return Settled(None, held, table.acked(queue, topic_id))

    def _beat(self, conn: Connection, acked: Mapping[str, LedgerEntry] | None = None) -> None:
        """The connection's heartbeat with the barrier's maps, written and acknowledged. The
        connection's own beats leave them out: the table keeps the highest request and
        answer it saw, so a later beat without them takes nothing back."""
        if not conn.connected:
            return  # its tombstone may be written: a beat now would bring it back
        flush, flushed = self.maps()
        held: dict[str, set[Position]] = {}  # taken after the maps: after the request was seen
        for got in list(conn.uow.gets):
            held.setdefault(got.queue, set()).add(got.taken.rec.position)
        beat = Heartbeat(
            conn.id,
            conn.settings.user,
            conn.settings.appl_name,
            socket.gethostname(),
            os.getpid(),
            conn.uses(),
            flush,
            flushed,
            {q: frozenset(p) for q, p in held.items()},
            dict(acked or {}),
        )
        conn.replica.write(
            conn.settings.connections_topic, conn.id.encode(), beat.encode(), wait=False
        )
        conn.replica.flush()


def acked_of(conn: Connection, getter: Getter) -> LedgerEntry | None:
    """What ``conn`` knows it acknowledged of ``getter``'s queue at or above the share
    group's start, as Kafka answers it now, with the topic's id (None: nothing, or Kafka
    could not be asked)."""
    consumed = conn.consumed.get(getter.topic)
    if consumed is None:
        return None
    starts = conn.admin.share_start(getter.topic, getter.group, getter.partitions)
    topic_id = conn.admin.share_state.topic_id(getter.group)
    floors, above = consumed.snapshot()
    spans = acked_above(floors, above, starts)
    return LedgerEntry(topic_id.hex(), spans) if spans and topic_id else None


_BARRIERS: weakref.WeakKeyDictionary[Connection, BrowseBarrier] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()
_REQUESTED = threading.Event()
_answerer: threading.Thread | None = None


def barrier_of(conn: Connection) -> BrowseBarrier:
    with _LOCK:
        barrier = _BARRIERS.get(conn)
        if barrier is None:
            barrier = _BARRIERS[conn] = BrowseBarrier()
        return barrier


def before_browse(conn: Connection, queue: str) -> Settled:
    """A browse call on ``queue`` (first, next or under the cursor) on ``conn`` begins: the
    getters elsewhere commit first, and say what they hold under syncpoint."""
    return barrier_of(conn).before_browse(conn, queue)


def acked_again(conn: Connection, queue: str) -> AckedSpans:
    """A round more, begun now, for a browse call whose lag (read after its round) counted
    more got than was named: what connections elsewhere name acknowledged now."""
    return barrier_of(conn).before_browse(conn, queue).acked


def request_seen() -> None:
    """A replica applied a new request (``ConnectionTable.on_request``): the process's
    answering thread looks at every connection, off the replica's thread (a commit may wait
    for a poll in flight, and the replica's barriers must not)."""
    global _answerer
    _REQUESTED.set()
    with _LOCK:
        if _answerer is None:
            _answerer = threading.Thread(target=_answer_all, name="mqk-mqi-barrier", daemon=True)
            _answerer.start()


def _answer_all() -> None:
    while True:
        _REQUESTED.wait()
        _REQUESTED.clear()
        for conn in live.snapshot():
            if not conn.connected:
                continue
            try:
                barrier_of(conn).answer(conn)
            except Exception:  # that connection's trouble; the others still answer
                log.exception("browse barrier: answering for connection %s", conn.id)


__all__ = [
    "BARRIER_WAIT",
    "BrowseBarrier",
    "GetterSeen",
    "Settled",
    "acked_again",
    "acked_of",
    "answered_after",
    "barrier_of",
    "before_browse",
    "outstanding",
    "owed",
    "request_seen",
    "to_commit",
]
