"""The stall clock both state readers use (``kafka.readstall``): time behind counts only between
looks with Kafka answering, progress starts it again, a pause drops the gap, a clear drops it
all. Looks: (seconds, progress, answering); the answer is whether the reader is due to be
replaced after them (limit 10 s)."""

from __future__ import annotations

import pytest

from mqkafka.kafka.readstall import ReadStall

Look = tuple[float, int, bool]


@pytest.mark.parametrize(
    ("looks", "seconds", "due"),
    [
        ([(0, 0, True), (5, 0, True), (10, 0, True)], 10.0, True),
        ([(0, 0, True), (5, 1, True), (10, 1, True)], 5.0, False),  # read at 5
        ([(0, 0, True), (4, 0, False), (8, 0, True), (12, 0, True)], 4.0, False),  # 8 to 12
        ([(0, 0, True), (9, 0, True), (-1, 0, True), (30, 0, True)], 9.0, False),  # paused
        ([(0, 0, True), (9, 0, True), (-2, 0, True), (15, 0, True)], 0.0, False),  # cleared
        ([(0, 0, False), (100, 0, False)], 0.0, False),  # Kafka never answered
    ],
    ids=["stuck", "reads", "away between", "paused", "cleared", "never answering"],
)
def test_the_clock_counts_only_stuck_time_with_kafka_answering(
    looks: list[Look], seconds: float, due: bool
) -> None:
    stall = ReadStall(after=10.0)
    result = False
    for at, progress, answering in looks:
        if at == -1:
            stall.pause()
        elif at == -2:
            stall.clear()
        else:
            result = stall.look(progress, at, answering=answering)
    assert (stall.seconds, result) == (seconds, due)
