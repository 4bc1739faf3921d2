"""The report's charts: one PNG per question a reader asks, drawn with matplotlib (Agg).

Every chart says what it shows in its title and axis labels, and says so plainly when there
is nothing to show yet rather than drawing empty axes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from mqkafka.pipeline.report_data import Minute, SubscriptionCounts, TopicTotal

SIZE: Final = (9.0, 4.0)
DPI: Final = 100
PUBLICATIONS, DELIVERIES, FAILURES = "#1f77b4", "#2ca02c", "#d62728"


def _figure(title: str) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    fig, ax = plt.subplots(figsize=SIZE, dpi=DPI)
    ax.set_title(title, loc="left", fontsize=12)
    ax.grid(True, alpha=0.3)
    return fig, ax


def _save(fig: Any, path: Path) -> Path:
    from matplotlib import pyplot as plt

    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _empty(ax: Any, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="grey")
    ax.set_xticks([])
    ax.set_yticks([])


def _time_axis(ax: Any, minutes: list[Any]) -> None:
    """One tick per minute when there are few (never a repeated label), else automatic."""
    from matplotlib import dates

    if len(minutes) <= 12:
        ax.set_xticks(minutes)
        ax.xaxis.set_major_formatter(dates.DateFormatter("%H:%M"))  # type: ignore[no-untyped-call]
    else:
        locator = dates.AutoDateLocator(maxticks=12)  # type: ignore[no-untyped-call]
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(dates.ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]
    ax.set_xlabel("minute (UTC)")


def throughput(minutes: tuple[Minute, ...], path: Path) -> Path:
    fig, ax = _figure("Throughput: publications and deliveries per second, by minute")
    if not minutes:
        _empty(ax, "no finished minute yet")
        return _save(fig, path)
    x = [m.minute for m in minutes]
    ax.plot(x, [m.publications / 60 for m in minutes], "o-", color=PUBLICATIONS, ms=3,
            label="publications/s")  # fmt: skip
    ax.plot(x, [m.deliveries / 60 for m in minutes], "o-", color=DELIVERIES, ms=3,
            label="deliveries/s")  # fmt: skip
    failed = [m.failures / 60 for m in minutes]
    if any(failed):
        ax.plot(x, failed, "x--", color=FAILURES, label="failed commands/s")
    ax.set_ylabel("per second (minute average)")
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper left")
    _time_axis(ax, x)
    return _save(fig, path)


def latency(minutes: tuple[Minute, ...], path: Path) -> Path:
    fig, ax = _figure("Latency: put to processed, p50 and p99 over messages, by minute")
    timed = [m for m in minutes if m.latency_p50_ms is not None]
    if not timed:
        _empty(ax, "no publication latency measured yet")
        return _save(fig, path)
    x = [m.minute for m in timed]
    ax.plot(x, [m.latency_p50_ms for m in timed], "o-", ms=3, label="p50")
    ax.plot(x, [m.latency_p99_ms for m in timed], "o-", ms=3, label="p99")
    ax.set_ylabel("milliseconds")
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper left")
    _time_axis(ax, x)
    return _save(fig, path)


def _bars(ax: Any, labels: list[str], values: list[int], colour: str) -> None:
    positions = range(len(labels))
    ax.barh(list(positions), values, color=colour)
    ax.set_yticks(list(positions), labels)
    ax.invert_yaxis()  # largest first, at the top
    for y, v in zip(positions, values, strict=True):
        ax.text(v, y, f" {v:,}", va="center", fontsize=8)
    ax.margins(x=0.15)


def busiest_topics(topics: tuple[TopicTotal, ...], path: Path) -> Path:
    fig, ax = _figure("Busiest topics: deliveries over the whole period")
    if not topics:
        _empty(ax, "no topic activity yet")
        return _save(fig, path)
    _bars(ax, [t.topic for t in topics], [t.deliveries for t in topics], DELIVERIES)
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


def subscriptions(counts: SubscriptionCounts | None, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=SIZE, dpi=DPI)
    if counts is None:
        fig.suptitle("Subscriptions", x=0.02, ha="left")
        _empty(left, "no snapshot taken yet")
        _empty(right, "(mqk pipeline snapshot)")
        return _save(fig, path)
    fig.suptitle(f"Subscriptions: {counts.total} in snapshot {counts.snapshot}", x=0.02, ha="left")
    left.set_title("by topic", loc="left", fontsize=10)
    if counts.by_topic:
        _bars(left, [t for t, _ in counts.by_topic], [n for _, n in counts.by_topic], PUBLICATIONS)
    else:
        _empty(left, "none")
    right.set_title("total per snapshot", loc="left", fontsize=10)
    labels = [_when(snapshot) for snapshot, _ in counts.history]
    right.plot(range(len(labels)), [n for _, n in counts.history], "o-")
    right.set_xticks(range(len(labels)), labels, rotation=30, fontsize=8)
    right.set_ylim(bottom=0)
    right.grid(True, alpha=0.3)
    return _save(fig, path)
