"""Reading a queue's records without taking them: browse cursors and the match index.

A plain Kafka consumer, assigned (no group, nothing committed), reads the queue topic from
where the queue starts: the share group's start offset (SPSO) where Kafka reports one,
the log start otherwise. Records are handed out in put order across partitions (record
timestamps, then partition, then offset), so a browse sees a multi-partition queue as one
queue. Messages already got are skipped when this client knows of them: below the SPSO,
got by this connection (:class:`Consumed`), or, for a browse (``share``), acknowledged by
anyone: Kafka's per-record share state (:mod:`~mqkafka.kafka.sharelog`), read to its end at
MQGMO_BROWSE_FIRST and followed without waiting after. Where that state cannot be read, a
browse passes over as many of the oldest other records as Kafka's lag says were got by
others (``hide``, :func:`~mqkafka.kafka.sharestate.got_unseen`), less those that the browse
barrier's answers named acknowledged (``acked``, passed over by name), asked once more when
the lag counts more than was named (``again``): exact but for a getter that crashed.
A non-persistent message another process got outside syncpoint is committed milliseconds
after its MQGET (:mod:`.getter`); a browse that begins asks that process to commit first
(:mod:`.browsebarrier`), so only one got while the cursor moves may still be seen.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from functools import partial

from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import OFFSET_BEGINNING, KafkaException, TopicPartition
from mqkafka.kafka.groups import reader_group
from mqkafka.kafka.sharelog import GroupView, PartitionState, shared
from mqkafka.kafka.sharestate import ShareStateClient
from mqkafka.mqi.kafkaqm.ackedspans import NONE, AckedSpans
from mqkafka.mqi.kafkaqm.admin import broken
from mqkafka.mqi.kafkaqm.queuerecord import Rec
from mqkafka.mqi.rules.matching import Position


class Consumed:
    """Positions known to be gone: all below a per-partition floor, plus a set above it.

    A getter taking messages in order keeps the set empty (the floor moves up); it holds
    at most ``LIMIT`` positions, forgetting the oldest (a browse may then show a message
    already got, once: the same as one another process got).
    """

    LIMIT = 100_000

    def __init__(self) -> None:
        self._floor: dict[int, int] = {}
        self._above: set[Position] = set()

    def add(self, position: Position) -> None:
        partition, offset = position
        floor = self._floor.get(partition)
        if floor is not None and offset == floor:
            floor += 1  # contiguous with the floor: no set entry needed
            while (partition, floor) in self._above:
                self._above.discard((partition, floor))
                floor += 1
            self._floor[partition] = floor
        elif floor is None or offset > floor:
            self._above.add(position)
            if len(self._above) > self.LIMIT:
                self._above = set(sorted(self._above)[self.LIMIT // 2 :])

    def raise_floor(self, partition: int, floor: int) -> None:
        if floor > self._floor.get(partition, 0):
            self._floor[partition] = floor
            self._above = {p for p in self._above if p[0] != partition or p[1] >= floor}

    def __contains__(self, position: object) -> bool:
        if not isinstance(position, tuple):
            return False
        partition, offset = position
        return offset < self._floor.get(partition, 0) or position in self._above

    def __len__(self) -> int:
        return len(self._above)

    def floor(self, partition: int) -> int:
        return self._floor.get(partition, 0)

    def above(self, partition: int) -> set[int]:
        return {o for p, o in self._above if p == partition}

    def snapshot(self) -> tuple[dict[int, int], frozenset[Position]]:
        """The floors and the positions above them, copied whole (another thread's browse
        barrier answer reads them while the getter adds: each copy is one C call)."""
        return dict(self._floor), frozenset(self._above)


def known_between(consumed: list[Consumed], partition: int, start: int, end: int) -> int:
    """How many offsets in ``[start, end)`` of ``partition`` any of ``consumed`` (this
    process's connections) knows were got: the union, counted once."""
    floor = max([c.floor(partition) for c in consumed], default=0)
    below = max(min(floor, end) - start, 0)
    lowest = max(floor, start)
    above = set().union(*(c.above(partition) for c in consumed)) if consumed else set()
    return below + sum(1 for o in above if lowest <= o < end)


def hidden_records(hidden: int, start: int, end: int, records: int) -> int:
    """How many of the oldest ``records`` read in ``[start, end)`` to pass over, given
    ``hidden`` offsets there that the share group says were done with. Kafka's start and lag
    count offsets: a transaction's commit marker takes one and is never acknowledged, so
    each offset of the range that holds no record (``end - start - records``) was counted
    as got. Without this, a queue the service writes transactionally (its replies: one
    marker per reply) hid its newest reply from every browse (issue 33: JMS's DeregSub)."""
    if start < 0 or end < start:
        return 0
    return max(hidden - (end - start - records), 0)


def kafka_share(config: ClientConfig, offsets: ShareStateClient, group: str) -> GroupView:
    """A browse's view of Kafka's per-record state of ``group``: the process's reader of the
    state topic, keyed by the topic id ``offsets`` last answered for the group (the browse
    asks the group's start offsets first)."""
    return GroupView(shared(config), group, partial(offsets.topic_id, group))


StartOffsets = Callable[[], dict[int, int]]
# given the start offsets, how many of the oldest records not known consumed to pass over
# per partition: got by someone this process does not know of (browse; sharestate.got_unseen)
Hide = Callable[[dict[int, int]], dict[int, int]]
# another browse-barrier round: what connections elsewhere name acknowledged now
Again = Callable[[], AckedSpans]
CATCH_UP = 15.0  # seconds a reader may take to learn where a queue ends


class LogReader:
    """A cursor over one queue topic. ``starts()`` gives the first offset per partition."""

    def __init__(
        self,
        kafka: ClientConfig,
        topic: str,
        partitions: int,
        starts: StartOffsets,
        skip: Consumed,
        hide: Hide | None = None,
        gone: Callable[[Position], bool] | None = None,
        share: GroupView | None = None,
        again: Again | None = None,
    ) -> None:
        self.topic = topic
        self.partitions = partitions
        self._starts = starts
        self._skip = skip
        self._hide_of = hide
        self._hide: dict[int, int] = {}
        self._gone = gone  # got by another connection of this process (browse)
        self._share = share
        self._again = again
        self._asked_again = False  # at most once a rewind
        self._states: dict[int, PartitionState] = {}  # Kafka's, where it could be read
        self._consumer = clients.consumer(
            kafka,
            {
                "group.id": reader_group("mqi-browse"),  # assign only
                "enable.auto.commit": False,
                "isolation.level": "read_committed",
                "fetch.wait.max.ms": 50,
                "enable.partition.eof": True,
                "auto.offset.reset": "earliest",
            },
        )
        self._heads: dict[int, deque[Rec]] = {}
        self._at_end: set[int] = set()
        self._starts_at: dict[int, int] = {}
        # records of a partition that hides some, held until its end shows how many markers
        # lie among them (hidden_records)
        self._held: dict[int, list[Rec]] = {}
        # the browse barrier's input mark when the share state was last read to its end
        # (None: getters elsewhere then; read it again at the next call)
        self.mark: int | None = None
        # what getters elsewhere said they held got under syncpoint, at this call's barrier
        self.held: frozenset[Position] = frozenset()
        # what connections elsewhere said they acknowledged above the share group's start:
        # passed over, and counted out of the lag's number where the share state is unread
        self.acked: AckedSpans = NONE
        self.rewind()

    def rewind(self) -> None:
        """Back to the start of the queue (MQGMO_BROWSE_FIRST)."""
        starts = self._starts()
        for partition, start in starts.items():
            self._skip.raise_floor(partition, start)
        assignment = [
            TopicPartition(self.topic, p, starts[p] if starts.get(p, -1) >= 0 else OFFSET_BEGINNING)
            for p in range(self.partitions)
        ]
        try:
            self._consumer.assign(assignment)
        except KafkaException as error:
            raise broken(error, f"browse {self.topic}") from None
        self._heads = {p: deque() for p in range(self.partitions)}
        self._at_end = set()
        started = [p for p, start in starts.items() if start >= 0]
        states = self._share.states(started) if self._share is not None and started else None
        self._states = {p: s for p, s in (states or {}).items() if s.start >= 0}
        counted = {p: start for p, start in starts.items() if p not in self._states}
        hide = self._hide_of(counted) if self._hide_of is not None and counted else {}
        self._hide = {p: n for p, n in hide.items() if p not in self._states}
        self._starts_at = dict(starts)
        self._held = {p: [] for p, n in self._hide.items() if n > 0}
        self._asked_again = False

    def refresh(self) -> None:
        """A browse call after the first (BROWSE_NEXT, under the cursor), once the barrier
        had the getters elsewhere commit: Kafka's share state read to its end again, so
        that what they got before the call began is passed over. A partition without state
        at the first call is asked too (its group may have started since); where the state
        cannot be read, what the first call counted stays (``hide``)."""
        if self._share is None:
            return
        partitions = range(self.partitions)
        states = self._share.states(partitions)
        if states is None and self._share.topic_id() is None:
            self._starts()  # the group's topic id, answered with its offsets
            states = self._share.states(partitions)
        for p, state in (states or {}).items():
            # not where the first call's count still waits to pass records over: they would
            # be passed over twice
            if state.start >= 0 and (p in self._states or not self._hide.get(p)):
                self._states[p] = state

    def shows(self, rec: Rec) -> bool:
        """Whether ``rec`` is still on the queue as far as this reader knows (the message
        under the cursor, after :meth:`refresh`)."""
        return not self._known(rec.position)

    def _read(self, timeout: float) -> int:
        try:
            records = clients.consume_arrived(self._consumer, 500, timeout)
        except KafkaException as error:
            raise broken(error, f"browse {self.topic}") from None
        for record in records:
            problem = record.error()
            if problem is not None:
                if problem.code() == -191:  # _PARTITION_EOF: caught up with this partition
                    self._release(record.partition(), record.offset())
                    self._at_end.add(record.partition())
                continue
            self._at_end.discard(record.partition())
            rec = Rec(record)
            origin = rec.origin()
            if origin is not None:
                self._skip.add(origin)  # a requeued copy: the record it replaced is gone
            held = self._held.get(rec.partition)
            if held is not None:
                held.append(rec)
                continue
            self._heads[record.partition()].append(rec)
        return len(records)

    def _release(self, partition: int, end: int) -> None:
        """The partition's end is reached: pass over its oldest records that others got
        (``hidden_records``), in order, and hand the rest out."""
        held = self._held.pop(partition, None)
        if held is None:
            return
        start = self._starts_at.get(partition, -1)
        hide = hidden_records(self._hide.get(partition, 0), start, end, len(held))
        named = self._named(held)
        if hide > named and self._again is not None and not self._asked_again:
            # more got than named: the lag, read after this call's round, counts what a
            # getter acknowledged out of order after answering it (or what a crashed one
            # did, which no round names); a round now has the live ones name it
            self._asked_again = True
            self.acked = self.acked.union(self._again())
            named = self._named(held)
        hide = max(hide - named, 0)
        for rec in held:
            if hide > 0 and not self._known(rec.position):
                hide -= 1  # got by another process, in order
                continue
            self._heads[partition].append(rec)
        self._hide[partition] = 0

    def _named(self, held: list[Rec]) -> int:
        """How many of ``held`` others named acknowledged: the lag counted them, and _known
        passes them over; not those this process knows of too (a connection here that
        answered another browser, or closed since): the count left them out already
        (known_between)."""
        return sum(1 for r in held if r.position in self.acked and not self._here(r.position))

    def _catch_up(self) -> None:
        """Read until every partition has a record in hand or is known to be at its end:
        only then is the oldest record known (whatever the caller's wait)."""
        deadline = time.monotonic() + CATCH_UP
        while any(not q and p not in self._at_end for p, q in self._heads.items()):
            left = deadline - time.monotonic()
            if left <= 0:
                raise broken(TimeoutError("no answer"), f"browse {self.topic}")
            self._read(min(left, 0.2))

    def next(self, accept: Callable[[Rec], bool], timeout: float) -> Rec | None:
        """The next record (in put order) that ``accept`` takes and is not known consumed;
        waits up to ``timeout`` for one to arrive."""
        deadline = time.monotonic() + timeout
        if self._share is not None and self._states:
            self._share.drain()  # acknowledgements since BROWSE_FIRST, as far as fetched
        if not any(self._heads.values()):
            # Nothing in hand: what arrived since the last look, without waiting. A partition
            # seen at its end may have more now, and a call that does not wait reads nothing
            # else (a NO_WAIT get by CorrelId never saw a message put after its first look:
            # JMS's second listener). Only then, so that what is held stays a fetch's worth.
            self._read(0)
        while True:
            self._catch_up()
            heads = [q[0] for q in self._heads.values() if q]
            if heads:
                first = min(heads, key=lambda r: (r.put_ms(), r.partition, r.offset))
                self._heads[first.partition].popleft()
                if self._known(first.position) or not accept(first):
                    continue
                return first
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self._read(min(left, 0.2))  # everything read: wait for new records

    def _here(self, position: Position) -> bool:
        """Got by a connection of this process (the count's ``known``)."""
        return position in self._skip or (self._gone is not None and self._gone(position))

    def _known(self, position: Position) -> bool:
        state = self._states.get(position[0])
        return (
            position in self._skip
            or position in self.held
            or position in self.acked
            or (state is not None and state.done(position[1]))
            or (self._gone is not None and self._gone(position))
        )

    def close(self) -> None:
        self._consumer.close()


__all__ = ["Consumed", "LogReader", "hidden_records", "kafka_share", "known_between"]
