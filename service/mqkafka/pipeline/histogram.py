"""Latency histograms with 1% buckets: percentiles per queue without a sketch in the state.

A latency ``x`` (milliseconds) falls in bucket ``b = sign(x) * ceil(ln(1 + |x|) / ln(1.01))``
and the bucket stands for ``sign(b) * (1.01^|b| - 1)``, its upper edge: within 1% of every
``1 + |x|`` in it. Counting (queue, bucket) pairs is a plain sum that Spark's hash aggregation
keeps in fixed-width state, where ``percentile_approx`` would keep a digest object per group
(measured: about a third of the job's time). The percentile is nearest-rank: the smallest
bucket whose cumulative count reaches ``p * total``.

The Python functions are the definition; ``bucket_column`` and ``value_column`` are the same
formulas as Spark expressions, checked against them by the tests.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Final

GROWTH: Final = 1.01
_LOG_GROWTH: Final = math.log(GROWTH)


def bucket(latency_ms: float) -> int:
    magnitude = math.ceil(math.log1p(abs(latency_ms)) / _LOG_GROWTH - 1e-9)
    return magnitude if latency_ms >= 0 else -magnitude


def value(bucket_index: int) -> float:
    magnitude = math.expm1(abs(bucket_index) * _LOG_GROWTH)
    return magnitude if bucket_index >= 0 else -magnitude


def percentile(counts: Iterable[tuple[int, int]], fraction: float) -> float | None:
    """Nearest-rank percentile of (bucket, count) pairs; None when they count nothing."""
    ordered = sorted((b, c) for b, c in counts if c > 0)
    total = sum(c for _, c in ordered)
    if total == 0:
        return None
    running = 0
    for b, c in ordered:
        running += c
        if running >= fraction * total:
            return value(b)
    return value(ordered[-1][0])


def bucket_column(latency: Any) -> Any:
    from pyspark.sql import functions as F

    magnitude = F.ceil(F.log1p(F.abs(latency)) / F.lit(_LOG_GROWTH) - F.lit(1e-9)).cast("int")
    return F.when(latency >= 0, magnitude).otherwise(-magnitude)


def value_column(bucket_index: Any) -> Any:
    from pyspark.sql import functions as F

    magnitude = F.expm1(F.abs(bucket_index) * F.lit(_LOG_GROWTH))
    return F.when(bucket_index >= 0, magnitude).otherwise(-magnitude)
