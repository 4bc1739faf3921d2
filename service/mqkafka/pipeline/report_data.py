"""What the report shows, as plain values: loaded from the tables by ``report.load``, drawn
by ``charts`` and laid out by ``report.render``. Pure Python, so it is tested without Spark.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC, name_of


@dataclass(frozen=True)
class Minute:
    """One row of ``minute_totals``."""

    minute: datetime
    publications: int
    deliveries: int
    published_bytes: int
    delivered_bytes: int
    failures: int
    latency_p50_ms: float | None
    latency_p99_ms: float | None
    fanout_mean: float | None

    def __post_init__(self) -> None:
        counts = (self.publications, self.deliveries, self.published_bytes, self.delivered_bytes)
        if min(*counts, self.failures) < 0:
            raise MQError(RC.OPTIONS_ERROR, f"negative count in the minute {self.minute}")


@dataclass(frozen=True)
class TopicTotal:
    topic: str
    publications: int
    deliveries: int
    delivered_bytes: int


@dataclass(frozen=True)
class FailureTotal:
    reason: int
    command: str | None
    completion: str
    failures: int

    @property
    def label(self) -> str:
        return f"{name_of(self.reason)} ({self.reason})"


@dataclass(frozen=True)
class SubscriptionCounts:
    """The newest subscriptions snapshot: how many, on which topics, and the history."""

    snapshot: str
    total: int
    by_topic: tuple[tuple[str, int], ...]
    history: tuple[tuple[str, int], ...]  # (snapshot id, total), oldest first
    retained: int | None = None


@dataclass(frozen=True)
class ReportData:
    generated_at: datetime
    minutes: tuple[Minute, ...] = ()
    topics: tuple[TopicTotal, ...] = ()
    failures: tuple[FailureTotal, ...] = ()
    subscriptions: SubscriptionCounts | None = None
    notes: tuple[str, ...] = field(default=())


def minutes_from(rows: Iterable[Mapping[str, Any]]) -> tuple[Minute, ...]:
    """``minute_totals`` rows, oldest first; missing counts are 0."""
    built = [
        Minute(
            minute=row["minute"],
            publications=int(row.get("publications") or 0),
            deliveries=int(row.get("deliveries") or 0),
            published_bytes=int(row.get("published_bytes") or 0),
            delivered_bytes=int(row.get("delivered_bytes") or 0),
            failures=int(row.get("failures") or 0),
            latency_p50_ms=row.get("latency_p50_ms"),
            latency_p99_ms=row.get("latency_p99_ms"),
            fanout_mean=row.get("fanout_mean"),
        )
        for row in rows
    ]
    return tuple(sorted(built, key=lambda m: m.minute))


def failures_by_reason(failures: Iterable[FailureTotal]) -> list[tuple[str, int]]:
    """(label, count) per reason code, most frequent first; ties by label."""
    totals: dict[str, int] = {}
    for failure in failures:
        totals[failure.label] = totals.get(failure.label, 0) + failure.failures
    return sorted(totals.items(), key=lambda item: (-item[1], item[0]))


@dataclass(frozen=True)
class Summary:
    first: datetime | None
    last: datetime | None
    publications: int
    deliveries: int
    delivered_bytes: int
    failures: int
    peak_deliveries_per_s: float
    peak_minute: datetime | None


def summarise(minutes: tuple[Minute, ...]) -> Summary:
    if not minutes:
        return Summary(None, None, 0, 0, 0, 0, 0.0, None)
    peak = max(minutes, key=lambda m: m.deliveries + m.publications)
    return Summary(
        first=minutes[0].minute,
        last=minutes[-1].minute,
        publications=sum(m.publications for m in minutes),
        deliveries=sum(m.deliveries for m in minutes),
        delivered_bytes=sum(m.delivered_bytes for m in minutes),
        failures=sum(m.failures for m in minutes),
        peak_deliveries_per_s=peak.deliveries / 60.0,
        peak_minute=peak.minute,
    )
