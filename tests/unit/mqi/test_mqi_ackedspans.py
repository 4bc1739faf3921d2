"""What a getter names acknowledged above the share group's start, and how a browser reads it
(issue 35 point 4, where ``__share_group_state`` may not be read): pure."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq.errors import MQError
from mqkafka.mqi.kafkaqm.ackedspans import (
    LEDGER_PREFIX,
    MAX_SPANS,
    NONE,
    AckedSpans,
    LedgerEntry,
    acked_above,
    decode_ledger,
    encode_ledger,
)
from mqkafka.mqi.kafkaqm.heartbeat import ConnectionTable, Heartbeat

positions = st.sets(st.tuples(st.integers(0, 2), st.integers(0, 40)), max_size=30)


@given(positions, positions)
def test_spans_hold_exactly_the_positions_they_were_made_of(
    some: set[tuple[int, int]], more: set[tuple[int, int]]
) -> None:
    spans = AckedSpans.of_positions(some).union(AckedSpans.of_positions(more))
    every = some | more
    for p in range(3):
        for o in range(-1, 42):
            assert ((p, o) in spans) == ((p, o) in every)
        for start, end in ((0, 42), (5, 17), (17, 5), (40, 41)):
            assert spans.count(p, start, end) == sum(
                1 for q, o in every if q == p and start <= o < end
            )
    assert AckedSpans.decode(spans.encode()) == spans


def test_a_getter_in_order_names_one_span() -> None:
    assert AckedSpans.of_positions((0, o) for o in range(1000)).encode() == [[0, 0, 999]]


@pytest.mark.parametrize(
    ("floors", "above", "starts", "named"),
    [
        ({}, [], {0: 0}, []),  # nothing got
        ({}, [(0, 1), (0, 3)], {0: 0}, [[0, 1, 1], [0, 3, 3]]),  # out of order above start 0
        ({}, [(0, 1), (0, 3)], {0: 2}, [[0, 3, 3]]),  # below the start: gone anyway
        ({0: 9}, [(0, 12)], {0: 5}, [[0, 5, 8], [0, 12, 12]]),  # in order since the start
        ({0: 4}, [], {0: 6}, []),  # the floor under the start
        ({}, [(0, 1), (1, 1)], {0: 0, 1: -1}, [[0, 1, 1]]),  # no start: nothing named
        ({}, [(1, 1)], {}, []),  # the start could not be asked
    ],
)
def test_what_a_connection_names_acknowledged_above_the_start(
    floors: dict[int, int],
    above: list[tuple[int, int]],
    starts: dict[int, int],
    named: list[list[int]],
) -> None:
    assert acked_above(floors, above, starts).encode() == named


@pytest.mark.parametrize(
    "value",
    [5, [[0, 1]], [[0, 2, 1]], [[0, -1, 1]], [[0, True, 1]], [["0", 1, 1]]],
)
def test_a_damaged_span_list_is_object_damaged(value: object) -> None:
    with pytest.raises(MQError):
        AckedSpans.decode(value)


def test_a_beat_carries_the_spans_only_when_there_are_some() -> None:
    acked = {"Q": LedgerEntry("aa", AckedSpans([(0, 3, 5)]))}
    again = Heartbeat.decode(Heartbeat("c", flushed={"b": 1}, acked=acked).encode())
    assert dict(again.acked) == acked
    assert b"acked" not in Heartbeat("c", acked={"Q": LedgerEntry("aa", NONE)}).encode()
    with pytest.raises(MQError):
        Heartbeat.decode(b'{"schema":1,"connection":"c","queues":{},"acked":{"Q":[[0,3,4]]}}')


def acked_beat(name: str, flushed: dict[str, int], *spans: tuple[int, int, int]) -> bytes:
    line = LedgerEntry("aa", AckedSpans(spans))
    return Heartbeat(name, flushed=flushed, acked={"Q": line}).encode()


def test_the_table_names_every_connections_newest_answer_till_its_tombstone() -> None:
    """An acknowledgement is for good: the newest answer of each connection counts, alive
    or not (a getter that closed since, or stopped beating), until its tombstone; for the
    topic it was about only (a queue defined again has another), none when that is not known."""
    table = ConnectionTable(timeout=10.0)
    table.apply("g", acked_beat("g", {"b": 1}, (0, 3, 3)), 100.0)
    table.apply("h", acked_beat("h", {"b": 1}, (0, 7, 8)), 100.0)
    table.apply("g", acked_beat("g", {"b": 1}), 100.1)  # no new answer: stale, not taken
    assert table.acked("Q", "aa").encode() == [[0, 3, 3], [0, 7, 8]]
    assert not table.acked("Q", "bb") and not table.acked("Q")
    table.apply("g", acked_beat("g", {"b": 2}, (0, 3, 4)), 100.2)
    assert table.acked("Q", "aa").encode() == [[0, 3, 4], [0, 7, 8]]
    table.apply("x", Heartbeat("x").encode(), 200.0)  # g and h no longer alive: still named
    assert table.acked("Q", "aa").encode() == [[0, 3, 4], [0, 7, 8]]
    assert not table.acked("R", "aa") and len(table.lines_of("Q")) == 2
    table.apply("h", None, 200.1)
    assert table.acked("Q", "aa").encode() == [[0, 3, 4]]


def test_a_ledger_line_has_passed_once_the_start_lies_above_every_span() -> None:
    line = LedgerEntry("ab", AckedSpans([(0, 3, 4), (1, 7, 7)]))
    assert not line.passed({0: 5})  # partition 1's start not known
    assert not line.passed({0: 5, 1: 7})
    assert line.passed({0: 5, 1: 8})
    assert decode_ledger(encode_ledger({"Q": line})) == {"Q": line}
    with pytest.raises(MQError):
        decode_ledger(b'{"schema":1,"acked":{"Q":{"spans":[]}}}')


def test_ledgers_are_not_connections_and_name_their_topics_lines_only() -> None:
    """A ledger record (a connection that closed or ended) is never listed, reaped or
    expired as a connection; its lines count for their own topic id only (the queue's as
    Kafka answers it now) till the record's tombstone; a damaged one names nothing."""
    table = ConnectionTable(timeout=10.0)
    key = LEDGER_PREFIX + "gone"
    ledger = {
        "Q": LedgerEntry("aa", AckedSpans([(0, 1, 1)])),
        "R": LedgerEntry("bb", AckedSpans([(0, 5, 5)])),
    }
    table.apply(key, encode_ledger(ledger), 100.0)
    table.apply("live", Heartbeat("live").encode(), 100.0)
    assert list(table) == ["live"] and table.expired() == [] and not table.uses("Q")
    assert table.acked("Q", "aa").encode() == [[0, 1, 1]]
    assert not table.acked("Q", "bb")  # the queue was defined again: another topic
    assert not table.acked("Q")  # its topic not known: no group, nothing got above a start
    assert table.acked("R", "bb").encode() == [[0, 5, 5]]
    assert table.ledgers("Q") == {key: ledger["Q"]}
    table.apply(key, b"not json", 100.1)
    assert not table.acked("Q", "aa")
    table.apply(key, encode_ledger(ledger), 100.2)
    table.apply(key, None, 100.3)
    assert not table.acked("R", "bb") and table.ledger(key) == {}


def test_a_getter_names_at_most_max_spans_the_lowest_ones() -> None:
    above = [(0, o) for o in range(0, 2 * MAX_SPANS + 10, 2)]  # every other record
    named = acked_above({}, above, {0: 0})
    assert len(named.spans()) == MAX_SPANS and (0, 0) in named
    assert (0, 2 * (MAX_SPANS - 1)) in named and (0, 2 * MAX_SPANS) not in named
