"""One local SparkSession for the whole pipeline suite, and fresh activity topics.

The session is ``local[2]`` with two shuffle partitions and no UI: the suite's cost is Spark's
start-up (once) and a few micro-batches per test. The service fixtures (``namespace``,
``start_service``, ``client``) are the service suite's own, re-exported for the snapshot test.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from mqkafka.activity.events import ActivityEvent, encode, encode_batch
from mqkafka.pipeline.config import PipelineConfig
from tests.integration.service.conftest import client, namespace, start_service

__all__ = ["client", "namespace", "start_service"]


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    from mqkafka.pipeline.session import build_session

    session = build_session("mqk-pipeline-tests", master="local[2]", shuffle_partitions=2)
    yield session
    session.stop()


@pytest.fixture
def activity(kafka_bootstrap: str, tmp_path: Path) -> PipelineConfig:
    """A pipeline configuration over a fresh, empty ``<ns>mqk-activity`` (4 partitions)."""
    config = PipelineConfig(
        kafka_bootstrap,
        namespace=f"p{uuid.uuid4().hex[:8]}.",
        tables=str(tmp_path / "tables"),
        checkpoints=str(tmp_path / "checkpoints"),
        shuffle_partitions=2,
    )
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    topic = NewTopic(config.activity_topic, 4, 1)
    admin.create_topics([topic], operation_timeout=30)[config.activity_topic].result()
    return config


# how many events each activity record carries, in turn: single events, small batches and one
# large enough to hold a whole minute of the known stream, so records cross minutes and groups
GROUP_SIZES: Final = (3, 1, 7, 2, 40, 5)


def produce(
    config: PipelineConfig, events: Iterable[ActivityEvent | bytes], *, abort: bool = False
) -> None:
    """Write events to the activity topic in one Kafka transaction as the service does: as
    ActivityBatch records of several events (``GROUP_SIZES`` in turn), keyed by a worker's
    instance id (three workers in turn, so records spread over partitions). A ``bytes`` item
    is written as it is, one raw record (after the events before it); ``abort`` rolls the
    transaction back."""
    producer = Producer(
        {"bootstrap.servers": config.bootstrap, "transactional.id": f"t-{uuid.uuid4().hex}"}
    )
    producer.init_transactions(30)
    producer.begin_transaction()
    sizes, workers = itertools.cycle(GROUP_SIZES), itertools.cycle((b"w-1", b"w-2", b"w-3"))
    pending: list[bytes] = []
    size = next(sizes)

    def flush() -> None:
        nonlocal pending, size
        if pending:
            value = encode_batch(pending)
            producer.produce(config.activity_topic, value=value, key=next(workers))
            pending, size = [], next(sizes)

    for event in events:
        if isinstance(event, bytes):
            flush()
            producer.produce(config.activity_topic, value=event, key=b"raw")
        else:
            pending.append(encode(event))
            if len(pending) == size:
                flush()
    flush()
    if abort:
        producer.abort_transaction(30)
    else:
        producer.commit_transaction(30)


@pytest.fixture(scope="session")
def known_run(
    spark: Any, kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory
) -> tuple[PipelineConfig, Any]:
    """The streaming job run once over the known stream (``known_stream``), next to an aborted
    transaction and a value that is not an event; shared by the aggregate and report tests."""
    from mqkafka.pipeline import stream_job
    from tests.integration.pipeline import known_stream as ks

    root = tmp_path_factory.mktemp("known")
    config = PipelineConfig(
        kafka_bootstrap, namespace=f"k{uuid.uuid4().hex[:8]}.", tables=str(root / "tables"),
        checkpoints=str(root / "checkpoints"), shuffle_partitions=2,
    )  # fmt: skip
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    new = NewTopic(config.activity_topic, 4, 1)
    admin.create_topics([new], operation_timeout=30)[config.activity_topic].result()
    produce(config, ks.known_stream())
    produce(config, ks.publication(1, 5, "Aborted/Topic", "X", ["Q1"], 5), abort=True)
    produce(config, [b"\x07not an activity event"])
    produce(config, [ks.pusher(10)])
    return config, stream_job.run(spark, config, once=True)


@pytest.fixture
def read_table(spark: Any) -> Callable[[PipelineConfig, str], list[dict[str, Any]]]:
    def read(config: PipelineConfig, name: str) -> list[dict[str, Any]]:
        frame = spark.read.parquet(config.table(name)).drop("batch_id")
        return [row.asDict() for row in frame.collect()]

    return read
