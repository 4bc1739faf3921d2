"""The report's page and charts from plain values (no Spark): what a reader sees."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from mqkafka.mq.errors import MQError
from mqkafka.pipeline import report
from mqkafka.pipeline.report_data import (
    FailureTotal,
    Minute,
    ReportData,
    SubscriptionCounts,
    TopicTotal,
    failures_by_reason,
    summarise,
)

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
        failures=(FailureTotal(3081, "Publish", "error", 2),),
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


def test_an_empty_pipeline_renders_and_says_so(tmp_path: Path) -> None:
    data = ReportData(generated_at=datetime.now(UTC), notes=("No minute has finished yet.",))
    page = report.render(data, tmp_path).read_text()
    assert "No minute has finished yet." in page
    assert "No snapshot yet" in page
    assert all((tmp_path / f"{chart}.png").stat().st_size > 1000 for chart in report.CHARTS)
