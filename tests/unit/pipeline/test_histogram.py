"""The 1% latency buckets behind the per-queue percentiles."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.pipeline.histogram import bucket, percentile, value

latencies = st.floats(-1e9, 1e9, allow_nan=False)


@given(latencies)
def test_a_bucket_stands_for_its_values_to_one_percent(x: float) -> None:
    represented = value(bucket(x))
    assert abs(represented - x) <= 0.01 * (1 + abs(x)) + 1e-9
    assert abs(represented) >= abs(x) - 1e-9  # the bucket's outer edge


@given(latencies, latencies)
def test_buckets_keep_the_order_of_latencies(a: float, b: float) -> None:
    if a <= b:
        assert bucket(a) <= bucket(b)


@pytest.mark.parametrize(
    ("counts", "fraction", "expected"),
    [
        ([], 0.5, None),
        ([(bucket(10), 0)], 0.5, None),
        ([(bucket(10), 1)], 0.99, value(bucket(10))),
        ([(bucket(1), 1), (bucket(100), 1)], 0.5, value(bucket(1))),  # nearest rank: the 1st of 2
        ([(bucket(1), 1), (bucket(100), 1)], 0.51, value(bucket(100))),
        ([(bucket(100), 98), (bucket(5000), 2)], 0.99, value(bucket(5000))),
        ([(bucket(5000), 2), (bucket(100), 98)], 0.98, value(bucket(100))),  # any order
    ],
)
def test_percentile_is_nearest_rank_over_buckets(
    counts: list[tuple[int, int]], fraction: float, expected: float | None
) -> None:
    assert percentile(counts, fraction) == expected
