"""``mqk report``: the tables -> ``<out>/index.html`` with its PNG charts beside it.

``load`` reads the Parquet tables with Spark (the only part that needs it; the tables it
reads are the small per-minute aggregates, so it collects them); ``render`` is pure Python
and matplotlib. A table that does not exist yet (no minute finished, no snapshot taken) is
shown as "nothing yet" with the command that makes it, never as an error.

The streaming job writes a minute once its watermark has passed the minute's end, which needs
later events: the newest minutes would stay hidden while the service is idle. So ``load`` also
counts the minutes after the last final one straight from the activity topic (a batch read,
with the streaming job's own aggregation) and the report shades them as "not final yet".
"""

from __future__ import annotations

import html
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

from mqkafka.pipeline import charts
from mqkafka.pipeline.config import PipelineConfig
from mqkafka.pipeline.report_data import (
    UNPARSED,
    CommandTotal,
    FailureTotal,
    QueueTotal,
    ReportData,
    StateTable,
    SubscriptionCounts,
    TopicTotal,
    busiest,
    command_label,
    commands_by_kind,
    failures_by_reason,
    minutes_from,
    summarise,
)
from mqkafka.pipeline.snapshot_job import snapshot_path

TOP: Final = 15  # bars in the busiest-topics, queues and subscriptions charts
STATE_ROWS: Final = 20  # rows of each state snapshot listed
CHARTS: Final = (
    "throughput", "latency", "busiest_topics", "queues", "failures", "subscriptions",
)  # fmt: skip
# where the report shows each table the pipeline writes (the id of its section)
SHOWN_IN: Final = {
    "minute_totals": "throughput",
    "topic_minute": "topics",
    "queue_minute": "queues",
    "command_minute": "commands",
    "failures_minute": "failures",
    "snapshots/subscriptions": "subscriptions",
    "snapshots/retained": "state",
    "snapshots/publishers": "state",
}
# the command that writes each table, for the "nothing yet" notes
MADE_BY: Final = {
    "minute_totals": "mqk pipeline run --once",
    "snapshots": "mqk pipeline snapshot",
}


def exists(spark: Any, path: str) -> bool:
    """Whether ``path`` exists, asked of Hadoop's file system (local, HDFS, S3 alike): reading
    a missing path would log a Java stack trace before failing."""
    jvm = spark.sparkContext._jvm
    hadoop_path = jvm.org.apache.hadoop.fs.Path(path)
    fs = hadoop_path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    return bool(fs.exists(hadoop_path))


def _table(spark: Any, path: str) -> Any | None:
    from pyspark.errors import AnalysisException

    if not exists(spark, path):
        return None
    try:
        frame = spark.read.parquet(path)
    except AnalysisException:  # a directory with no rows yet
        return None
    return frame.drop("batch_id")


def _rows(frame: Any) -> list[dict[str, Any]]:
    return [row.asDict() for row in frame.collect()]


def open_groups(spark: Any, config: PipelineConfig, since: datetime | None) -> Any:
    """The minute groups (``aggregates.minute_groups``) of the activity from ``since`` on
    (everything when None), read from Kafka as a batch: the minutes not final yet."""
    from pyspark.sql import functions as F

    from mqkafka.pipeline.aggregates import minute_groups
    from mqkafka.pipeline.decode import activity_events, kafka_options

    options = kafka_options(config.bootstrap, config.activity_topic, config.java_kafka_settings)
    options["endingOffsets"] = "latest"
    if since is not None:
        # a record is written after the events in it were processed: none from before
        # ``since`` holds an event from after it
        options["startingTimestamp"] = str(int(since.timestamp() * 1000))  # as pyspark reads it
        options["startingOffsetsByTimestampStrategy"] = "latest"
    reader = spark.read.format("kafka")
    for key, value in options.items():
        reader = reader.option(key, value)
    groups = minute_groups(activity_events(reader.load()), "0 seconds")
    if since is not None:
        groups = groups.where(F.col("window.start") >= F.lit(since))
    return groups


def load(spark: Any, config: PipelineConfig, top: int = TOP, *, kafka: bool = True) -> ReportData:
    """The report's values from the tables and, with ``kafka``, the open minutes."""
    from pyspark.sql import functions as F

    from mqkafka.pipeline.tables import TABLES

    notes: list[str] = []
    final = {name: _table(spark, config.table(name)) for name in TABLES}
    totals = final["minute_totals"]
    last = None if totals is None else totals.agg(F.max("minute")).first()[0]
    open_from = None if last is None else last + timedelta(minutes=1)
    if kafka:
        groups = open_groups(spark, config, open_from).cache()
        for name, reduce in TABLES.items():
            recent = reduce(groups)
            known = final[name]
            final[name] = recent if known is None else known.unionByName(recent)
        if groups.isEmpty():
            open_from = None
        elif open_from is None:
            open_from = groups.agg(F.min("window.start")).first()[0]
    elif totals is None:
        notes.append(
            f"No minute is final yet (table {config.table('minute_totals')}): minutes are "
            f"written by '{MADE_BY['minute_totals']}' once its watermark passes their end."
        )
    totals = final["minute_totals"]
    minutes = minutes_from(_rows(totals)) if totals is not None else ()
    if open_from is not None:
        notes.append(
            f"The minutes from {open_from:%H:%M} UTC on are not final: the streaming job "
            "writes a minute once its watermark has passed it; the report counted them from "
            "the activity topic, and they may still grow."
        )

    topics: tuple[TopicTotal, ...] = ()
    topic_minute = final["topic_minute"]
    if topic_minute is not None:
        per_topic = topic_minute.groupBy("topic").agg(
            F.sum("publications").alias("publications"),
            F.sum("deliveries").alias("deliveries"),
            F.sum("delivered_bytes").alias("delivered_bytes"),
        )
        carried = per_topic.where((F.col("publications") > 0) | (F.col("deliveries") > 0))
        ranked = carried.orderBy(F.desc("deliveries"), F.desc("publications"), "topic")
        topics = busiest((TopicTotal(**row) for row in _rows(ranked.limit(top))), top)

    queues: tuple[QueueTotal, ...] = ()
    queue_minute = final["queue_minute"]
    if queue_minute is not None:
        per_queue = queue_minute.groupBy("queue").agg(
            F.sum("deliveries").alias("deliveries"),
            F.sum("delivered_bytes").alias("delivered_bytes"),
            F.sum("commands").alias("commands"),
            F.sum("failures").alias("failures"),
            F.max("latency_p99_ms").alias("worst_p99_ms"),
        )
        ranked = per_queue.orderBy(F.desc("deliveries"), F.desc("commands"), "queue")
        queues = tuple(QueueTotal(**row) for row in _rows(ranked.limit(top)))

    commands: tuple[CommandTotal, ...] = ()
    command_minute = final["command_minute"]
    if command_minute is not None:
        grouped = command_minute.groupBy("command", "completion").agg(
            F.sum("commands").alias("commands")
        )
        commands = tuple(CommandTotal(**row) for row in _rows(grouped))

    failures: tuple[FailureTotal, ...] = ()
    failed = final["failures_minute"]
    if failed is not None:
        grouped = failed.groupBy("reason", "command", "completion").agg(
            F.sum("failures").alias("failures")
        )
        failures = tuple(FailureTotal(**row) for row in _rows(grouped))

    subscriptions = _subscriptions(spark, config, top)
    if subscriptions is None:
        notes.append(
            f"No subscriptions snapshot yet ({snapshot_path(config, 'subscriptions')}): "
            f"'{MADE_BY['snapshots']}' takes one."
        )
    return ReportData(
        generated_at=datetime.now(UTC),
        minutes=minutes,
        topics=topics,
        failures=failures,
        subscriptions=subscriptions,
        notes=tuple(notes),
        queues=queues,
        commands=commands,
        states=_states(spark, config),
        open_from=open_from,
    )


def _newest(spark: Any, config: PipelineConfig, name: str) -> tuple[str, Any] | None:
    """The newest snapshot of ``name``: its id and rows."""
    from pyspark.sql import functions as F

    every = _table(spark, snapshot_path(config, name))
    if every is None:
        return None
    newest = every.agg(F.max("snapshot")).first()[0]
    return newest, every.where(F.col("snapshot") == newest)


def _subscriptions(spark: Any, config: PipelineConfig, top: int) -> SubscriptionCounts | None:
    from pyspark.sql import functions as F

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
    retained = _newest(spark, config, "retained")
    return SubscriptionCounts(
        snapshot=newest,
        total=history[-1][1],
        by_topic=tuple((row["topic"], int(row["count"])) for row in by_topic),
        history=tuple(history),
        retained=None if retained is None else retained[1].count(),
    )


# the columns each state snapshot lists, and its order
_STATE_COLUMNS: Final = {
    "retained": (("topic", "user_id", "format", "body_bytes", "retained_at"), "topic"),
    "subscriptions": (("topic", "q_name", "user_id", "sub_name", "filter"), "topic"),
    "publishers": (("topic", "q_name", "user_id"), "topic"),
}


def _states(spark: Any, config: PipelineConfig) -> tuple[StateTable, ...]:
    out = []
    for name, (columns, order) in _STATE_COLUMNS.items():
        found = _newest(spark, config, name)
        if found is None:
            continue
        snapshot, rows = found
        present = tuple(c for c in columns if c in rows.columns)
        listed = rows.select(*present).orderBy(order).limit(STATE_ROWS).collect()
        out.append(
            StateTable(name, snapshot, rows.count(), present, tuple(tuple(r) for r in listed))
        )
    return tuple(out)


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


def _state_html(state: StateTable) -> str:
    shown = f"the first {len(state.rows)}" if len(state.rows) < state.count else "all"
    return (
        f"<h3>{_esc(state.name)}</h3><p>{state.count:,} live key(s) in snapshot "
        f"{_esc(state.snapshot)}; {shown} listed.</p>"
        + _table_html(state.headers, [tuple("" if v is None else v for v in r) for r in state.rows])
    )


def render(data: ReportData, out: Path) -> Path:
    """Write ``out/index.html`` and its charts; returns the HTML file."""
    out.mkdir(parents=True, exist_ok=True)
    by_reason = failures_by_reason(data.failures)
    charts.throughput(data.minutes, out / "throughput.png", data.open_from)
    charts.latency(data.minutes, out / "latency.png", data.open_from)
    charts.busiest_topics(data.topics, out / "busiest_topics.png")
    charts.queues(data.queues, out / "queues.png")
    charts.failures(by_reason, out / "failures.png")
    charts.subscriptions(data.subscriptions, out / "subscriptions.png")

    s = summarise(data.minutes)
    fanouts = [m.fanout_mean for m in data.minutes if m.fanout_mean is not None]
    fanout = f"{sum(fanouts) / len(fanouts):.2f} per message (mean of minutes)" if fanouts else "-"
    figures = _table_html(
        ("", ""),
        [
            ("Period", f"{_when(s.first)} to {_when(s.last)} ({s.active_minutes} active minutes)"),
            ("Publications", s.publications),
            ("Deliveries", s.deliveries),
            ("Delivered bytes", s.delivered_bytes),
            ("Commands", s.commands),
            ("Failed commands", s.failures),
            ("Fan-out", fanout),
            ("Peak", f"{s.peak_deliveries_per_s:,.1f} deliveries/s at {_when(s.peak_minute)}"),
        ],
    )  # fmt: skip
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
    queues_table = _table_html(
        ("Queue", "Deliveries", "Delivered bytes", "Commands", "Failed", "Worst minute p99 (ms)"),
        [
            (q.queue, q.deliveries, q.delivered_bytes, q.commands, q.failures,
             "-" if q.worst_p99_ms is None else f"{q.worst_p99_ms:,.1f}")
            for q in data.queues
        ],
    )  # fmt: skip
    commands_table = _table_html(
        ("Command", "ok", "warning", "error"), list(commands_by_kind(data.commands))
    )
    failures_table = _table_html(
        ("Reason", "Command", "Completion", "Commands"),
        [
            (f.label, command_label(f.command), f.completion, f.failures)
            for f in sorted(data.failures, key=lambda f: (-f.failures, f.reason))
        ],
    )
    missing = [name for name in _STATE_COLUMNS if name not in {s.name for s in data.states}]
    states = "".join(_state_html(state) for state in data.states) + (
        f"<p>No snapshot of {_esc(', '.join(missing))} yet: run "
        f"<code>mqk pipeline snapshot</code>.</p>"
        if missing
        else ""
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
<h2 id="throughput">Throughput</h2>
{figure("throughput", "Publications and deliveries per second, averaged over each minute; "
        "grey: idle minutes (no event), yellow: minutes not final yet.")}
<h2 id="latency">Latency</h2>
{figure("latency", "From the put of a message to its processing by the broker (p50, p99).")}
<h2 id="topics">Busiest topics</h2>
{figure("busiest_topics", f"The {TOP} topics with the most deliveries (refused publications "
        "are failures, not traffic).")}
{topics_table}
<h2 id="queues">Subscriber queues</h2>
{figure("queues", f"The {TOP} subscriber queues with the most deliveries.")}
{queues_table}
<h2 id="commands">Commands</h2>
<p>Command messages by completion. {_esc(UNPARSED)}: the broker refused the message before it
knew its command (no command, or an option it could not parse).</p>
{commands_table}
<h2 id="failures">Failures by reason</h2>
{figure("failures", "Commands whose completion was warning or error, by MQ reason code.")}
{failures_table}
<h2 id="subscriptions">Subscriptions</h2>
<p>{sub_text}</p>
{figure("subscriptions", "Subscriptions in the newest snapshot by topic, and per snapshot.")}
<h2 id="state">State snapshots</h2>
{states}
</body></html>
"""  # fmt: skip
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
