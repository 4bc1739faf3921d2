"""The report's charts: one PNG per question a reader asks, drawn with matplotlib (Agg).

Every chart says what it shows in its title and axis labels, and says so plainly when there
is nothing to show yet rather than drawing empty axes. Time axes pick their tick step from the
span (a minute to weeks) so labels never crowd; idle minutes break the lines; minutes still
inside the streaming job's watermark are shaded as not final. Topic and queue names may be in
any script: a CJK font, when one is installed, backs up the default font glyph by glyph.
"""

from __future__ import annotations

import functools
import glob
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Final

from mqkafka.pipeline.report_data import (
    QueueTotal,
    SubscriptionCounts,
    TopicTotal,
    broken,
    bucket_width,
    coarsen,
    gaps,
    mean,
)

SIZE: Final = (9.0, 4.0)
DPI: Final = 100
PUBLICATIONS, DELIVERIES, FAILURES = "#1f77b4", "#2ca02c", "#d62728"
# fonts with CJK glyphs, tried in turn after the default (Debian's fonts-noto-cjk first)
CJK_FONT_FILES: Final = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/**/NotoSansCJK*.tt[cf]",
    "/usr/share/fonts/**/NotoSansCJK*.otf",
    "/usr/share/fonts/**/wqy-*.tt[cf]",
    "/usr/share/fonts/**/ipaexg.ttf",
    "/usr/share/fonts/**/DroidSansFallback*.ttf",
)
# tick steps a reader counts in, shortest first
_STEPS: Final = tuple(
    [timedelta(minutes=n) for n in (1, 2, 5, 10, 15, 30)]
    + [timedelta(hours=n) for n in (1, 2, 3, 6, 12)]
    + [timedelta(days=n) for n in (1, 2, 7, 14, 28)]
)
MAX_TICKS: Final = 8


@functools.cache
def font_families() -> tuple[str, ...]:
    """The font families charts use: matplotlib's default, then the first CJK font found
    (registered with matplotlib, whose font cache may predate its installation)."""
    from matplotlib import font_manager

    families = ["DejaVu Sans"]
    for pattern in CJK_FONT_FILES:
        for path in sorted(glob.glob(pattern, recursive=True)):
            font_manager.fontManager.addfont(path)
            families.append(font_manager.FontProperties(fname=path).get_name())
            return tuple(families)
    return tuple(families)


def plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    plt.rcParams["font.family"] = list(font_families())
    return plt


def _figure(title: str) -> tuple[Any, Any]:
    fig, ax = plt().subplots(figsize=SIZE, dpi=DPI)
    ax.set_title(title, loc="left", fontsize=12)
    ax.grid(True, alpha=0.3)
    return fig, ax


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path)
    plt().close(fig)
    return path


def _empty(ax: Any, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="grey")
    ax.set_xticks([])
    ax.set_yticks([])


def tick_step(span: timedelta, most: int = MAX_TICKS) -> timedelta:
    """The shortest reader's step that puts at most ``most`` ticks over ``span``."""
    for step in _STEPS:
        if span / step <= most - 1:
            return step
    return _STEPS[-1] * (span // (_STEPS[-1] * (most - 1)) + 1)


def _locator(step: timedelta) -> Any:
    from matplotlib import dates

    if step < timedelta(hours=1):
        n = int(step.total_seconds() // 60)
        return dates.MinuteLocator(byminute=range(0, 60, n))  # type: ignore[no-untyped-call]
    if step < timedelta(days=1):
        n = int(step.total_seconds() // 3600)
        return dates.HourLocator(byhour=range(0, 24, n))  # type: ignore[no-untyped-call]
    return dates.DayLocator(interval=step.days)  # type: ignore[no-untyped-call]


def time_axis(ax: Any, first: datetime, last: datetime, open_from: datetime | None = None) -> None:
    """The x axis from the first to the end of the last minute, ticks every ``tick_step``
    (labels: time of day, the date where it changes); minutes from ``open_from`` shaded."""
    from matplotlib import dates

    end = last + timedelta(minutes=1)
    step = tick_step(end - first)
    pad = max(step / 4, timedelta(seconds=15))
    ax.set_xlim(first - pad, end + pad)
    locator = _locator(step)
    ax.xaxis.set_major_locator(locator)
    formatter = dates.ConciseDateFormatter(locator, show_offset=True)  # type: ignore[no-untyped-call]
    ax.xaxis.set_major_formatter(formatter)
    if open_from is not None and open_from <= last:
        ax.axvspan(open_from, end, color="#f0c040", alpha=0.15, lw=0)
        ax.text(open_from, 0.02, " not final yet", transform=ax.get_xaxis_transform(),
                va="bottom", fontsize=8, color="#806000")  # fmt: skip
    ax.set_xlabel("time (UTC)")


Series = Sequence[tuple[Sequence[float | None], str, str, Callable[[list[float]], float]]]


def _lines(ax: Any, xs: Sequence[datetime], series: Series) -> timedelta:
    """One line per series (value, colour, label, how a bucket reduces its minutes), in
    buckets of ``bucket_width`` over a long span, broken at idle gaps, which are shaded grey.
    The first line is drawn wide and light under the others, so one that runs along it (as
    many publications as deliveries) stays visible inside it. Returns the bucket width."""
    width = bucket_width(xs[-1] - xs[0])
    shaded = False
    for n, (ys, colour, label, reduce) in enumerate(series):
        bx, by = coarsen(xs, ys, width, reduce)
        if not shaded:
            for a, b in gaps(bx, width):
                ax.axvspan(a, b, color="grey", alpha=0.1, lw=0)
            shaded = True
        lx, ly = broken(bx, by, width)
        marker = "o" if len(bx) <= 120 else None  # a lone minute stays visible as a dot
        wide = n == 0 and len(series) > 1  # the first line, under the others: wide and light
        ax.plot(lx, ly, marker=marker, ms=5 if wide else 3, color=colour, label=label,
                lw=2.8 if wide else 1.2, alpha=0.55 if wide else 1.0)  # fmt: skip
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    return width


def _per(width: timedelta) -> str:
    minutes = int(width.total_seconds() // 60)
    if minutes == 1:
        return "minute"
    return f"{minutes} minutes" if minutes < 60 else f"{minutes // 60} h"


def throughput(minutes: Sequence[Any], path: Path, open_from: datetime | None = None) -> Path:
    fig, ax = _figure("Throughput: publications and deliveries per second")
    if not minutes:
        _empty(ax, "no minute with activity yet")
        return _save(fig, path)
    x = [m.minute for m in minutes]
    series: list[tuple[Sequence[float | None], str, str, Callable[[list[float]], float]]] = [
        ([m.deliveries / 60 for m in minutes], DELIVERIES, "deliveries/s", mean),
        ([m.publications / 60 for m in minutes], PUBLICATIONS, "publications/s", mean),
    ]
    if any(m.failures for m in minutes):
        series.append(([m.failures / 60 for m in minutes], FAILURES, "failed commands/s", mean))
    width = _lines(ax, x, series)
    ax.set_ylabel(f"per second (mean of active minutes, per {_per(width)})", fontsize=9)
    ax.set_ylim(bottom=0)
    time_axis(ax, x[0], x[-1], open_from)
    return _save(fig, path)


def latency(minutes: Sequence[Any], path: Path, open_from: datetime | None = None) -> Path:
    fig, ax = _figure("Latency: put to processed, p50 and p99 over messages")
    timed = [m for m in minutes if m.latency_p50_ms is not None]
    if not timed:
        _empty(ax, "no publication latency measured yet")
        return _save(fig, path)
    x = [m.minute for m in timed]
    width = _lines(ax, x, [
        ([m.latency_p99_ms for m in timed], "#ff7f0e", "p99", max),
        ([m.latency_p50_ms for m in timed], PUBLICATIONS, "p50", mean),
    ])  # fmt: skip
    one = width == timedelta(minutes=1)
    ax.set_ylabel("ms" if one else f"ms (per {_per(width)}: mean p50, worst p99)", fontsize=9)
    ax.set_ylim(bottom=0)
    time_axis(ax, x[0], x[-1], open_from)
    return _save(fig, path)


def _bars(ax: Any, labels: list[str], values: list[int], colour: str) -> None:
    from matplotlib.ticker import MaxNLocator

    positions = range(len(labels))
    ax.barh(list(positions), values, color=colour)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # counts: no 0.2 of a command
    ax.set_yticks(list(positions), labels)
    # largest first, at the top; room for 5 bars at least, so one bar is not a red wall
    ax.set_ylim(max(len(labels), 5) - 0.5, -0.5)
    for y, v in zip(positions, values, strict=True):
        ax.text(v, y, f" {v:,}", va="center", fontsize=8)
    ax.margins(x=0.15)


def busiest_topics(topics: Sequence[TopicTotal], path: Path) -> Path:
    fig, ax = _figure("Busiest topics: deliveries over the whole period")
    if not topics:
        _empty(ax, "no topic activity yet")
        return _save(fig, path)
    _bars(ax, [t.topic for t in topics], [t.deliveries for t in topics], DELIVERIES)
    ax.set_xlabel("deliveries")
    return _save(fig, path)


def queues(totals: Sequence[QueueTotal], path: Path) -> Path:
    fig, ax = _figure("Subscriber queues: deliveries over the whole period")
    # a queue only named by commands (a reply queue) is in the report's table, not here
    delivered = [q for q in totals if q.deliveries]
    if not delivered:
        _empty(ax, "no delivery to a subscriber queue yet")
        return _save(fig, path)
    _bars(ax, [q.queue for q in delivered], [q.deliveries for q in delivered], PUBLICATIONS)
    ax.set_xlabel("deliveries")
    return _save(fig, path)


def failures(by_reason: list[tuple[str, int]], path: Path) -> Path:
    fig, ax = _figure("Failed commands by reason code (completion warning or error)")
    if not by_reason:
        _empty(ax, "no failed command")
        return _save(fig, path)
    _bars(ax, [label for label, _ in by_reason], [n for _, n in by_reason], FAILURES)
    ax.set_xlabel("commands")
    return _save(fig, path)


def _when(snapshot: str) -> str:
    """``20261122T021500123456Z`` -> ``11-22 02:15``."""
    return f"{snapshot[4:6]}-{snapshot[6:8]} {snapshot[9:11]}:{snapshot[11:13]}"


def snapshot_time(snapshot: str) -> str:
    """``20261122T021500123456Z`` -> ``2026-11-22 02:15:00 UTC``: the id as a person reads it."""
    return (
        f"{snapshot[:4]}-{snapshot[4:6]}-{snapshot[6:8]} "
        f"{snapshot[9:11]}:{snapshot[11:13]}:{snapshot[13:15]} UTC"
    )


def subscription_history(ax: Any, counts: SubscriptionCounts) -> None:
    """Subscriptions per snapshot, oldest first: whole counts on the y axis."""
    from matplotlib.ticker import MaxNLocator

    ax.set_title("total per snapshot", loc="left", fontsize=10)
    labels = [_when(snapshot) for snapshot, _ in counts.history]
    ax.plot(range(len(labels)), [n for _, n in counts.history], "o-")
    shown = range(0, len(labels), max(1, len(labels) // 6))  # at most ~7 labels
    ax.set_xticks(list(shown), [labels[i] for i in shown], rotation=30, fontsize=8)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # no 1.25 of a subscription
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)


def subscriptions(counts: SubscriptionCounts | None, path: Path) -> Path:
    fig, (left, right) = plt().subplots(1, 2, figsize=SIZE, dpi=DPI)
    if counts is None:
        fig.suptitle("Subscriptions", x=0.02, ha="left")
        _empty(left, "no snapshot taken yet")
        _empty(right, "(mqk pipeline snapshot)")
        return _save(fig, path)
    fig.suptitle(
        f"Subscriptions: {counts.total:,} in the snapshot of {snapshot_time(counts.snapshot)}",
        x=0.02, ha="left",
    )  # fmt: skip
    left.set_title("by topic", loc="left", fontsize=10)
    if counts.by_topic:
        _bars(left, [t for t, _ in counts.by_topic], [n for _, n in counts.by_topic], PUBLICATIONS)
    else:
        _empty(left, "none")
    subscription_history(right, counts)
    return _save(fig, path)
