"""What a browse passes over (issue 35 point 4), pure: Kafka's share-group start offset trails
the acknowledgements, its lag does not; what this process knows it got is counted once."""

from __future__ import annotations

import pytest

from mqkafka.kafka.sharestate import ShareOffsets, got_unseen
from mqkafka.mqi.kafkaqm.logreader import Consumed, known_between


@pytest.mark.parametrize(
    ("start", "lag", "records", "known", "hidden"),
    [
        (0, 5, 5, 0, 0),  # nothing got
        (1, 3, 4, 0, 1),  # m0, m1 got; the start stays on the getter's batch (measured)
        (2, 3, 3, 0, 0),  # the start caught up
        (1, 3, 4, 1, 0),  # the one above the start is known here
        (0, 0, 5, 0, 5),  # everything got, the start not yet moved
        (0, 3, 5, 4, 0),  # knowing more than Kafka says: never negative
        (0, 1, 1, 0, 0),  # one record put in a transaction: its marker is no record got
        (-1, -1, 5, 0, 0),  # the group never started: nothing is hidden
        (3, -1, 5, 0, 0),  # lag unknown
        (6, 0, -1, 0, 0),  # the records not counted: nothing to hide
    ],
)
def test_got_unseen(start: int, lag: int, records: int, known: int, hidden: int) -> None:
    assert got_unseen(ShareOffsets(0, start, lag), records, known) == hidden


def consumed(floor: int | None, *above: int) -> Consumed:
    made = Consumed()
    if floor is not None:
        made.raise_floor(0, floor)
    for offset in above:
        made.add((0, offset))
    return made


@pytest.mark.parametrize(
    ("sets", "start", "end", "known"),
    [
        ([], 0, 10, 0),
        ([consumed(3)], 0, 10, 3),
        ([consumed(3)], 2, 10, 1),
        ([consumed(None, 4, 6)], 0, 10, 2),
        ([consumed(None, 4, 6), consumed(None, 6, 7)], 0, 10, 3),  # 6 counted once
        ([consumed(5, 7), consumed(None, 3, 7, 12)], 2, 10, 4),  # 2..4 by the floor, 7
        ([consumed(None, 4)], 5, 10, 0),  # below the start: not counted
    ],
)
def test_known_between_counts_the_union_once(
    sets: list[Consumed], start: int, end: int, known: int
) -> None:
    assert known_between(sets, 0, start, end) == known
