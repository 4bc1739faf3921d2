"""The report's page and charts from plain values (no Spark): what a reader sees."""

from __future__ import annotations

import itertools
import math
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from mqkafka.mq.errors import MQError
from mqkafka.pipeline import charts, report
from mqkafka.pipeline.report_data import (
    UNPARSED,
    CommandTotal,
    FailureTotal,
    Minute,
    QueueTotal,
    ReportData,
    StateTable,
    SubscriptionCounts,
    TopicTotal,
    broken,
    bucket_width,
    busiest,
    coarsen,
    commands_by_kind,
    failures_by_reason,
    gaps,
    mean,
    summarise,
)
from mqkafka.pipeline.tables import TABLES

T0 = datetime(2026, 1, 1, 10, 0)


def minute(i: int, pubs: int = 600, dels: int = 1800, fails: int = 0) -> Minute:
    return Minute(T0 + timedelta(minutes=i), pubs, dels, pubs * 100, dels * 100, fails,
                  5.0 + i, 50.0 + i, dels / pubs if pubs else None)  # fmt: skip


def test_failures_by_reason_sum_over_commands_most_first() -> None:
    failures = [FailureTotal(3081, "Publish", "error", 2), FailureTotal(3081, "RegSub", "error", 3),
                FailureTotal(3152, "RegSub", "warning", 4)]  # fmt: skip
    assert failures_by_reason(failures) == [
        ("MQRCCF_NOT_AUTHORIZED (3081)", 5),
        ("MQRCCF_DUPLICATE_SUBSCRIPTION (3152)", 4),
    ]


def test_the_summary_finds_the_peak_minute() -> None:
    minutes = (minute(0), minute(1, dels=6000), minute(2))
    summary = summarise(minutes)
    assert (summary.deliveries, summary.peak_minute) == (9600, T0 + timedelta(minutes=1))
    assert summary.peak_deliveries_per_s == 100.0


def test_a_negative_count_is_refused() -> None:
    with pytest.raises(MQError):
        minute(0, pubs=-1)


def test_every_chart_is_drawn_and_linked(tmp_path: Path) -> None:
    data = ReportData(
        generated_at=datetime.now(UTC),
        minutes=tuple(minute(i, fails=i % 3) for i in range(30)),
        topics=(TopicTotal("Sport/Soccer", 10, 30, 3000), TopicTotal("<b>News</b>", 1, 1, 10)),
        failures=(FailureTotal(3081, "Publish", "error", 2), FailureTotal(3083, None, "error", 1)),
        queues=(QueueTotal("SUB.Q", 30, 3000, 2, 0, 12.5),),
        commands=(CommandTotal("Publish", "ok", 11), CommandTotal(None, "error", 1)),
        states=(StateTable("retained", "20260101T100000000000Z", 1, ("topic",), (("T",),)),),
        subscriptions=SubscriptionCounts(
            "20260101T100000000000Z",
            2,
            (("Sport/#", 2),),
            (("20260101T100000000000Z", 2),),
            retained=5,
        ),
    )
    page = report.render(data, tmp_path).read_text()
    for chart in report.CHARTS:
        assert (tmp_path / f"{chart}.png").read_bytes()[:4] == b"\x89PNG"
        assert f'src="{chart}.png"' in page
    assert "&lt;b&gt;News&lt;/b&gt;" in page  # topic text is escaped, never markup
    assert "2 subscriptions in snapshot 20260101T100000000000Z, and 5 retained" in page
    # 3083: refused before its command was known, by name, never "not a command"
    assert f"<td>MQRCCF_REG_OPTIONS_ERROR (3083)</td><td>{UNPARSED}</td>" in page
    assert "not a command" not in page
    # the retained snapshot is listed; the two not taken are named with the command that does
    assert "No snapshot of subscriptions, publishers yet" in page
    for table, section in report.SHOWN_IN.items():  # every table the pipeline writes
        assert f'<h2 id="{section}">' in page, table
    assert set(TABLES) <= set(report.SHOWN_IN)


def test_an_empty_pipeline_renders_and_says_so(tmp_path: Path) -> None:
    data = ReportData(generated_at=datetime.now(UTC), notes=("No minute has finished yet.",))
    page = report.render(data, tmp_path).read_text()
    assert "No minute has finished yet." in page
    assert "No snapshot yet" in page
    assert all((tmp_path / f"{chart}.png").stat().st_size > 1000 for chart in report.CHARTS)


def test_a_topic_that_carried_nothing_is_not_among_the_busiest() -> None:
    """A refused wildcard Publish leaves a topic row with no publication and no delivery."""
    topics = [TopicTotal("Sport/#", 0, 0, 0), TopicTotal("A", 1, 0, 0), TopicTotal("B", 1, 4, 9)]
    assert [t.topic for t in busiest(topics, 15)] == ["B", "A"]
    assert [t.topic for t in busiest(topics, 1)] == ["B"]


def test_commands_are_counted_by_kind_and_completion() -> None:
    totals = [CommandTotal("Publish", "ok", 5), CommandTotal("Publish", "error", 1),
              CommandTotal(None, "error", 2), CommandTotal("RegSub", "warning", 1)]  # fmt: skip
    assert commands_by_kind(totals) == [
        ("Publish", 5, 0, 1), (UNPARSED, 0, 0, 2), ("RegSub", 0, 1, 0)
    ]  # fmt: skip


def test_an_idle_gap_breaks_the_line() -> None:
    xs = [T0 + timedelta(minutes=i) for i in (0, 1, 5, 6)]
    bx, by = broken(xs, [1.0, 2.0, None, 4.0])
    assert bx == [*xs[:2], T0 + timedelta(minutes=2), *xs[2:]]
    assert [math.isnan(y) for y in by] == [False, False, True, True, False]
    assert gaps(xs) == [(T0 + timedelta(minutes=2), T0 + timedelta(minutes=5))]


def test_a_long_span_is_drawn_in_round_buckets() -> None:
    assert bucket_width(timedelta(hours=5)) == timedelta(minutes=1)
    assert bucket_width(timedelta(days=3)) == timedelta(minutes=15)
    xs = [T0 + timedelta(minutes=i) for i in (0, 14, 15, 61)]
    assert coarsen(xs, [1.0, 3.0, None, 5.0], timedelta(minutes=15), mean) == (
        [T0, T0 + timedelta(minutes=15), T0 + timedelta(minutes=60)],
        [2.0, None, 5.0],
    )


def _tick_labels(ax: Any) -> list[Any]:
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    left, right = ax.get_xlim()
    return [
        label.get_window_extent(renderer)
        for tick, label in zip(ax.get_xticks(), ax.get_xticklabels(), strict=True)
        if left <= tick <= right and label.get_text()
    ]


@pytest.mark.parametrize("span", [timedelta(minutes=m) for m in (1, 9, 12, 40, 300, 1440, 10080)])
def test_time_labels_never_overlap_from_a_minute_to_a_week(span: timedelta) -> None:
    fig, ax = charts._figure("t")
    last = T0 + span - timedelta(minutes=1)
    ax.plot([T0, last], [0, 1])
    charts.time_axis(ax, T0, last)
    boxes = _tick_labels(ax)
    charts.plt().close(fig)
    assert 2 <= len(boxes) <= charts.MAX_TICKS + 1
    for a, b in itertools.pairwise(boxes):
        assert a.x1 < b.x0, (span, a, b)


def test_cjk_topic_names_are_drawn_with_a_font_that_has_them(tmp_path: Path) -> None:
    """matplotlib warns of every glyph its fonts lack (drawn as a box): none may be missing."""
    topics = (TopicTotal("体育/足球", 1, 3, 9), TopicTotal("스포츠/축구", 1, 2, 9),
              TopicTotal("スポーツ", 1, 1, 9))  # fmt: skip
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="Glyph .* missing")
        charts.busiest_topics(topics, tmp_path / "topics.png")
    assert len(charts.font_families()) == 2


def test_subscriptions_per_snapshot_are_counted_in_whole_numbers() -> None:
    history = (("20261124T102400000000Z", 1), ("20261125T102400000000Z", 2))
    counts = SubscriptionCounts("20261125T102400000000Z", 2, (("Sport/#", 2),), history)
    fig, ax = charts._figure("t")
    charts.subscription_history(ax, counts)
    ticks = list(ax.get_yticks())
    charts.plt().close(fig)
    assert ticks and all(float(t).is_integer() for t in ticks), ticks
    assert charts.snapshot_time(counts.snapshot) == "2026-11-25 10:24:00 UTC"


def test_a_queue_only_named_by_commands_has_no_delivery_bar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reply queue (commands, no delivery) stays in the table but is no bar of 0."""
    drawn: list[list[str]] = []
    monkeypatch.setattr(charts, "_bars", lambda ax, labels, values, colour: drawn.append(labels))
    totals = (QueueTotal("SUB.Q", 3, 30, 1, 0, 1.0), QueueTotal("REPLY.Q", 0, 0, 28, 2, None))
    charts.queues(totals, tmp_path / "queues.png")
    assert drawn == [["SUB.Q"]]


def test_as_many_publications_as_deliveries_leaves_both_lines_visible() -> None:
    """Fan-out 1 draws the two lines on the same points: the first is wide and light under
    the other, so neither hides the other."""
    xs = [T0 + timedelta(minutes=i) for i in range(3)]
    same = [1.0, 2.0, 1.0]
    fig, ax = charts._figure("t")
    charts._lines(ax, xs, [(same, "green", "deliveries/s", mean), (same, "blue", "pubs/s", mean)])
    under, over = ax.get_lines()
    charts.plt().close(fig)
    assert under.get_linewidth() > over.get_linewidth() + 1
    assert (under.get_zorder(), ax.get_lines().index(under)) <= (over.get_zorder(), 1)
