"""The record boundary of mqkafka.faust's exactly-once correction, without Kafka: a commit
waits for the records in flight, and holds new ones until it is done."""

from __future__ import annotations

import asyncio

import pytest

from mqkafka.faust.exactlyonce import RecordBoundary


async def _settles(awaitable: asyncio.Future[object] | asyncio.Task[object]) -> bool:
    """Whether it is done once every task ready to run has run."""
    for _ in range(5):
        await asyncio.sleep(0)
    return awaitable.done()


@pytest.mark.parametrize("in_flight", [0, 1, 3])
def test_a_commit_waits_until_no_record_is_in_flight(in_flight: int) -> None:
    async def scenario() -> None:
        boundary = RecordBoundary()
        for number in range(in_flight):
            assert await boundary.enter(number) == number
        closing = asyncio.ensure_future(boundary.close())
        for _ in range(in_flight):
            assert not await _settles(closing)
            boundary.leave()
        assert await _settles(closing)
        boundary.reopen()

    asyncio.run(scenario())


def test_a_record_waits_at_the_gate_while_a_commit_is_made() -> None:
    async def scenario() -> None:
        boundary = RecordBoundary()
        await boundary.close()
        entering = asyncio.ensure_future(boundary.enter("next"))
        assert not await _settles(entering)
        assert boundary.in_flight == 0  # not counted until it passes
        boundary.reopen()
        assert await _settles(entering) and entering.result() == "next"
        assert boundary.in_flight == 1

    asyncio.run(scenario())


def test_the_gate_stays_closed_until_the_last_of_two_commits_reopens_it() -> None:
    async def scenario() -> None:
        boundary = RecordBoundary()
        await boundary.close()
        await boundary.close()
        entering = asyncio.ensure_future(boundary.enter(1))
        boundary.reopen()
        assert not await _settles(entering)
        boundary.reopen()
        assert await _settles(entering)

    asyncio.run(scenario())


def test_a_record_left_without_entering_counts_nothing_below_zero() -> None:
    boundary = RecordBoundary()
    boundary.leave()  # a skipped record: acknowledged, never through the gate
    assert boundary.in_flight == 0
