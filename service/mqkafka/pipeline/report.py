"""``mqk report``: the tables -> ``<out>/index.html`` with its PNG charts beside it.

``load`` reads the Parquet tables with Spark (the only part that needs it; the tables it
reads are the small per-minute aggregates, so it collects them); ``render`` is pure Python
and matplotlib. A table that does not exist yet (no minute finished, no snapshot taken) is
shown as "nothing yet", never as an error.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from mqkafka.pipeline import charts
from mqkafka.pipeline.config import PipelineConfig
from mqkafka.pipeline.report_data import (
    FailureTotal,
    ReportData,
    SubscriptionCounts,
    TopicTotal,
    failures_by_reason,
    minutes_from,
    summarise,
)

TOP: Final = 15  # bars in the busiest-topics and subscriptions charts
CHARTS: Final = ("throughput", "latency", "busiest_topics", "failures", "subscriptions")


def _table(spark: Any, path: str) -> Any | None:
    from pyspark.errors import AnalysisException

    try:
        return spark.read.parquet(path)
    except AnalysisException:  # not written yet
        return None


def _rows(frame: Any) -> list[dict[str, Any]]:
    return [row.asDict() for row in frame.collect()]


def load(spark: Any, config: PipelineConfig, top: int = TOP) -> ReportData:
    from pyspark.sql import functions as F

    notes: list[str] = []
    totals = _table(spark, config.table("minute_totals"))
    minutes = minutes_from(_rows(totals)) if totals is not None else ()
    if totals is None:
        notes.append("No minute has finished yet: minutes are written once the watermark passes.")

    topics: tuple[TopicTotal, ...] = ()
    topic_minute = _table(spark, config.table("topic_minute"))
    if topic_minute is not None:
        busiest = (
            topic_minute.groupBy("topic")
            .agg(
                F.sum("publications").alias("publications"),
                F.sum("deliveries").alias("deliveries"),
                F.sum("delivered_bytes").alias("delivered_bytes"),
            )
            .orderBy(F.desc("deliveries"), F.desc("publications"), "topic")
            .limit(top)
        )
        topics = tuple(TopicTotal(**row) for row in _rows(busiest))

    failures: tuple[FailureTotal, ...] = ()
    failed = _table(spark, config.table("failures_minute"))
    if failed is not None:
        grouped = failed.groupBy("reason", "command", "completion").agg(
            F.sum("failures").alias("failures")
        )
        failures = tuple(FailureTotal(**row) for row in _rows(grouped))

    return ReportData(
        generated_at=datetime.now(UTC),
        minutes=minutes,
        topics=topics,
        failures=failures,
        subscriptions=_subscriptions(spark, config, top),
        notes=tuple(notes),
    )


def _subscriptions(spark: Any, config: PipelineConfig, top: int) -> SubscriptionCounts | None:
    from pyspark.sql import functions as F

    from mqkafka.pipeline.snapshot_job import snapshot_path

    every = _table(spark, snapshot_path(config, "subscriptions"))
    if every is None:
        return None
    history = sorted(
        (row["snapshot"], int(row["n"]))
        for row in every.groupBy("snapshot").agg(F.count("*").alias("n")).collect()
    )
    newest = history[-1][0]
    current = every.where(F.col("snapshot") == newest)
    by_topic = (
        current.groupBy("topic").count().orderBy(F.desc("count"), "topic").limit(top).collect()
    )
    retained = _table(spark, f"{snapshot_path(config, 'retained')}/snapshot={newest}")
    return SubscriptionCounts(
        snapshot=newest,
        total=history[-1][1],
        by_topic=tuple((row["topic"], int(row["count"])) for row in by_topic),
        history=tuple(history),
        retained=None if retained is None else retained.count(),
    )


# --------------------------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------------------------

_STYLE: Final = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 960px; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; } h2 { font-size: 1.15em; margin-top: 2em; }
.meta { color: #666; } figure { margin: 1em 0; } img { max-width: 100%; border: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5em 0; } td, th { padding: 0.25em 0.8em; }
th { text-align: left; border-bottom: 1px solid #999; } td.n { text-align: right; }
.figures td { font-size: 1.1em; } .note { background: #fff8e0; padding: 0.5em 1em; }
"""


def _esc(value: object) -> str:
    return html.escape(str(value))


def _when(value: datetime | None) -> str:
    return "-" if value is None else value.strftime("%Y-%m-%d %H:%M UTC")


def _table_html(headers: tuple[str, ...], rows: list[tuple[object, ...]]) -> str:
    head = "".join(f"<th>{_esc(h)}</th>" for h in headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="n">{v:,}</td>' if isinstance(v, int) else f"<td>{_esc(v)}</td>"
            for v in row
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def render(data: ReportData, out: Path) -> Path:
    """Write ``out/index.html`` and its charts; returns the HTML file."""
    out.mkdir(parents=True, exist_ok=True)
    by_reason = failures_by_reason(data.failures)
    charts.throughput(data.minutes, out / "throughput.png")
    charts.latency(data.minutes, out / "latency.png")
    charts.busiest_topics(data.topics, out / "busiest_topics.png")
    charts.failures(by_reason, out / "failures.png")
    charts.subscriptions(data.subscriptions, out / "subscriptions.png")

    s = summarise(data.minutes)
    figures = _table_html(
        ("", ""),
        [
            ("Period", f"{_when(s.first)} to {_when(s.last)} ({len(data.minutes)} minutes)"),
            ("Publications", s.publications),
            ("Deliveries", s.deliveries),
            ("Delivered bytes", s.delivered_bytes),
            ("Failed commands", s.failures),
            ("Peak", f"{s.peak_deliveries_per_s:,.1f} deliveries/s at {_when(s.peak_minute)}"),
        ],
    )
    subs = data.subscriptions
    sub_text = (
        "No snapshot yet: run <code>mqk pipeline snapshot</code>."
        if subs is None
        else f"{subs.total:,} subscriptions in snapshot {_esc(subs.snapshot)}"
        + ("." if subs.retained is None else f", and {subs.retained:,} retained publications.")
    )
    topics_table = _table_html(
        ("Topic", "Publications", "Deliveries", "Delivered bytes"),
        [(t.topic, t.publications, t.deliveries, t.delivered_bytes) for t in data.topics],
    )
    failures_table = _table_html(
        ("Reason", "Command", "Completion", "Commands"),
        [
            (f.label, f.command or "(not a command)", f.completion, f.failures)
            for f in sorted(data.failures, key=lambda f: (-f.failures, f.reason))
        ],
    )
    notes = "".join(f'<p class="note">{_esc(n)}</p>' for n in data.notes)

    def figure(name: str, caption: str) -> str:
        return (
            f'<figure><img src="{name}.png" alt="{_esc(caption)}">'
            f"<figcaption>{_esc(caption)}</figcaption></figure>"
        )

    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>mqkafka activity report</title>
<style>{_STYLE}</style></head><body>
<h1>mqkafka activity report</h1>
<p class="meta">Generated {_when(data.generated_at)} from the pipeline's Parquet tables.</p>
{notes}
<h2>Figures</h2><div class="figures">{figures}</div>
<h2>Throughput</h2>
{figure("throughput", "Publications and deliveries per second, averaged over each minute.")}
<h2>Latency</h2>
{figure("latency", "From the put of a message to its processing by the broker (p50, p99).")}
<h2>Busiest topics</h2>
{figure("busiest_topics", f"The {TOP} topics with the most deliveries.")}
{topics_table}
<h2>Failures by reason</h2>
{figure("failures", "Commands whose completion was warning or error, by MQ reason code.")}
{failures_table}
<h2>Subscriptions</h2>
<p>{sub_text}</p>
{figure("subscriptions", "Subscriptions in the newest snapshot by topic, and per snapshot.")}
</body></html>
"""
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
