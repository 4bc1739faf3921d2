"""The streaming job: ``<ns>mqk-activity`` -> the per-minute tables, exactly once.

One query reads the topic once through Spark's Kafka source (read_committed: the service
writes events in the transaction of the work they describe), decodes the Avro values (an
``ActivityBatch`` of many events per record, exploded to a row per event), runs
the one stateful aggregation of ``aggregates`` in append mode and hands each micro-batch's
finalised minutes to ``tables.write_batch``. One query rather than one per table: on two cores
every extra query re-reads and re-decodes the topic and competes for the same executors.

Triggers: ``once`` processes everything available and stops (``availableNow``); otherwise a
micro-batch starts every ``trigger_s`` seconds. Batches are bounded by
``max_events_per_batch`` (as Kafka records: ``PipelineConfig.max_records_per_batch``) so a
backlog is worked off in steady steps.

Restarting with the same checkpoint resumes where the last committed batch ended, with the
aggregation state (minutes not yet final) restored; see ``tables`` for why no row is written
twice. A checkpoint belongs to one activity topic and one set of tables: delete all three
together to start over.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mqkafka.pipeline.aggregates import minute_groups
from mqkafka.pipeline.config import PipelineConfig
from mqkafka.pipeline.decode import activity_events, kafka_options
from mqkafka.pipeline.durations import spark_interval
from mqkafka.pipeline.tables import write_batch

log = logging.getLogger(__name__)
QUERY_NAME = "mqk_activity"


@dataclass(frozen=True)
class RunSummary:
    """What the query did, from its progress reports."""

    batches: int
    # rows out of the decoding: one per event, plus one per value that did not decode
    input_rows: int
    undecodable: int  # values that were not activity batches (skipped)
    # rows Spark dropped at the aggregation as behind the watermark (partially aggregated
    # fact rows, so not an event count): late events that were not counted
    late_dropped: int
    seconds: float
    records: int = 0  # Kafka records read (each an ActivityBatch of events)

    def describe(self) -> str:
        return (
            f"{self.batches} batch(es), {self.input_rows} event(s) from {self.records} "
            f"record(s) in {self.seconds:.1f}s; "
            f"{self.late_dropped} late row(s) dropped, {self.undecodable} undecodable"
        )


def start(spark: Any, config: PipelineConfig, *, once: bool) -> Any:
    """Start the streaming query; returns the StreamingQuery."""
    from pyspark.sql import functions as F

    reader = spark.readStream.format("kafka")
    for key, value in kafka_options(
        config.bootstrap, config.activity_topic, config.java_kafka_settings
    ).items():
        reader = reader.option(key, value)
    raw = reader.option("maxOffsetsPerTrigger", str(config.max_records_per_batch)).load()
    events = activity_events(raw).observe(
        "decode",
        F.count(F.lit(1)).alias("rows"),
        F.count(F.when(~F.col("decoded"), 1)).alias("undecodable"),
    )
    groups = minute_groups(events, spark_interval(config.watermark_s))

    def write(batch: Any, batch_id: int) -> None:
        write_batch(batch, batch_id, config.table)

    writer = (
        groups.writeStream.queryName(QUERY_NAME)
        .outputMode("append")
        .foreachBatch(write)
        .option("checkpointLocation", config.stream_checkpoint)
    )
    if once:
        writer = writer.trigger(availableNow=True)
    else:
        writer = writer.trigger(processingTime=spark_interval(config.trigger_s))
    return writer.start()


def rows_of(progress: dict[str, Any]) -> int:
    """The rows one progress report's batch decoded (events and undecodable values): Spark's
    ``numInputRows`` counts Kafka records, each a batch of events, so the count is observed
    after the decoding (a report without it falls back to the records)."""
    observed = progress.get("observedMetrics", {}).get("decode", {})
    return int(observed.get("rows", progress.get("numInputRows", 0)))


def summarise(progress: list[dict[str, Any]], seconds: float) -> RunSummary:
    """Totals over a query's progress reports (pure: unit-tested)."""
    batches = [p for p in progress if p.get("numInputRows", 0) > 0]
    late = sum(
        op.get("numRowsDroppedByWatermark", 0)
        for p in progress
        for op in p.get("stateOperators", [])
    )
    undecodable = sum(
        int(p.get("observedMetrics", {}).get("decode", {}).get("undecodable", 0)) for p in progress
    )
    rows = sum(rows_of(p) for p in progress)
    records = sum(int(p.get("numInputRows", 0)) for p in progress)
    return RunSummary(len(batches), rows, undecodable, late, seconds, records)


def _collect(query: Any, seen: dict[int, dict[str, Any]]) -> None:
    """Keep every progress report (as plain JSON values) by batch id."""
    for progress in query.recentProgress:
        plain = json.loads(progress.json)
        seen[plain["batchId"]] = plain


def run(
    spark: Any,
    config: PipelineConfig,
    *,
    once: bool,
    report_every: float = 60.0,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
    stop_requested: Callable[[], bool] = lambda: False,
) -> RunSummary:
    """Run the job: until the available events are done (``once``), until ``stop_requested``
    says so (polled every second) or until interrupted. ``on_progress`` gets the newest
    progress report every ``report_every`` seconds (by default they are logged)."""
    began = time.monotonic()
    query = start(spark, config, once=once)
    seen: dict[int, dict[str, Any]] = {}
    reported = time.monotonic()
    try:
        while not query.awaitTermination(1.0):
            if stop_requested():
                query.stop()
                break
            if time.monotonic() - reported < report_every:
                continue
            reported = time.monotonic()
            _collect(query, seen)
            if seen:
                (on_progress or _log_progress)(seen[max(seen)])
    except KeyboardInterrupt:
        query.stop()
    except Exception:
        # Ctrl-C cancels the batch in flight (the CLI's Interrupts), which ends the query
        # with an error: that is the stop asked for, not a failure of the job
        if not stop_requested():
            raise
        query.stop()
    _collect(query, seen)
    if query.exception() is not None and not stop_requested():
        raise query.exception()
    return summarise([seen[k] for k in sorted(seen)], time.monotonic() - began)


def _log_progress(last: dict[str, Any]) -> None:
    log.info(
        "batch %s: %s events in %s records, %.0f records/s processed",
        last["batchId"],
        rows_of(last),
        last["numInputRows"],
        last.get("processedRowsPerSecond", 0.0),
    )
