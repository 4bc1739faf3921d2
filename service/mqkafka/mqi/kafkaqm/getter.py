"""Destructive MQGET on a Kafka share group: each message to exactly one getter.

Every getter of queue ``Q``, in any thread or process, is a member of the share group of
``Q`` (``Settings.share_group_of``); Kafka hands each record to one member at a time and
takes it off the queue when that member accepts it. A getter here is one or more *lanes*
(:mod:`.lane`), each a ShareConsumer in explicit acknowledgement mode.

Kafka's rules, and what follows from each here:

- A poll returns a batch, and every record of it must be acknowledged before the next
  poll: the batch is the getter's read-ahead; what it did not hand out is given back
  before it polls again.
- A record is locked to its getter for ``share.record.lock.duration.ms``: a record older
  than the lock less a safety margin is never handed out (it may be someone else's now).
- A released record counts one more delivery and is archived at the limit: records are
  given back by RELEASE, or REQUEUE near the limit (:mod:`~mqkafka.mqi.rules.redelivery`).
- A browse (any process's) hides what Kafka's share state says was acknowledged, so a
  message got outside syncpoint shows until its acceptance is committed; a browse that
  begins in another process has it committed first (:mod:`.browsebarrier`). A persistent one
  is committed before MQGET returns, as MQ forces its log for one: no browse shows it after
  and no crash brings it back. A non-persistent one is committed by the connection's keeper
  thread, woken by the first acceptance since the lane's last commit, beside the
  application's next calls (a lane's consumer has a lock of its own), at most every
  ``ACK_GAP`` per busy lane, and before any poll (acknowledgements riding on a fetch waited
  for the one librdkafka had in flight: up to 500 ms). Measured (bench/bench_browse_window.py,
  2-core VM under load, medians): another process's browse stopped showing it 1.6 ms after
  MQGET returned to an idle getter, 8.5 ms (p99 42 ms) to one getting back to back, with
  17 us CPU per MQGET; the old batching (committed within ``ACK_FLUSH``, 0.5 s) left 279 ms
  idle and 176 ms p99 busy, with 25 us; both got 7,000-40,000 messages/s as the machine's
  load moved (a later run, side by side: 28,200 gets/s busy against 29,200 with 0.5 s
  between commits). At a load average of 28, 12 ms idle and p99 383 ms busy, Kafka's answer to a
  commit taking up to 153 ms: the window is about two commits' round trips plus
  ``ACK_GAP``. A commit before every MQGET returns, the one way to no window at all, ran 855
  gets/s (138 us), persistent ones 1,047: a round trip each, too dear for non-persistent
  messages. A group commit would save round trips only for threads sharing a handle. A
  process killed within that window leaves the message to be got again once its
  acquisition lock runs out, as an uncommitted one.
- A new member receives its partitions with its second heartbeat, which the broker asks
  for ``share.heartbeat.interval.ms`` (5 s) after the first: a lane re-subscribes to the
  same topic a moment after joining, which makes the client send that heartbeat at once
  (``lane.NUDGES``), and knows it is ready from its statistics (the assignment size).

A message got under syncpoint stays unacknowledged (its lane *pinned*) until MQCMIT accepts
it or MQBACK gives it back; a pinned lane cannot poll, so further gets in the same unit of
work use another lane.

Selective gets (MsgId, CorrelId, message token) first find the message without taking
anything, in a :class:`~mqkafka.mqi.kafkaqm.logreader.LogReader` index of the queue, and only then
acquire toward it: Kafka always offers the oldest available records first, so records in
front of the target are given back - released the first time (others may want them), and
requeued behind it if this getter meets them again (otherwise it could never get past them).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from mqkafka.kafka.clients import AcknowledgeType
from mqkafka.mqi.kafkaqm.lane import BUSY_RETRY, INF, Lane
from mqkafka.mqi.kafkaqm.logreader import Consumed, LogReader
from mqkafka.mqi.kafkaqm.queuerecord import Rec
from mqkafka.mqi.kafkaqm.settings import Settings
from mqkafka.mqi.rules.matching import Position, Selection
from mqkafka.mqi.rules.redelivery import GiveBack, backout_count, give_back

ACK_FLUSH = 0.5  # an MQGET commits itself when the lane's last commit is older (keeper late)
ACK_GAP = 0.01  # seconds between the keeper's commits of one lane while the getter is busy
POLL_SLICE = 0.25  # longest single poll, so deadlines and readiness are checked often
FETCH_ROUND = 0.6  # a ready member's first fetch answers within Kafka's 500 ms long poll
RETRY = 1.0  # seconds before a selected message another getter held is tried again
MAX_RETRY = 4.0
SKIP_AFTER = 3

Requeue = Callable[[Rec, int], None]  # write a copy carrying this BackoutCount


@dataclass
class Taken:
    """A message handed to the application, and the lane that holds its acknowledgement."""

    rec: Rec
    lane: Lane


class Getter:
    """The destructive getter of one open input handle (thread-safe)."""

    def __init__(
        self,
        settings: Settings,
        topic: str,
        group: str,
        partitions: int,
        *,
        delivery_limit: int,
        requeue: Requeue,
        share_starts: Callable[[], dict[int, int]],
        consumed: Consumed,
        others_waiting: Callable[[], bool] = lambda: True,
        wake: Callable[[], None] = lambda: None,
    ) -> None:
        self.settings = settings
        self.topic = topic
        self.group = group
        self.partitions = partitions
        self.limit = delivery_limit
        self._requeue = requeue
        self._starts = share_starts
        self.consumed = consumed
        self._others_waiting = others_waiting
        self._wake = wake  # the keeper thread, to commit acceptances left waiting
        self.lock = threading.RLock()
        # never hand out a record older than the lock duration less 20% (at least 2 s)
        lock = settings.lock_duration
        self.lock_margin = lock - max(2.0, lock * 0.2)
        self.lanes = [Lane(settings, topic, group)]
        self._index: LogReader | None = None
        self._seen: deque[Rec] = deque()  # index records not yet taken, in put order
        self._not_now: dict[Position, float] = {}  # targets found absent, retry after
        self._tries: dict[Position, int] = {}
        self._order: dict[Position, tuple[int, int, int]] = {}  # put order of index records
        self._walked: set[Position] = set()  # records this getter already released once

    # ---- giving back ----

    def give_back(self, taken: Rec, lane: Lane, *, backout: bool) -> None:
        """Return an acquired record to the queue (RELEASE, or REQUEUE near the limit)."""
        delivery = taken.delivery or 1
        if give_back(delivery, self.limit) is GiveBack.REQUEUE:
            self._requeue(taken, backout_count(delivery, taken.carried_backout()) + 1)
            lane.ack(taken, AcknowledgeType.ACCEPT)
        else:
            lane.ack(taken, AcknowledgeType.RELEASE)

    def _clear(self, lane: Lane, target: Position | None = None) -> None:
        """Give back every record the lane holds and did not hand out, before it polls.

        Records that stood in front of ``target`` (same partition, lower offset) in a batch
        that did not hold it, and are met there again, are requeued behind it: otherwise
        Kafka, which offers the oldest records first, would never reach the target.
        """
        while lane.pending:
            rec = lane.pending.popleft()
            blocking = (
                target is not None
                and rec.partition == target[0]
                and rec.offset < target[1]
                and rec.position in self._walked
            )
            if blocking:
                self._requeue(rec, backout_count(rec.delivery, rec.carried_backout()))
                lane.ack(rec, AcknowledgeType.ACCEPT)
                self.consumed.add(rec.position)
                self._walked.discard(rec.position)
            else:
                self.give_back(rec, lane, backout=False)

    def _pollable(self) -> Lane:
        for lane in self.lanes:
            if not lane.pinned:
                return lane
        lane = Lane(self.settings, self.topic, self.group)  # every lane holds work: a new one
        self.lanes.append(lane)
        return lane

    # ---- finding ----

    def _find(self, select: Selection | None) -> Taken | None:
        now_ms = int(time.time() * 1000)
        for lane in self.lanes:
            if not lane.pending:
                continue
            if not lane.fresh(self.lock_margin):
                continue  # possibly someone else's by now: given back at the next poll
            for index, rec in enumerate(lane.pending):
                if rec.expired(now_ms):
                    del lane.pending[index]
                    lane.ack(rec, AcknowledgeType.ACCEPT)  # MQ discards expired messages
                    self.consumed.add(rec.position)
                    return self._find(select)
                if select is None or select.accepts(rec.ids(), rec.position):
                    del lane.pending[index]
                    return Taken(rec, lane)
        return None

    def peek(self, select: Selection | None) -> Taken | None:
        """Like take's first step, but the record stays pending (truncation checks)."""
        with self.lock:
            taken = self._find(select)
            if taken is not None:
                taken.lane.pending.appendleft(taken.rec)
            return taken

    # ---- taking ----

    def take(self, select: Selection | None, wait: float, depth: Callable[[], int]) -> Taken | None:
        """The next message (matching ``select``), waiting up to ``wait`` seconds; ``wait``
        0 is MQGMO_NO_WAIT, answered from what is there (``depth`` tells whether to look)."""
        with self.lock:
            if select is not None and (select.position is not None or _selective(select)):
                return self._take_selected(select, wait)
            return self._take_next(select, wait, depth)

    def _take_next(
        self, select: Selection | None, wait: float, depth: Callable[[], int]
    ) -> Taken | None:
        deadline = time.monotonic() + wait
        looked_at: float | None = None  # when the queue was seen to hold messages
        polled = False
        while True:
            found = self._find(select)
            if found is not None:
                return found
            lane = self._pollable()
            now = time.monotonic()
            if polled and now >= deadline and looked_at is None:
                # Nothing read ahead. NO_WAIT (or a wait that ended before this member could
                # see the queue) asks whether there is anything on the queue at all.
                if wait > 0 and _settled(lane, now):
                    return None
                if depth() == 0:
                    return None
                looked_at = now
                deadline = now + self.settings.join_timeout
            if looked_at is not None and lane.ready_at is not None:
                # A ready member sees what is available within a fetch round (or the grace).
                grace = max(lane.ready_at + FETCH_ROUND, looked_at + self.settings.no_wait_grace)
                deadline = min(deadline, grace)
            if polled and now >= deadline:
                return None
            self._clear(lane)
            timeout = deadline - now
            if lane.flowing and not polled:
                # The lane's last poll brought records and all went out: the queue very
                # likely holds more, so even MQGMO_NO_WAIT waits the one fetch round for
                # them. Nothing come, the depth answers as below.
                timeout = max(timeout, FETCH_ROUND)
            # Acknowledgements go now rather than with the poll: a fetch librdkafka has in
            # flight delays those the next one carries by up to its long poll (500 ms), and
            # the queue's depth (asked when nothing comes) must not count messages taken.
            lane.commit(sync=True)
            lane.poll(max(min(timeout, POLL_SLICE), 0.0))
            polled = True

    def _take_selected(self, select: Selection, wait: float) -> Taken | None:
        """Browse-then-targeted get: locate the oldest matching message, acquire toward it.

        The oldest match is the target, so a getter by CorrelId receives its messages in
        order while another getter only holds one briefly; one missed ``SKIP_AFTER`` times
        (taken, or held long) lets newer ones go first and is retried after ``RETRY``.
        What else the lane acquired goes back at once when other getters may want it
        (``others_waiting``), and stays as read-ahead when nobody else reads.
        """
        started = time.monotonic()
        deadline = started + wait
        while True:
            lane = self._pollable()
            # Whatever the wait, a new member may be assigned and fetch once before the
            # answer is "no message": the index knows the message is there.
            patience = (
                started + self.settings.join_timeout
                if lane.ready_at is None
                else lane.ready_at + FETCH_ROUND
            )
            target = self._locate(select, max(deadline - time.monotonic(), 0.0))
            if target is None:
                return None
            found = self._oldest_held(select, target)
            if found is not None:
                if self._others_waiting():
                    self._clear(found.lane)
                    found.lane.commit(sync=True)
                return found
            self._clear(lane, target)
            lane.commit(sync=True)  # not with the poll: a fetch in flight would delay them
            lane.poll(POLL_SLICE)
            now = time.monotonic()
            positions = {rec.position for rec in lane.pending}
            if self._others_waiting():
                self._shed(lane, select)  # never sit on other getters' messages
            if target in positions:
                continue
            # Kafka offered these instead of the target: they stand in front of it. Released
            # this time; met again in front of it, they are requeued behind it.
            self._walked.update(p for p in positions if p[0] == target[0] and p[1] < target[1])
            passed = any(p == target[0] and o > target[1] for p, o in positions)
            if passed or (_settled(lane, now) and not positions):
                # Kafka offered records beyond it, or nothing: another getter holds it (it
                # gives it back soon: keep at it, for order's sake) or took it. After
                # SKIP_AFTER misses, newer messages go first and it is retried after RETRY
                # seconds, doubling.
                tries = self._tries.get(target, 0) + 1
                self._tries[target] = tries
                if tries >= SKIP_AFTER:
                    backoff = RETRY * 2 ** (tries - SKIP_AFTER)
                    self._not_now[target] = now + min(backoff, MAX_RETRY)
            if now >= max(deadline, patience) and not lane.pending:
                return None

    def _shed(self, lane: Lane, select: Selection) -> None:
        """Give back at once what the lane acquired that this getter does not want."""
        unwanted = [r for r in lane.pending if not select.accepts(r.ids(), r.position)]
        if not unwanted:
            return
        for rec in unwanted:
            lane.pending.remove(rec)
            self.give_back(rec, lane, backout=False)
        lane.commit(sync=True)

    def _oldest_held(self, select: Selection, target: Position) -> Taken | None:
        """The target if a lane holds it, or an older message ``select`` accepts that a lane
        holds (one that was held elsewhere when it was the target)."""
        limit = self._order.get(target)
        best: tuple[tuple[int, int, int], Lane, Rec] | None = None
        for lane in self.lanes:
            if not lane.pending or not lane.fresh(self.lock_margin):
                continue
            for rec in lane.pending:
                key = (rec.put_ms(), rec.partition, rec.offset)
                older = (
                    limit is not None and key <= limit and select.accepts(rec.ids(), rec.position)
                )
                if (rec.position == target or older) and (best is None or key < best[0]):
                    best = (key, lane, rec)
        if best is None:
            return None
        _, lane, rec = best
        lane.pending.remove(rec)
        self._not_now.pop(rec.position, None)
        return Taken(rec, lane)

    def _locate(self, select: Selection, wait: float) -> Position | None:
        """The position of the oldest known message ``select`` accepts, waiting for one
        (a message held elsewhere counts again once its retry time has come)."""
        if select.position is not None:
            position = select.position
            if position in self.consumed:
                return None
            retry = self._not_now.get(position)
            return None if retry is not None and retry > time.monotonic() + wait else position
        reader = self._reader()
        deadline = time.monotonic() + wait
        while True:
            now = time.monotonic()
            soonest = deadline
            best: Rec | None = None
            for rec in self._seen:
                if rec.position in self.consumed:
                    continue
                if not select.accepts(rec.ids(), rec.position):
                    continue
                retry = self._not_now.get(rec.position, 0.0)
                if retry > now:
                    soonest = min(soonest, retry)
                elif best is None or self._order[rec.position] < self._order[best.position]:
                    best = rec  # in put order: a requeued copy keeps its put time
            if best is not None:
                return best.position
            gone = [r.position for r in self._seen if r.position in self.consumed]
            if gone:
                self._seen = deque(r for r in self._seen if r.position not in self.consumed)
                for position in gone:
                    self._order.pop(position, None)
            fresh = reader.next(lambda r: True, max(min(soonest - now, POLL_SLICE), 0.0))
            if fresh is not None:
                self._seen.append(fresh)
                self._order[fresh.position] = (fresh.put_ms(), fresh.partition, fresh.offset)
                continue
            if time.monotonic() >= deadline:
                return None

    def _reader(self) -> LogReader:
        if self._index is None:
            self._index = LogReader(
                self.settings.client,
                self.topic,
                self.partitions,
                self._starts,
                self.consumed,
            )
        return self._index

    # ---- acknowledging ----

    def accept(self, taken: Taken, *, now: bool = False) -> None:
        """The message leaves the queue (a non-syncpoint MQGET, or MQCMIT): at once for a
        persistent one (or one ``ACK_FLUSH`` after the last commit), else by the keeper."""
        with self.lock:
            lane = taken.lane
            lane.ack(taken.rec, AcknowledgeType.ACCEPT)
            self.consumed.add(taken.rec.position)
            self._walked.discard(taken.rec.position)
            waited = time.monotonic() - lane.last_commit
            if now or taken.rec.persistent() or waited > ACK_FLUSH:
                lane.commit(sync=True)
            elif lane.unsent == 1:
                self._wake()  # the first acceptance since a commit: the keeper commits it

    def pin(self, taken: Taken) -> None:
        with self.lock:
            taken.lane.pinned += 1

    def settle(self, taken: Taken, *, commit: bool, send: bool = True) -> None:
        """End of the unit of work for one message got under syncpoint; without ``send`` the
        acknowledgement waits for :meth:`send_settled` (one round trip for a whole MQCMIT)."""
        with self.lock:
            taken.lane.pinned -= 1
            if commit:
                taken.lane.ack(taken.rec, AcknowledgeType.ACCEPT)
                self.consumed.add(taken.rec.position)
            else:
                # Backed out: the message is reinstated where it was, in front of this
                # getter's read-ahead and still locked to it, so the next MQGET returns it
                # again (as MQ does) with BackoutCount one higher. If this getter never gets
                # it again it is released with the rest of the read-ahead.
                taken.rec.local_backouts += 1
                taken.lane.pending.appendleft(taken.rec)
            if send:
                taken.lane.commit(sync=True)
                self._retire_spare_lanes()

    def send_settled(self) -> None:
        """Commit what :meth:`settle` noted without sending, every lane at once."""
        with self.lock:
            for lane in self.lanes:
                lane.commit(sync=True)
            self._retire_spare_lanes()

    def untake(self, taken: Taken) -> None:
        """Put a message back in front of the read-ahead (MQRC_TRUNCATED_MSG_FAILED)."""
        with self.lock:
            taken.lane.pending.appendleft(taken.rec)

    def flush(self, *, force: bool = False, patience: float = -1) -> float:
        """Commit acknowledgements that have waited (the keeper thread: without waiting on
        the application's calls), or all (``force``, waiting at most ``patience`` seconds
        for a call in another thread; -1: for ever). Answers the seconds after which the
        keeper should look again (inf: nothing waits)."""
        if not any(lane.unsent for lane in self.lanes):
            return INF  # nothing to send: no need to wait for the lock
        if not force:
            return min((lane.commit_due(ACK_GAP) for lane in list(self.lanes)), default=INF)
        if not self.lock.acquire(timeout=patience):
            return BUSY_RETRY  # the application is in a call; it will flush
        try:
            for lane in self.lanes:
                lane.commit(sync=True)
            return INF
        finally:
            self.lock.release()

    def _retire_spare_lanes(self) -> None:
        # Extra lanes exist only for units of work; an idle one would read ahead for nothing.
        for lane in list(self.lanes[1:]):
            if not lane.pinned and not lane.pending:
                lane.commit(sync=True)
                lane.close()
                self.lanes.remove(lane)

    @property
    def holds_work(self) -> bool:
        return any(lane.pinned for lane in self.lanes)

    def close(self) -> None:
        """Give back the read-ahead and leave the share group (not while work is pinned)."""
        with self.lock:
            for lane in self.lanes:
                self._clear(lane)
                lane.commit(sync=True)
                lane.close()
            self.lanes = []
            if self._index is not None:
                self._index.close()
                self._index = None


def _settled(lane: Lane, now: float) -> bool:
    """The lane has been assigned for at least one fetch round."""
    return lane.ready_at is not None and now >= lane.ready_at + FETCH_ROUND


def _selective(select: Selection) -> bool:
    return (
        any(
            v is not None
            for v in (select.msg_id, select.correl_id, select.group_id, select.seq, select.offset)
        )
        or select.unknown_token
    )


__all__ = ["Getter", "Taken"]
