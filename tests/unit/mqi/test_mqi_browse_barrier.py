"""The browse barrier's protocol, pure (issue 35 point 4): who owes an answer, what a getter
commits before it answers, what its beat carries after, whom a browser still waits for, and
how the connection table keeps requests and answers from the heartbeats."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm.browsebarrier import (
    BrowseBarrier,
    GetterSeen,
    Settled,
    answered_after,
    outstanding,
    owed,
    to_commit,
)
from mqkafka.mqi.kafkaqm.heartbeat import ConnectionTable, FlushRequest, Heartbeat, QueueUse


def req(number: int, *queues: str) -> FlushRequest:
    return FlushRequest(number, frozenset(queues))


@pytest.mark.parametrize(
    ("requests", "answered", "expected"),
    [
        ({}, {}, {}),
        ({"b": req(1, "Q")}, {}, {"b": req(1, "Q")}),  # new: owed
        ({"b": req(1, "Q")}, {"b": 1}, {}),  # answered already
        ({"b": req(3, "Q")}, {"b": 2}, {"b": req(3, "Q")}),  # a newer one
        ({"b": req(2, "Q")}, {"b": 5}, {}),  # an older one seen late: nothing
        ({"me": req(1, "Q")}, {}, {}),  # its own request: never owed to itself
        ({"b": req(1, "Q"), "c": req(4, "R")}, {"b": 1}, {"c": req(4, "R")}),
    ],
)
def test_what_a_connection_owes(
    requests: dict[str, FlushRequest], answered: dict[str, int], expected: dict[str, FlushRequest]
) -> None:
    assert owed(requests, answered, "me") == expected


@pytest.mark.parametrize(
    ("owing", "getting", "expected"),
    [
        ({}, {"Q"}, set()),
        ({"b": req(1, "Q")}, {"Q"}, {"Q"}),
        ({"b": req(1, "Q")}, {"R"}, set()),  # gets from another queue: nothing to commit
        ({"b": req(1, "Q", "R")}, {"R", "S"}, {"R"}),
        ({"b": req(1, "Q"), "c": req(2, "S")}, {"Q", "S"}, {"Q", "S"}),  # crossing requests
    ],
)
def test_what_a_getter_commits_before_it_answers(
    owing: dict[str, FlushRequest], getting: set[str], expected: set[str]
) -> None:
    assert to_commit(owing, getting) == expected


@pytest.mark.parametrize(
    ("answered", "owing", "requests", "expected"),
    [
        ({}, {"b": req(1, "Q")}, {"b": req(1, "Q")}, {"b": 1}),
        ({"b": 1}, {"b": req(2, "Q")}, {"b": req(2, "Q")}, {"b": 2}),
        ({"b": 1, "gone": 7}, {}, {"b": req(1, "Q")}, {"b": 1}),  # a requester gone: dropped
        ({"b": 1}, {"c": req(3, "R")}, {"b": req(1, "Q"), "c": req(3, "R")}, {"b": 1, "c": 3}),
    ],
)
def test_what_the_getters_beat_carries_after(
    answered: dict[str, int],
    owing: dict[str, FlushRequest],
    requests: dict[str, FlushRequest],
    expected: dict[str, int],
) -> None:
    assert answered_after(answered, owing, requests) == expected


LIVE, DEAD = True, False
GETS, CLOSED = True, False


@pytest.mark.parametrize(
    ("seen", "number", "waiting"),
    [
        ({}, 1, set()),
        ({"g": GetterSeen(LIVE, GETS, 0)}, 1, {"g"}),  # not yet answered
        ({"g": GetterSeen(LIVE, GETS, 1)}, 1, set()),  # answered
        ({"g": GetterSeen(LIVE, GETS, 4)}, 3, set()),  # answered a later request: covers it
        ({"g": GetterSeen(LIVE, GETS, 2)}, 3, {"g"}),  # answered an earlier one only
        ({"g": GetterSeen(LIVE, CLOSED, 0)}, 1, set()),  # closed the queue: committed first
        ({"g": GetterSeen(DEAD, GETS, 0)}, 1, set()),  # its heartbeat expired
        ({"g": GetterSeen(LIVE, GETS, 1), "h": GetterSeen(LIVE, GETS, 0)}, 1, {"h"}),
    ],
)
def test_whom_a_browser_still_waits_for(
    seen: dict[str, GetterSeen], number: int, waiting: set[str]
) -> None:
    assert outstanding(seen, number) == waiting


# ---- the maps on the heartbeat, and the table ----------------------------------------------


def test_a_beat_without_the_maps_is_the_same_record_as_before() -> None:
    plain = Heartbeat("c", "u", "a", "h", 1, {"Q": QueueUse(handles=1)})
    assert b"flush" not in plain.encode()
    both = Heartbeat("c", queues={"Q": QueueUse(handles=1)}, flush={"Q": 3}, flushed={"b": 2})
    again = Heartbeat.decode(both.encode())
    assert (dict(again.flush), dict(again.flushed)) == ({"Q": 3}, {"b": 2})


@pytest.mark.parametrize(
    "raw",
    [
        b'{"schema":1,"connection":"c","queues":{},"flush":{"Q":0}}',
        b'{"schema":1,"connection":"c","queues":{},"flush":{"Q":"1"}}',
        b'{"schema":1,"connection":"c","queues":{},"flushed":{"b":true}}',
        b'{"schema":1,"connection":"c","queues":{},"flushed":[1]}',
    ],
)
def test_a_damaged_map_is_object_damaged(raw: bytes) -> None:
    with pytest.raises(MQError) as caught:
        Heartbeat.decode(raw)
    assert caught.value.reason == RC.OBJECT_DAMAGED


def beat(
    connection: str, flush: dict[str, int] | None = None, flushed: dict[str, int] | None = None
) -> bytes:
    queues = {"Q": QueueUse(handles=1, input_shared=1)}
    return Heartbeat(connection, queues=queues, flush=flush or {}, flushed=flushed or {}).encode()


def test_the_table_keeps_each_requesters_newest_request_and_wakes_once_per_request() -> None:
    table = ConnectionTable(timeout=10.0)
    woken: list[int] = []
    table.on_request = lambda: woken.append(table.requests_seen)
    table.apply("b", beat("b", flush={"Q": 1}), 100.0)
    table.apply("b", beat("b"), 100.5)  # its plain beat: the request stays
    table.apply("b", beat("b", flush={"Q": 1}), 101.0)  # the same again: no wake
    assert table.requests() == {"b": req(1, "Q")}
    table.apply("b", beat("b", flush={"Q": 1, "R": 2}), 102.0)
    assert table.requests() == {"b": req(2, "Q", "R")}
    assert woken == [1, 2]
    table.apply("x", beat("x"), 120.0)  # b silent 18 s: dead, its request with it
    assert table.requests() == {}


def test_the_table_keeps_the_highest_answer_and_forgets_a_tombstone() -> None:
    table = ConnectionTable(timeout=10.0)
    table.apply("g", beat("g", flushed={"b": 3}), 100.0)
    table.apply("g", beat("g", flushed={"b": 2}), 100.1)  # a beat written late: no step back
    table.apply("g", beat("g"), 100.2)  # its plain beat: the answer stays
    assert table.flushed("g", "b") == 3
    assert table.flushed("g", "c") == 0
    table.apply("g", None, 101.0)
    assert table.flushed("g", "b") == 0


# ---- a connection's part, over a fake connection (no Kafka) --------------------------------


class FakeLane:
    def __init__(self, events: list[str], name: str) -> None:
        self.events, self.name = events, name

    def commit(self, sync: bool = True) -> None:
        self.events.append(f"commit {self.name}")


class FakeGetter:
    def __init__(self, events: list[str], name: str) -> None:
        self.lanes = [FakeLane(events, name)]
        self.topic, self.group, self.partitions = name, "g." + name, 1


class FakeHandle:
    def __init__(self, name: str, getter: FakeGetter | None) -> None:
        self.name, self.getter = name, getter


class FakeReplica:
    def __init__(self, events: list[str], table: ConnectionTable) -> None:
        self.events, self.connections = events, table
        self.written: list[Heartbeat] = []

    def write(self, topic: str, key: bytes, value: bytes | None, *, wait: bool = True) -> None:
        beat = Heartbeat.decode(value or b"")
        self.written.append(beat)
        self.events.append(f"beat {dict(beat.flush)} {dict(beat.flushed)}")

    def flush(self) -> None:
        pass


class FakeSettings:
    user, appl_name, connections_topic = "u", "a", "mqk-connections"


class FakeUow:
    def __init__(self) -> None:
        self.gets: list[object] = []


class FakeConnection:
    def __init__(self, table: ConnectionTable, *getting: str) -> None:
        self.id, self.connected, self.settings = "me", True, FakeSettings()
        self.consumed: dict[str, object] = {}  # nothing got: no acknowledgement to name
        self.uow = FakeUow()
        self.events: list[str] = []
        self.replica = FakeReplica(self.events, table)
        self.handles = {
            i: FakeHandle(q, FakeGetter(self.events, q) if q else None)
            for i, q in enumerate(getting)
        }

    def uses(self) -> dict[str, QueueUse]:
        return {h.name: QueueUse(handles=1, input_shared=1) for h in self.handles.values()}


@pytest.mark.parametrize(
    ("use", "getting"),
    [
        (QueueUse(handles=1), False),  # a browser or putter
        (QueueUse(handles=1, input_shared=1), True),
        (QueueUse(handles=1, input_exclusive=1), True),
        (QueueUse(puts=2), False),
        (QueueUse(gets=1), True),  # its handle closed before MQCMIT: still holds the get
    ],
)
def test_who_counts_as_a_getter_of_a_queue(use: QueueUse, getting: bool) -> None:
    assert use.getting is getting


def test_a_connection_holding_a_get_after_its_mqclose_commits_and_names_it() -> None:
    """Open, get under syncpoint, MQCLOSE: no handle left, and its answer still commits
    the held get's getter (once) and names the message."""
    table = ConnectionTable(timeout=10.0)
    table.apply("b", beat("b", flush={"Q": 1}), 100.0)
    conn = FakeConnection(table)
    getter = FakeGetter(conn.events, "Q")
    for offset in (4, 5):
        taken = SimpleNamespace(rec=SimpleNamespace(position=(0, offset)))
        conn.uow.gets.append(SimpleNamespace(queue="Q", getter=getter, taken=taken))
    BrowseBarrier().answer(conn)  # type: ignore[arg-type]
    assert conn.events == ["commit Q", "beat {} {'b': 1}"]
    assert dict(conn.replica.written[-1].held) == {"Q": frozenset({(0, 4), (0, 5)})}


@pytest.mark.parametrize(
    ("requests", "getting", "events"),
    [
        ([], ("Q",), []),  # nobody browses: nothing at all
        ([("b", {"Q": 1})], ("Q", "R"), ["commit Q", "beat {} {'b': 1}"]),
        ([("b", {"S": 1})], ("Q",), []),  # a queue not got from here: no commit, no beat
        (
            [("b", {"Q": 1}), ("c", {"R": 4})],  # two requesters: one beat answers both
            ("Q", "R"),
            ["commit Q", "commit R", "beat {} {'b': 1, 'c': 4}"],
        ),
        ([("me", {"Q": 1})], ("Q",), []),  # its own request
    ],
)
def test_a_getter_commits_the_named_queues_then_answers(
    requests: list[tuple[str, dict[str, int]]], getting: tuple[str, ...], events: list[str]
) -> None:
    table = ConnectionTable(timeout=10.0)
    for requester, flush in requests:
        table.apply(requester, beat(requester, flush=flush), 100.0)
    conn = FakeConnection(table, *getting)
    barrier = BrowseBarrier()
    barrier.answer(conn)  # type: ignore[arg-type]
    assert conn.events == events  # the commits before the answer
    conn.events.clear()
    barrier.answer(conn)  # type: ignore[arg-type]
    assert conn.events == []  # answered once


# ---- every browse call: the quiet check and shared rounds ------------------------------------


def use(inputs: int) -> bytes:
    return Heartbeat("x", queues={"Q": QueueUse(handles=1, input_shared=inputs)}).encode()


HELD = Heartbeat("x", queues={"Q": QueueUse(gets=1)}).encode()  # its input handle closed


@pytest.mark.parametrize(
    ("before", "record", "moves"),
    [
        (None, use(0), False),  # a browser or putter opens Q: nobody can get
        (None, use(1), True),  # a getter opens Q
        (use(1), use(1), True),  # a getter's beat: it may have got more
        (use(1), use(0), True),  # it closed Q for input (its gets committed first)
        (use(1), None, True),  # its tombstone (MQDISC)
        (use(0), use(0), False),
        (use(0), None, False),
        (use(1), HELD, True),  # closed for input, holding a get under syncpoint
        (HELD, HELD, True),
        (HELD, use(0), True),  # its MQCMIT or MQBACK
        (HELD, None, True),
    ],
)
def test_the_input_mark_moves_whenever_a_getter_may_have_got(
    before: bytes | None, record: bytes | None, moves: bool
) -> None:
    table = ConnectionTable(timeout=10.0)
    if before is not None:
        table.apply("x", before, 100.0)
    mark = table.input_mark("Q")
    table.apply("x", record, 101.0)
    assert (table.input_mark("Q") != mark) is moves
    assert table.input_mark("R") == 0  # another queue: untouched


def test_calls_that_begin_while_a_round_runs_share_the_next_one() -> None:
    """Group commit: a call joins a round only if it began after this call did; every call
    begun while one round ran is covered by one more."""
    import threading

    class Counted(threading.Condition):
        waiting = 0

        def wait(self, timeout: float | None = None) -> bool:
            self.waiting += 1
            return super().wait(timeout)

    barrier = BrowseBarrier()
    barrier._rounds_changed = counted = Counted()
    rounds: list[float] = []
    release = threading.Event()

    def one_round(conn: object, queue: str) -> Settled:
        rounds.append(time.monotonic())
        if len(rounds) == 1:
            release.wait(10)
        return Settled(7)

    barrier._round = one_round  # type: ignore[method-assign]
    marks: list[Settled] = []

    def call() -> None:
        marks.append(barrier.before_browse(None, "Q"))  # type: ignore[arg-type]

    first = threading.Thread(target=call)
    first.start()
    while not rounds:
        time.sleep(0.001)
    later = [threading.Thread(target=call) for _ in range(5)]
    for thread in later:
        thread.start()
    while counted.waiting < 5:  # all five wait on the first round, which began before them
        time.sleep(0.001)
    release.set()
    for thread in (first, *later):
        thread.join(10)
    assert len(rounds) == 2  # theirs shared
    assert marks == [Settled(7)] * 6
    barrier.before_browse(None, "Q")  # type: ignore[arg-type]
    assert len(rounds) == 3  # a call begun after both: a round of its own


def test_a_beat_carries_what_its_connection_holds_under_syncpoint() -> None:
    held = {"Q": frozenset({(0, 5), (1, 2)})}
    again = Heartbeat.decode(Heartbeat("c", flushed={"b": 1}, held=held).encode())
    assert dict(again.held) == held
    assert b"held" not in Heartbeat("c", held={"Q": frozenset()}).encode()


@pytest.mark.parametrize(
    "raw",
    [
        b'{"schema":1,"connection":"c","queues":{},"held":{"Q":[[0,-1]]}}',
        b'{"schema":1,"connection":"c","queues":{},"held":{"Q":[[0]]}}',
        b'{"schema":1,"connection":"c","queues":{},"held":{"Q":[[[0],1]]}}',
        b'{"schema":1,"connection":"c","queues":{},"held":{"Q":5}}',
    ],
)
def test_a_damaged_held_list_is_object_damaged(raw: bytes) -> None:
    with pytest.raises(MQError) as caught:
        Heartbeat.decode(raw)
    assert caught.value.reason == RC.OBJECT_DAMAGED


def held_beat(flushed: dict[str, int], *positions: tuple[int, int]) -> bytes:
    return Heartbeat("g", flushed=flushed, held={"Q": frozenset(positions)}).encode()


def test_the_table_takes_held_messages_from_a_new_answer_only() -> None:
    """A beat that answers nothing new may have been composed before the request was seen:
    what it says is held is not taken (the next answer says it afresh)."""
    table = ConnectionTable(timeout=10.0)
    table.apply("g", held_beat({"b": 1}, (0, 3)), 100.0)
    assert table.held("g", "Q") == {(0, 3)}
    table.apply("g", held_beat({"b": 1}), 100.1)  # no new answer: stale, not taken
    table.apply("g", Heartbeat("g").encode(), 100.2)  # a plain beat: nothing changes
    assert table.held("g", "Q") == {(0, 3)}
    table.apply("g", held_beat({"b": 2}), 100.3)  # committed since: a new answer says so
    assert table.held("g", "Q") == frozenset()
    table.apply("g", held_beat({"b": 2, "c": 1}, (0, 9)), 100.4)
    assert table.held("g", "Q") == {(0, 9)} and table.held("g", "R") == frozenset()
    table.apply("g", None, 101.0)
    assert table.held("g", "Q") == frozenset()
