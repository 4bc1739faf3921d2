"""Avro values from Kafka into Spark columns, with the writer schemas in ``schemas/``.

The values carry no framing (no Confluent magic byte, no schema id), which is exactly what
spark-avro's ``from_avro(column, schema_json)`` reads. ``PERMISSIVE`` turns a value that does
not decode into a record of nulls instead of failing the query: bad input is counted and skipped,
never a crash (the job logs how many it skipped per batch).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from mqkafka import resources
from mqkafka.activity.events import batch_schema
from mqkafka.state.kinds import STATE_KINDS

STATE_SCHEMA_FILES: Final = {kind.name: kind.schema for kind in STATE_KINDS}
# a field every record has: PERMISSIVE yields a record of nulls for a value that fails
REQUIRED_FIELD: Final = {kind.name: kind.required_field for kind in STATE_KINDS}
_OPTIONS: Final = {"mode": "PERMISSIVE"}


def schema_json(name: str) -> str:
    return resources.schema_text(name)


def kafka_options(
    bootstrap: str, topic: str, client_settings: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Options every Kafka read of the pipeline shares (stream and batch alike);
    ``client_settings`` are the Java client's (security), each given ``kafka.``-prefixed."""
    return {
        **{f"kafka.{k}": v for k, v in (client_settings or {}).items()},
        "kafka.bootstrap.servers": bootstrap,
        "subscribe": topic,
        "startingOffsets": "earliest",
        # the service writes events and state in Kafka transactions: committed ones only
        "kafka.isolation.level": "read_committed",
    }


def activity_events(raw: Any) -> Any:
    """Kafka records of ``<ns>mqk-activity`` -> one row per event, the event schema's columns.

    Each value is an ``ActivityBatch`` (``schemas/activity_batch.avsc``): its ``events`` are
    exploded, so a record of n events gives n rows and an empty batch none. ``kind`` is the
    enum's symbol (COMMAND / DELIVERY); ``decoded`` is false for a value that did not decode:
    such a record gives exactly one row, all other columns null.
    """
    from pyspark.sql import functions as F
    from pyspark.sql.avro.functions import from_avro

    batches = raw.select(from_avro("value", json.dumps(batch_schema()), _OPTIONS).alias("batch"))
    # PERMISSIVE gives a record of nulls for a value that fails, and ``events`` is required by
    # the schema: a null array is a value that did not decode, which stands for itself as one
    # null event (explode_outer would also turn an empty batch into a row)
    events = F.col("batch.events")
    element = batches.schema["batch"].dataType["events"].dataType.elementType
    undecoded = F.array(F.lit(None).cast(element))
    exploded = batches.select(F.explode(F.coalesce(events, undecoded)).alias("event"))
    return exploded.select(F.col("event").isNotNull().alias("decoded"), "event.*")


def state_value(column: Any, snapshot: str) -> Any:
    """The decoded record of a state topic's value column (null for a tombstone)."""
    from pyspark.sql.avro.functions import from_avro

    return from_avro(column, schema_json(STATE_SCHEMA_FILES[snapshot]), _OPTIONS)
