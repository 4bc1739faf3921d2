"""What a pipeline run needs to know, built once by the CLI or an entry script.

Paths default under ``$MQK_HOME/pipeline`` (the stack ``make run`` starts keeps its data in
``$MQK_HOME``); on a cluster pass shared paths (HDFS, S3, a mounted volume) instead: nothing
here assumes local files or local mode.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.javaprops import java_client_settings
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.service.config import ACTIVITY_TOPIC
from mqkafka.state.kinds import STATE_KINDS

STATE_STORES: Final = ("rocksdb", "hdfs")  # Spark's two built-in state store providers
DEFAULT_WATERMARK_S: Final = 120.0  # how late an event may arrive and still be counted
DEFAULT_TRIGGER_S: Final = 10.0
DEFAULT_MAX_EVENTS_PER_BATCH: Final = 500_000
# events per activity record (an ActivityBatch) that ``max_records_per_batch`` plans for: the
# Kafka source bounds a micro-batch by records only, and a busy service writes this many
EVENTS_PER_RECORD: Final = 500


def default_home() -> Path:
    """``$MQK_HOME/pipeline`` (``~/.mqk/pipeline`` when unset), as the rest of mqk does."""
    return Path(os.environ.get("MQK_HOME") or Path.home() / ".mqk") / "pipeline"


def _location(value: str | Path) -> str:
    """A path or URI as Spark takes it: URIs (``s3a://``, ``hdfs://``) unchanged."""
    text = str(value)
    return text if "://" in text else str(Path(text).expanduser().resolve())


@dataclass(frozen=True)
class PipelineConfig:
    """One pipeline deployment: which Kafka and namespace, where tables and checkpoints live.

    ``tables`` is the root of every Parquet table (``<tables>/topic_minute`` ...);
    ``checkpoints`` holds the streaming job's checkpoint, which together with the idempotent
    per-batch writes makes the aggregates exactly once (see ``stream_job``).
    """

    bootstrap: str
    namespace: str = ""
    kafka_settings: Mapping[str, str] = field(default_factory=dict, repr=False)  # has secrets
    tables: str = field(default_factory=lambda: _location(default_home() / "tables"))
    checkpoints: str = field(default_factory=lambda: _location(default_home() / "checkpoints"))
    watermark_s: float = DEFAULT_WATERMARK_S
    trigger_s: float = DEFAULT_TRIGGER_S
    max_events_per_batch: int = DEFAULT_MAX_EVENTS_PER_BATCH
    shuffle_partitions: int = 4  # fixed by the checkpoint after the first run
    state_store: str = "rocksdb"

    def __post_init__(self) -> None:
        if not self.bootstrap.strip():
            raise MQError(RC.OPTIONS_ERROR, "no Kafka bootstrap servers")
        if self.watermark_s < 0:
            raise MQError(RC.OPTIONS_ERROR, f"watermark {self.watermark_s}s is negative")
        if self.trigger_s <= 0:
            raise MQError(RC.OPTIONS_ERROR, f"trigger interval {self.trigger_s}s is not positive")
        if self.max_events_per_batch < 1:
            raise MQError(RC.OPTIONS_ERROR, "max events per batch must be at least 1")
        if self.shuffle_partitions < 1:
            raise MQError(RC.OPTIONS_ERROR, "shuffle partitions must be at least 1")
        if self.state_store not in STATE_STORES:
            raise MQError(RC.OPTIONS_ERROR, f"state store {self.state_store!r}: not {STATE_STORES}")
        object.__setattr__(self, "tables", _location(self.tables))
        object.__setattr__(self, "checkpoints", _location(self.checkpoints))

    @property
    def java_kafka_settings(self) -> dict[str, str]:
        """The Kafka client settings as Spark's Java Kafka source takes them."""
        return java_client_settings(ClientConfig(self.bootstrap, self.kafka_settings))

    # --- Kafka topics this pipeline reads (the catalogue's names, namespace-prefixed) ---------
    @property
    def activity_topic(self) -> str:
        return self.namespace + ACTIVITY_TOPIC

    def state_topic(self, snapshot: str) -> str:
        return self.namespace + SNAPSHOT_TOPICS[snapshot]

    # --- where each thing lives ------------------------------------------------------------
    def table(self, name: str) -> str:
        return f"{self.tables}/{name}"

    @property
    def stream_checkpoint(self) -> str:
        return f"{self.checkpoints}/activity"

    @property
    def max_records_per_batch(self) -> int:
        """``max_events_per_batch`` as the Kafka records (batches of events) a micro-batch may
        read, at ``EVENTS_PER_RECORD`` events a record: a bound on records is all the Kafka
        source offers, so smaller records make smaller micro-batches."""
        return max(1, self.max_events_per_batch // EVENTS_PER_RECORD)


# snapshot table name (a state kind's) -> compacted topic it is taken from
SNAPSHOT_TOPICS: Final[dict[str, str]] = {kind.name: kind.topic for kind in STATE_KINDS}
