"""The Parquet tables, reduced from the minute groups a micro-batch finalised.

Append mode emits every group of a minute in the same micro-batch (the one in which the
watermark passes the minute's end), so each function below sees whole minutes and needs no
state of its own. The tables, one row per key and minute (``minute`` = its start, UTC):

| table           | key                       | columns                                           |
|-----------------|---------------------------|---------------------------------------------------|
| topic_minute    | topic                     | publications, failed_publications, deliveries,    |
|                 |                           | published_bytes, delivered_bytes, messages,       |
|                 |                           | fanout_mean, fanout_max, latency_p50/p99/max_ms   |
| queue_minute    | queue (subscriber queue)  | deliveries, delivered_bytes, commands, failures,  |
|                 |                           | latency_p50_ms, latency_p99_ms                    |
| command_minute  | queue, identity_queue,    | commands                                          |
|                 | command, completion,      |                                                   |
|                 | reason                    |                                                   |
| failures_minute | the same                  | failures: command_minute rows not ok              |
| minute_totals   | -                         | publications, deliveries, bytes, messages,        |
|                 |                           | fan-out, latency over messages, commands, failures|

Rules: a refused command (completion error) is never traffic: a refused Publish counts in
``failed_publications`` and the failures, not in messages or latency. Fan-out is deliveries
per message that caused deliveries (DELIVERY events grouped by msg_id; a retained delivery
counts for the RegSub or ReqUpdate that caused it); percentiles are nearest-rank: topic and
total latencies exactly over messages (a message's events share one latency), queue
latencies over deliveries to 1% (``histogram``). A Publish naming two topics counts in both
topics' rows and once in ``minute_totals``.

Exactly once: the rows of micro-batch N are written to ``<table>/batch_id=N`` with mode
overwrite. Spark records batch N's Kafka offsets before running it and re-runs an unfinished
batch with the same offsets and the same state after a failure, so a re-run rewrites the same
rows in the same place: nothing is lost or counted twice. Readers read ``<table>`` whole.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from mqkafka.pipeline.histogram import value_column

TOPIC, QUEUE, COMMAND = "topic", "queue", "command"
# mqk's own reply queue (client.kafka_pubsub.REPLY_QUEUE): the CLI's plumbing, no subscriber's
CLI_REPLY_QUEUE: Final = "MQK.CLIENT.REPLY"


def _minute() -> Any:
    from pyspark.sql import functions as F

    return F.col("window.start").alias("minute")


def _percentiles(column: str) -> list[Any]:
    """Exact nearest-rank percentiles (``percentile_disc``: an observed value) and the max."""
    from pyspark.sql import functions as F

    def disc(fraction: float) -> Any:
        return F.expr(f"percentile_disc({fraction}) WITHIN GROUP (ORDER BY {column})")

    return [
        disc(0.5).alias("latency_p50_ms"),
        disc(0.99).alias("latency_p99_ms"),
        F.max(column).alias("latency_max_ms"),
    ]


def _fanout() -> list[Any]:
    from pyspark.sql import functions as F

    delivered = F.count(F.when(F.col("deliveries") > 0, 1))
    # a message is a publication the broker accepted or a copy it delivered: a refused
    # Publish (its topic group holds neither) is counted in failed_publications only
    carried = (F.col("publications") > 0) | (F.col("deliveries") > 0)
    return [
        F.count(F.when(carried, 1)).alias("messages"),
        (F.sum("deliveries") / F.nullif(delivered, F.lit(0))).alias("fanout_mean"),
        F.max("deliveries").alias("fanout_max"),
    ]


def topic_minute(groups: Any) -> Any:
    from pyspark.sql import functions as F

    rows = groups.where(F.col("dim") == TOPIC)
    return rows.groupBy(_minute(), F.col("key").alias("topic")).agg(
        F.sum("publications").alias("publications"),
        F.sum("failed_publications").alias("failed_publications"),
        F.sum("deliveries").alias("deliveries"),
        F.sum("published_bytes").alias("published_bytes"),
        F.sum("delivered_bytes").alias("delivered_bytes"),
        *_fanout(),
        *_percentiles("latency_ms"),
    )


def queue_minute(groups: Any) -> Any:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    queues = (F.col("dim") == QUEUE) & (F.col("key") != CLI_REPLY_QUEUE)
    rows = groups.where(queues).withColumn("minute", F.col("window.start"))
    keys = ["minute", F.col("key").alias("queue")]
    totals = rows.groupBy(*keys).agg(
        F.sum("deliveries").alias("deliveries"),
        F.sum("delivered_bytes").alias("delivered_bytes"),
        F.sum("commands").alias("commands"),
        F.sum("failures").alias("failures"),
    )
    # nearest rank over the 1% latency buckets (``histogram``): the first bucket whose
    # running count of deliveries reaches p * total
    per_queue = Window.partitionBy("minute", "key")
    running = per_queue.orderBy("key_latency_bucket").rowsBetween(Window.unboundedPreceding, 0)
    buckets = rows.where(F.col("key_latency_bucket").isNotNull()).select(
        "minute",
        "key",
        "key_latency_bucket",
        F.sum("deliveries").over(running).alias("running"),
        F.sum("deliveries").over(per_queue).alias("total"),
    )

    def rank(fraction: float) -> Any:
        reached = F.col("running") >= F.lit(fraction) * F.col("total")
        return value_column(F.min(F.when(reached, F.col("key_latency_bucket"))))

    latency = buckets.groupBy(*keys).agg(
        rank(0.5).alias("latency_p50_ms"), rank(0.99).alias("latency_p99_ms")
    )
    # null latencies: the queue had commands but no deliveries in the minute
    return totals.join(latency, ["minute", "queue"], "left")


def command_minute(groups: Any) -> Any:
    from pyspark.sql import functions as F

    rows = groups.where(F.col("dim") == COMMAND)
    return rows.select(
        _minute(),
        F.col("key").alias("queue"),
        F.col("key2").alias("identity_queue"),
        F.col("key_command").alias("command"),
        F.col("key_completion").alias("completion"),
        F.col("key_reason").alias("reason"),
        "commands",
    )


def failures_minute(groups: Any) -> Any:
    from pyspark.sql import functions as F

    failed = command_minute(groups).where(F.col("completion") != "ok")
    return failed.withColumnRenamed("commands", "failures")


def minute_totals(groups: Any) -> Any:
    from pyspark.sql import functions as F

    # one row per message first: a Publish naming two topics is one message
    per_message = (
        groups.where(F.col("dim") == TOPIC)
        .groupBy("window", "key_msg_id")
        .agg(
            F.max("publications").alias("publications"),
            F.sum("deliveries").alias("deliveries"),
            F.max("published_bytes").alias("published_bytes"),
            F.sum("delivered_bytes").alias("delivered_bytes"),
            F.max("latency_ms").alias("latency_ms"),
        )
    )
    messages = per_message.groupBy(_minute()).agg(
        F.sum("publications").alias("publications"),
        F.sum("deliveries").alias("deliveries"),
        F.sum("published_bytes").alias("published_bytes"),
        F.sum("delivered_bytes").alias("delivered_bytes"),
        *_fanout(),
        *_percentiles("latency_ms"),
    )
    commands = (
        groups.where(F.col("dim") == COMMAND)
        .groupBy(_minute())
        .agg(F.sum("commands").alias("commands"), F.sum("failures").alias("failures"))
    )
    joined = messages.join(commands, "minute", "full_outer")
    zero = ["publications", "deliveries", "published_bytes", "delivered_bytes", "messages"]
    return joined.fillna(0, subset=[*zero, "commands", "failures"])


TABLES: Final[dict[str, Callable[[Any], Any]]] = {
    "topic_minute": topic_minute,
    "queue_minute": queue_minute,
    "command_minute": command_minute,
    "failures_minute": failures_minute,
    "minute_totals": minute_totals,
}


def write_batch(groups: Any, batch_id: int, table_path: Callable[[str], str]) -> bool:
    """Write every table's rows of one micro-batch; False when the batch finalised nothing."""
    groups.persist()
    try:
        if groups.isEmpty():
            return False
        for name, reduce in TABLES.items():
            out = reduce(groups).coalesce(1)  # a minute's rows are few: one file per batch
            out.write.mode("overwrite").parquet(f"{table_path(name)}/batch_id={batch_id}")
        return True
    finally:
        groups.unpersist()
