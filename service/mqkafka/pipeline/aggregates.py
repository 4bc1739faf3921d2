"""Activity events -> per-minute groups: the streaming job's one stateful aggregation.

Every event becomes one or more *facts*, each counted in exactly one group of its minute:

| dimension | which events                                 | group key                            |
|-----------|----------------------------------------------|--------------------------------------|
| topic     | DELIVERY, and COMMAND Publish (per topic)    | topic, msg_id (a group per message)  |
| queue     | DELIVERY (its subscriber queue), and COMMAND | queue, latency bucket (``histogram``;|
|           | naming an identity queue (that queue)        | none for a COMMAND)                  |
| command   | every COMMAND                                | queue put to, identity queue,        |
|           |                                              | command, completion, reason          |

The topic groups are per message because fan-out is "deliveries per publication": a
publication's copies are all written in the transaction that consumed it and carry its MsgId
and processing time, so each message's group is complete in its minute and ``tables`` reduces
the groups of a finished minute to per-topic figures (fan-out, latency over messages) without
a second stateful operator. The minute is the event time ``time_ms`` (when the broker
processed the message), tumbling, in UTC. ``measures`` lists what each group counts, with the
rule beside each.
"""

from __future__ import annotations

from typing import Any, Final

from mqkafka.pipeline.histogram import bucket_column

WINDOW: Final = "1 minute"
# the facts' group key columns (``key_*`` so they never clash with the event's own columns)
GROUP_KEYS: Final = (
    "dim", "key", "key2", "key_command", "key_completion", "key_reason", "key_msg_id",
    "key_latency_bucket",
)  # fmt: skip
# what the measures read from each event
MEASURED: Final = ("event_time", "kind", "command", "completion", "bytes", "latency_ms")


def with_event_time(events: Any) -> Any:
    from pyspark.sql import functions as F

    return events.where("decoded").withColumn("event_time", F.timestamp_millis("time_ms"))


def facts(events: Any) -> Any:
    """One row per (event, fact): the event's columns plus the fact's group key columns."""
    from pyspark.sql import functions as F

    kind, command = F.col("kind"), F.col("command")
    is_delivery = kind == "DELIVERY"
    is_command = kind == "COMMAND"
    none = F.lit(None).cast("string")

    no_id, no_bucket = F.lit(None).cast("binary"), F.lit(None).cast("int")

    def fact(
        dim: str, key: Any, key2: Any, outcome: bool, msg_id: Any = no_id, bucket: Any = no_bucket
    ) -> Any:
        return F.struct(
            F.lit(dim).alias("dim"),
            key.alias("key"),
            key2.alias("key2"),
            (command if outcome else none).alias("key_command"),
            (F.col("completion") if outcome else none).alias("key_completion"),
            (F.col("reason") if outcome else F.lit(None).cast("int")).alias("key_reason"),
            msg_id.alias("key_msg_id"),
            bucket.alias("key_latency_bucket"),
        )

    on_topic = is_delivery | (is_command & (command == "Publish"))
    topic_facts = F.when(
        on_topic,
        F.transform("topics", lambda t: fact("topic", t, none, False, msg_id=F.col("msg_id"))),
    )
    queue_of = F.when(is_delivery, F.col("queue")).otherwise(F.col("identity_queue"))
    latency = F.when(is_delivery, bucket_column(F.col("latency_ms")))
    queue_fact = F.when(
        queue_of.isNotNull(), F.array(fact("queue", queue_of, none, False, bucket=latency))
    )
    command_fact = F.when(
        is_command, F.array(fact("command", F.col("queue"), F.col("identity_queue"), True))
    )
    # an empty array of the fact type, so every branch concatenates
    empty = F.filter(F.array(fact("none", none, none, False)), lambda _: F.lit(False))
    every = F.concat(
        F.coalesce(topic_facts, empty),
        F.coalesce(queue_fact, empty),
        F.coalesce(command_fact, empty),
    )
    exploded = events.select(*MEASURED, F.explode(every).alias("fact"))
    return exploded.select(*MEASURED, *[f"fact.{k}" for k in GROUP_KEYS])


def measures() -> list[Any]:
    """The aggregate columns of every group (a measure a dimension does not use stays 0/null)."""
    from pyspark.sql import functions as F

    kind, completion = F.col("kind"), F.col("completion")
    command = F.col("kind") == "COMMAND"
    publish = command & (F.col("command") == "Publish")
    delivery = kind == "DELIVERY"
    failed = command & (completion != "ok")
    # a command the broker refused is no traffic: its latency is not a message's
    refused = command & (completion == "error")
    return [
        # a Publish the broker accepted (ok or warning): the publication happened
        F.count(F.when(publish & (completion != "error"), 1)).alias("publications"),
        # a Publish whose completion is not ok (warning or error), as failures count them
        F.count(F.when(publish & (completion != "ok"), 1)).alias("failed_publications"),
        F.count(F.when(delivery, 1)).alias("deliveries"),
        F.count(F.when(command, 1)).alias("commands"),
        # "failures by reason code": COMMAND events whose completion is not ok
        F.count(F.when(failed, 1)).alias("failures"),
        F.coalesce(
            F.sum(F.when(publish & (completion != "error"), F.col("bytes"))), F.lit(0)
        ).alias("published_bytes"),
        F.coalesce(F.sum(F.when(delivery, F.col("bytes"))), F.lit(0)).alias("delivered_bytes"),
        # one message's events share put and processing times: its latency
        F.max(F.when(~refused, F.col("latency_ms"))).alias("latency_ms"),
    ]


def minute_groups(events: Any, watermark: str) -> Any:
    """The stateful aggregation: events (decoded) -> one row per (minute, group).

    ``watermark`` (Spark interval text) is how far behind the newest event time seen an event
    may be and still be counted; a minute is final, and emitted, once the watermark passes
    its end. Later events are dropped (Spark reports them as rows dropped by watermark).
    """
    from pyspark.sql import functions as F

    timed = with_event_time(events).withWatermark("event_time", watermark)
    grouped = facts(timed).groupBy(F.window("event_time", WINDOW).alias("window"), *GROUP_KEYS)
    return grouped.agg(*measures())
