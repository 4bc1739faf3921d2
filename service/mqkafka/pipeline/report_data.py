"""What the report shows, as plain values: loaded from the tables by ``report.load``, drawn
by ``charts`` and laid out by ``report.render``. Pure Python, so it is tested without Spark.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC, name_of

MINUTE: Final = timedelta(minutes=1)
# a COMMAND event without a command: the broker refused the message before it knew which
# command it was (no Command, or an option it could not parse, e.g. 3083)
UNPARSED: Final = "(refused unparsed)"


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
    commands: int = 0

    def __post_init__(self) -> None:
        counts = (self.publications, self.deliveries, self.published_bytes, self.delivered_bytes)
        if min(*counts, self.failures, self.commands) < 0:
            raise MQError(RC.OPTIONS_ERROR, f"negative count in the minute {self.minute}")


@dataclass(frozen=True)
class TopicTotal:
    topic: str
    publications: int
    deliveries: int
    delivered_bytes: int


@dataclass(frozen=True)
class QueueTotal:
    """A subscriber queue over the period (``queue_minute``); the p99 is its worst minute's."""

    queue: str
    deliveries: int
    delivered_bytes: int
    commands: int
    failures: int
    worst_p99_ms: float | None


@dataclass(frozen=True)
class CommandTotal:
    """Commands of one kind and completion over the period (``command_minute``)."""

    command: str | None
    completion: str
    commands: int


@dataclass(frozen=True)
class FailureTotal:
    reason: int
    command: str | None
    completion: str
    failures: int

    @property
    def label(self) -> str:
        return reason_label(self.reason)


@dataclass(frozen=True)
class SubscriptionCounts:
    """The newest subscriptions snapshot: how many, on which topics, and the history."""

    snapshot: str
    total: int
    by_topic: tuple[tuple[str, int], ...]
    history: tuple[tuple[str, int], ...]  # (snapshot id, total), oldest first
    retained: int | None = None


@dataclass(frozen=True)
class StateTable:
    """The newest snapshot of one state topic: its id, live keys and the first rows."""

    name: str
    snapshot: str
    count: int
    headers: tuple[str, ...]
    rows: tuple[tuple[object, ...], ...]


@dataclass(frozen=True)
class ReportData:
    generated_at: datetime
    minutes: tuple[Minute, ...] = ()
    topics: tuple[TopicTotal, ...] = ()
    failures: tuple[FailureTotal, ...] = ()
    subscriptions: SubscriptionCounts | None = None
    notes: tuple[str, ...] = field(default=())
    queues: tuple[QueueTotal, ...] = ()
    commands: tuple[CommandTotal, ...] = ()
    states: tuple[StateTable, ...] = ()
    # minutes from here on are not final: still inside the streaming job's watermark, they
    # were counted by the report from the activity topic and may still grow
    open_from: datetime | None = None


def reason_label(reason: int) -> str:
    return f"{name_of(reason)} ({reason})"


def command_label(command: str | None) -> str:
    return UNPARSED if command is None else command


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
            commands=int(row.get("commands") or 0),
        )
        for row in rows
    ]
    return tuple(sorted(built, key=lambda m: m.minute))


def busiest(topics: Iterable[TopicTotal], top: int) -> tuple[TopicTotal, ...]:
    """The ``top`` topics by deliveries, then publications; a topic that carried nothing (only
    refused publications) is not listed at all."""
    carried = [t for t in topics if t.publications or t.deliveries]
    ranked = sorted(carried, key=lambda t: (-t.deliveries, -t.publications, t.topic))
    return tuple(ranked[:top])


def failures_by_reason(failures: Iterable[FailureTotal]) -> list[tuple[str, int]]:
    """(label, count) per reason code, most frequent first; ties by label."""
    totals: dict[str, int] = {}
    for failure in failures:
        totals[failure.label] = totals.get(failure.label, 0) + failure.failures
    return sorted(totals.items(), key=lambda item: (-item[1], item[0]))


def commands_by_kind(totals: Iterable[CommandTotal]) -> list[tuple[str, int, int, int]]:
    """(command, ok, warning, error) per command, most used first."""
    table: dict[str, list[int]] = {}
    for total in totals:
        row = table.setdefault(command_label(total.command), [0, 0, 0])
        row[("ok", "warning", "error").index(total.completion)] += total.commands
    ranked = sorted(table.items(), key=lambda item: (-sum(item[1]), item[0]))
    return [(name, ok, warning, error) for name, (ok, warning, error) in ranked]


def broken(
    xs: Sequence[datetime], ys: Sequence[float | None], step: timedelta = MINUTE
) -> tuple[list[datetime], list[float]]:
    """The points with a NaN between two that are more than ``step`` apart, so a line drawn
    through them stops at an idle gap instead of bridging it (and a None is a NaN too)."""
    out_x: list[datetime] = []
    out_y: list[float] = []
    for x, y in zip(xs, ys, strict=True):
        if out_x and x - out_x[-1] > step:
            out_x.append(out_x[-1] + step)
            out_y.append(math.nan)
        out_x.append(x)
        out_y.append(math.nan if y is None else float(y))
    return out_x, out_y


def bucket_width(span: timedelta, most: int = 360) -> timedelta:
    """The width of the buckets a chart draws: a minute while ``span`` holds at most ``most``
    of them, else the shortest round width that does (a week of minutes is a smear)."""
    for minutes in (1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440):
        if span <= most * timedelta(minutes=minutes):
            return timedelta(minutes=minutes)
    return timedelta(days=span // timedelta(days=most) + 1)


def coarsen(
    xs: Sequence[datetime],
    ys: Sequence[float | None],
    width: timedelta,
    reduce: Callable[[list[float]], float],
) -> tuple[list[datetime], list[float | None]]:
    """Points in buckets of ``width`` (from midnight), each ``reduce``d over its values; a
    bucket with points but no value is None, one with no point is left out (a gap)."""
    if width <= MINUTE:
        return list(xs), list(ys)
    buckets: dict[datetime, list[float]] = {}
    for x, y in zip(xs, ys, strict=True):
        day = x.replace(hour=0, minute=0, second=0, microsecond=0)
        start = day + (x - day) // width * width
        values = buckets.setdefault(start, [])
        if y is not None:
            values.append(y)
    starts = sorted(buckets)
    return starts, [reduce(buckets[b]) if buckets[b] else None for b in starts]


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def gaps(xs: Sequence[datetime], step: timedelta = MINUTE) -> list[tuple[datetime, datetime]]:
    """The idle stretches between points: (end of the last minute seen, next minute)."""
    return [(a + step, b) for a, b in itertools.pairwise(xs) if b - a > step]


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
    commands: int = 0
    active_minutes: int = 0


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
        commands=sum(m.commands for m in minutes),
        active_minutes=len(minutes),
    )
