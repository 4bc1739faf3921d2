"""The keeper's commits of a getter's lane (issue 35 point 4), on a stand-in consumer that
records what it was handed: acceptances go in offset order, no sooner than the gap after the
last commit, never waiting on the application's call, and one noted while a commit is in
flight is sent by the next, not lost."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from mqkafka.kafka.clients import AcknowledgeType
from mqkafka.mqi.kafkaqm import lane as lanes
from mqkafka.mqi.kafkaqm.interrupts import Callbacks
from mqkafka.mqi.kafkaqm.queuerecord import Rec

ACCEPT = AcknowledgeType.ACCEPT


class Message:
    def __init__(self, offset: int) -> None:
        self._offset = offset

    def partition(self) -> int:
        return 0

    def offset(self) -> int:
        return self._offset


class Consumer:
    """Records acknowledgements and commits; ``during_commit`` runs inside a commit."""

    def __init__(self) -> None:
        self.handed: list[int] = []
        self.commits: list[list[int]] = []
        self.during_commit: Any = None

    def acknowledge(self, msg: Message, kind: AcknowledgeType) -> None:
        self.handed.append(msg.offset())

    def commit_sync(self, timeout: float) -> None:
        if self.during_commit is not None:
            work, self.during_commit = self.during_commit, None
            work()
        self.commits.append(self.handed)
        self.handed = []


def lane() -> lanes.Lane:
    made = lanes.Lane.__new__(lanes.Lane)  # no client: only what committing uses
    made.consumer, made._callbacks, made._acks = Consumer(), Callbacks(), []
    made._io, made._noted = threading.Lock(), threading.Lock()
    made.unsent, made.last_commit, made.closed = 0, time.monotonic() - 60, False
    return made


def note(on: lanes.Lane, *offsets: int) -> None:
    for offset in offsets:
        on.ack(Rec(Message(offset), 1), ACCEPT)


def test_acceptances_are_committed_in_offset_order_and_counted() -> None:
    one = lane()
    note(one, 7, 3, 5)
    assert one.unsent == 3
    assert one.commit_due(0.01) == lanes.INF
    assert one.consumer.commits == [[3, 5, 7]] and one.unsent == 0


@pytest.mark.parametrize("gap", [0.01, 0.5, 60.0])
def test_a_lane_committed_less_than_the_gap_ago_is_left_until_the_gap_is_up(gap: float) -> None:
    one = lane()
    note(one, 1)
    one.commit_due(gap)  # the last commit was long ago: at once
    note(one, 2)
    wait = one.commit_due(gap)
    assert 0 < wait <= gap and one.unsent == 1 and one.consumer.commits == [[1]]
    one.last_commit -= gap
    assert one.commit_due(gap) == lanes.INF and one.consumer.commits == [[1], [2]]


def test_the_keeper_never_waits_on_a_consumer_the_application_is_using() -> None:
    one = lane()
    note(one, 1)
    with one._io:  # the application in a poll or a commit
        assert one.commit_due(0.01) == lanes.BUSY_RETRY
    assert one.unsent == 1 and one.consumer.commits == []
    assert one.commit_due(0.01) == lanes.INF and one.consumer.commits == [[1]]


def test_an_acceptance_noted_during_a_commit_is_sent_by_the_next() -> None:
    one = lane()
    note(one, 1, 2)
    one.consumer.during_commit = lambda: note(one, 3)  # the application, meanwhile
    assert one.commit_due(0.01) == 0.01  # looked at again a gap later: nothing woke it
    assert one.consumer.commits == [[1, 2]] and one.unsent == 1
    one.commit(sync=True)
    assert one.consumer.commits == [[1, 2], [3]] and one.unsent == 0


def test_nothing_noted_is_nothing_to_do_and_a_closed_lane_commits_nothing() -> None:
    one = lane()
    assert one.commit_due(0.0) == lanes.INF and one.consumer.commits == []
    note(one, 1)
    one.closed = True
    one.commit_due(0.0)
    assert one.consumer.commits == []
