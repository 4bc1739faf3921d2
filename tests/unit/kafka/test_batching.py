"""The transaction-sizing rule of TransactionalLoop (issue 21), as a table."""

from __future__ import annotations

import pytest

from mqkafka.kafka.batching import COMMIT, BatchLimits, chunks, next_wait

LIMITS = BatchLimits(
    max_records=100,
    max_bytes=10_000,
    max_writes=300,
    max_seconds=0.25,
    busy_records=20,
    busy_bytes=2_000,
    fill_wait=0.002,
)

# (why, records, size, writes, elapsed, last_batch, waited, stopping, expected)
CASES = [
    ("a trickle: one record, nothing more arrived", 1, 300, 1, 0.0, 0, False, False, COMMIT),
    ("input keeps arriving: take it without waiting", 5, 500, 5, 0.01, 5, False, False, 0.0),
    ("a short batch under full load does not commit", 60, 5000, 60, 0.01, 3, False, False, 0.0),
    ("busy by records, a gap between fetches: wait", 20, 100, 20, 0.01, 0, False, False, 0.002),
    ("busy by bytes (large records), a gap: wait", 2, 2000, 2, 0.01, 0, False, False, 0.002),
    ("busy, waited and nothing came: commit", 50, 5000, 50, 0.01, 0, True, False, COMMIT),
    (
        "the wait never passes max_seconds",
        50,
        5000,
        50,
        0.249,
        0,
        False,
        False,
        pytest.approx(0.001),
    ),
    ("full by records", 100, 500, 100, 0.01, 10, False, False, COMMIT),
    ("full by bytes: a few large records", 3, 10_000, 3, 0.01, 1, False, False, COMMIT),
    ("full by writes: fan-out", 30, 900, 300, 0.01, 10, False, False, COMMIT),
    ("old enough: commit even while input arrives", 40, 900, 40, 0.25, 10, False, False, COMMIT),
    ("stopping: commit what it holds", 2, 10, 2, 0.0, 2, False, True, COMMIT),
]


@pytest.mark.parametrize(
    "records,size,writes,elapsed,last_batch,waited,stopping,expected",
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_next_wait(
    records: int,
    size: int,
    writes: int,
    elapsed: float,
    last_batch: int,
    waited: bool,
    stopping: bool,
    expected: float,
) -> None:
    got = next_wait(
        LIMITS,
        records=records,
        size=size,
        writes=writes,
        elapsed=elapsed,
        last_batch=last_batch,
        waited=waited,
        stopping=stopping,
    )
    assert got == expected


def test_defaults_bound_a_transaction_whatever_the_record_size() -> None:
    """At the defaults, a full stream of 4 MB records still commits within max_bytes."""
    limits = BatchLimits()
    records, size = 0, 0
    while (
        next_wait(limits, records=records, size=size, writes=records, elapsed=0.0, last_batch=1)
        != COMMIT
    ):
        records, size = records + 1, size + (4 << 20)
    assert size - (4 << 20) < limits.max_bytes <= size


@pytest.mark.parametrize(
    "lengths,limit,expected",
    [
        ([], 10, []),
        ([3, 3, 3], 10, [(0, 3)]),
        ([4, 4, 4], 8, [(0, 2), (2, 3)]),
        ([20, 1, 1], 10, [(0, 1), (1, 3)]),  # one record larger than the limit goes alone
        ([1, 20, 1], 10, [(0, 1), (1, 2), (2, 3)]),
        ([5, 5, 5, 5], 10, [(0, 2), (2, 4)]),
    ],
)
def test_chunks_cut_a_batch_by_bytes(
    lengths: list[int], limit: int, expected: list[tuple[int, int]]
) -> None:
    assert chunks(lengths, limit) == expected
