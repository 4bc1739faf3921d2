"""The record boundary of mqkafka.faust's exactly-once correction, without Kafka: a commit
waits for the records in flight and holds new ones until it is done; what a commit may take
is the last record each partition processed, never one Faust skipped or one that failed; after
a revocation records are dropped at the gate."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest
from faust.exceptions import Skip

from mqkafka.faust.exactlyonce import RecordBoundary


@dataclass(frozen=True)
class _Message:
    tp: str
    offset: int


@dataclass(eq=False)
class _Event:
    message: _Message


def _event(offset: int, tp: str = "stream[0]") -> _Event:
    return _Event(_Message(tp, offset))


async def _settles(awaitable: asyncio.Future[object] | asyncio.Task[object]) -> bool:
    """Whether it is done once every task ready to run has run."""
    for _ in range(5):
        await asyncio.sleep(0)
    return awaitable.done()


@pytest.mark.parametrize("in_flight", [0, 1, 3])
def test_a_commit_waits_until_no_record_is_in_flight(in_flight: int) -> None:
    async def scenario() -> None:
        boundary = RecordBoundary()
        events = [_event(offset) for offset in range(in_flight)]
        for event in events:
            await boundary.enter(event)
        closing = asyncio.ensure_future(boundary.close())
        for event in events:
            assert not await _settles(closing)
            boundary.leave(event)
        assert await _settles(closing)
        boundary.reopen()

    asyncio.run(scenario())


def test_a_record_waits_at_the_gate_while_a_commit_is_made() -> None:
    async def scenario() -> None:
        boundary = RecordBoundary()
        await boundary.close()
        entering = asyncio.ensure_future(boundary.enter(_event(0)))
        assert not await _settles(entering)
        assert boundary.in_flight == 0  # not counted until it passes
        boundary.reopen()
        assert await _settles(entering)
        assert boundary.in_flight == 1

    asyncio.run(scenario())


def test_the_gate_stays_closed_until_the_last_of_two_commits_reopens_it() -> None:
    async def scenario() -> None:
        boundary = RecordBoundary()
        await boundary.close()
        await boundary.close()
        entering = asyncio.ensure_future(boundary.enter(_event(1)))
        boundary.reopen()
        assert not await _settles(entering)
        boundary.reopen()
        assert await _settles(entering)

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("processed", "skipped", "done"),
    [
        ([0, 1, 2], [], {"stream[0]": 2}),
        ([0, 1], [2, 3], {"stream[0]": 1}),  # skipped by Faust (stopped flow, old generation)
        ([5], [6], {"stream[0]": 5}),
        ([], [0], {}),
    ],
)
def test_what_a_commit_takes_is_the_last_record_processed_never_one_skipped(
    processed: list[int], skipped: list[int], done: dict[str, int]
) -> None:
    async def scenario() -> None:
        boundary = RecordBoundary()
        for offset in processed:
            event = _event(offset)
            await boundary.enter(event)
            boundary.leave(event)
        for offset in skipped:
            boundary.leave(_event(offset))  # acknowledged, never through the gate
        assert boundary.done == done
        assert boundary.in_flight == 0

    asyncio.run(scenario())


def test_a_record_that_failed_is_not_done_and_nothing_after_it_is() -> None:
    async def scenario() -> None:
        boundary = RecordBoundary()
        first, failing, later = _event(0), _event(1), _event(0, "control[0]")
        for event in (first, failing, later):
            await boundary.enter(event)
        boundary.leave(first)
        boundary.fail(failing, "stream [0] offset 1")
        boundary.leave(later)
        assert boundary.done == {"stream[0]": 0}
        assert boundary.broken == "stream [0] offset 1"
        assert boundary.in_flight == 0

    asyncio.run(scenario())


def test_after_a_revocation_records_are_dropped_at_the_gate() -> None:
    async def scenario() -> None:
        boundary = RecordBoundary()
        boundary.revoked = True
        with pytest.raises(Skip):
            await boundary.enter(_event(7))
        assert boundary.in_flight == 0 and boundary.done == {}

    asyncio.run(scenario())
