"""The snapshot job: compacted state topics -> Parquet tables at a point in time.

For each state kind (``mqkafka.state.kinds``: ``retained`` from ``<ns>mqk-retained``,
``subscriptions``, ``publishers``) it reads
the topic from the beginning to its end (committed records only), keeps the newest record of
every key and drops the keys whose newest record is a tombstone (a DeletePub, a DeregSub, a
DeregPub): exactly what a consumer replaying the topic would hold, which is also what Kafka
compaction converges to. The rows go to ``<tables>/snapshots/<name>/snapshot=<id>`` (mode
overwrite, so taking the same snapshot again replaces it), one row per live key, with the
decoded record flattened beside its Kafka coordinates and the SHA-256 of its value, so two
snapshots can be diffed key by key (``diff``).

``at``: only records written at or before that time count (their Kafka timestamp). Exact for
any time after the last compaction of the topic; before it, compaction may already have
removed a value that was current then (a limitation of compacted topics, not of the job).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final

from mqkafka.pipeline.config import SNAPSHOT_TOPICS, PipelineConfig
from mqkafka.pipeline.decode import REQUIRED_FIELD, kafka_options, state_value
from mqkafka.state.kinds import STATE_KINDS

SNAPSHOTS: Final = tuple(SNAPSHOT_TOPICS)


def snapshot_id(at: datetime) -> str:
    """The partition value naming a snapshot: its time in UTC, sortable as text."""
    return at.astimezone(UTC).strftime("%Y%m%dT%H%M%S%fZ")


def snapshot_path(config: PipelineConfig, name: str) -> str:
    return config.table(f"snapshots/{name}")


def _flatten(name: str) -> list[Any]:
    """The columns of each snapshot table: its state kind's (``mqkafka.state.kinds``), from
    the decoded record ``v``."""
    from pyspark.sql import functions as F

    columns = []
    for column in STATE_KINDS[name].snapshot:
        value = F.col(column.path)
        if column.transform == "length":
            value = F.length(value)
        elif column.transform == "timestamp":
            value = F.timestamp_micros((value * 1e6).cast("long"))
        columns.append(value.alias(column.alias))
    return columns


def live_records(raw: Any, at: datetime | None = None) -> Any:
    """Kafka records of a compacted topic -> the newest record of each live key.

    Newest by (timestamp, partition, offset): a key stays in one partition, and the timestamp
    decides only if the topic's partition count was raised and the key moved.
    """
    from pyspark.sql import functions as F

    if at is not None:
        raw = raw.where(F.col("timestamp") <= F.lit(at.astimezone(UTC).replace(tzinfo=None)))
    newest = (
        raw.where(F.col("key").isNotNull())
        .groupBy("key")
        .agg(F.max(F.struct("timestamp", "partition", "offset", "value")).alias("r"))
    )
    return newest.where(F.col("r.value").isNotNull()).select(
        F.col("key").cast("string").alias("key"),
        F.col("r.partition").alias("kafka_partition"),
        F.col("r.offset").alias("kafka_offset"),
        F.col("r.timestamp").alias("kafka_timestamp"),
        F.sha2(F.col("r.value"), 256).alias("value_sha256"),
        F.col("r.value").alias("value"),
    )


def snapshot(spark: Any, config: PipelineConfig, name: str, at: datetime | None = None) -> Any:
    """The snapshot of one state topic as a DataFrame (not yet written)."""
    from pyspark.sql import functions as F

    reader = spark.read.format("kafka")
    options = kafka_options(config.bootstrap, config.state_topic(name), config.java_kafka_settings)
    for key, value in {**options, "endingOffsets": "latest"}.items():
        reader = reader.option(key, value)
    live = live_records(reader.load(), at).withColumn("v", state_value(F.col("value"), name))
    keep = ["key", "kafka_partition", "kafka_offset", "kafka_timestamp", "value_sha256"]
    # a value that does not decode is kept, visible, with null fields: an audit must see it
    decoded = F.col(f"v.{REQUIRED_FIELD[name]}").isNotNull().alias("decoded")
    return live.select(*keep, decoded, *_flatten(name))


def take(
    spark: Any,
    config: PipelineConfig,
    names: tuple[str, ...] = SNAPSHOTS,
    at: datetime | None = None,
) -> dict[str, int]:
    """Write the snapshots of ``names``; returns the live key count of each."""
    taken_at = at or datetime.now(UTC)
    counts: dict[str, int] = {}
    for name in names:
        rows = snapshot(spark, config, name, at).cache()
        try:
            path = f"{snapshot_path(config, name)}/snapshot={snapshot_id(taken_at)}"
            rows.coalesce(1).write.mode("overwrite").parquet(path)
            counts[name] = rows.count()
        finally:
            rows.unpersist()
    return counts


def read(spark: Any, config: PipelineConfig, name: str, snapshot: str | None = None) -> Any:
    """One snapshot (the newest when ``snapshot`` is None) of ``name``."""
    from pyspark.sql import functions as F

    every = spark.read.parquet(snapshot_path(config, name))
    if snapshot is None:
        snapshot = every.agg(F.max("snapshot")).first()[0]
    return every.where(F.col("snapshot") == F.lit(snapshot))


def diff(spark: Any, config: PipelineConfig, name: str, old: str, new: str) -> Any:
    """Keys added, removed or changed (value hash differs) from snapshot ``old`` to ``new``."""
    from pyspark.sql import functions as F

    before = read(spark, config, name, old).select("key", F.col("value_sha256").alias("old"))
    after = read(spark, config, name, new).select("key", F.col("value_sha256").alias("new"))
    both = before.join(after, "key", "full_outer")
    change = (
        F.when(F.col("old").isNull(), "added")
        .when(F.col("new").isNull(), "removed")
        .when(F.col("old") != F.col("new"), "changed")
    )
    return both.select("key", change.alias("change")).where(F.col("change").isNotNull())
