"""Issue 7: "the snapshot equals the compacted state after publishes, replacements and
DeletePubs" - through a real ``mqk serve`` and its state topics.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.compacted import read_compacted
from mqkafka.pipeline import snapshot_job
from mqkafka.pipeline.config import PipelineConfig

pytestmark = pytest.mark.kafka


def _state(config: PipelineConfig, name: str) -> dict[str, str]:
    """key -> SHA-256 of the value, as a plain consumer folding the topic sees it."""
    import hashlib

    folded = read_compacted(ClientConfig(config.bootstrap), config.state_topic(name))
    return {k.decode(): hashlib.sha256(v).hexdigest() for k, v in folded.items()}


def test_snapshots_equal_the_compacted_state_and_diff_by_key(
    spark: Any,
    kafka_bootstrap: str,
    namespace: str,
    start_service: Callable[..., Any],
    client: KafkaPubSub,
    tmp_path: Path,
) -> None:
    start_service()
    for topic, body in [("Sport/A", b"1"), ("Sport/B", b"2"), ("Sport/C", b"3")]:
        assert client.publish(topic, body, retain=True).ok  # type: ignore[union-attr]
    assert client.publish("Sport/B", b"2 again", retain=True).ok  # type: ignore[union-attr]
    assert client.delete_publication("Sport/C").ok  # type: ignore[union-attr]
    assert client.register("Sport/#", queue="SUB.ONE").ok  # type: ignore[union-attr]
    assert client.register("News/#", queue="SUB.TWO").ok  # type: ignore[union-attr]
    assert client.deregister("News/#", queue="SUB.TWO").ok  # type: ignore[union-attr]
    config = PipelineConfig(
        kafka_bootstrap, namespace=namespace, tables=str(tmp_path / "tables"),
        checkpoints=str(tmp_path / "checkpoints"), shuffle_partitions=2,
    )  # fmt: skip

    first_at = datetime.now(UTC)
    counts = snapshot_job.take(spark, config, at=first_at)
    first = snapshot_job.snapshot_id(first_at)
    retained = snapshot_job.read(spark, config, "retained", first).collect()
    assert {r["topic"]: r["body"] for r in retained} == {"Sport/A": b"1", "Sport/B": b"2 again"}
    subs = snapshot_job.read(spark, config, "subscriptions", first).collect()
    assert [(r["q_name"], r["topic"], r["scheme"]) for r in subs] == [
        ("SUB.ONE", "Sport/#", "TOPIC")
    ]
    for name in snapshot_job.SNAPSHOTS:  # tombstones honoured, newest value of every key
        rows = snapshot_job.read(spark, config, name, first).collect()
        assert {r["key"]: r["value_sha256"] for r in rows} == _state(config, name), name
        assert all(r["decoded"] for r in rows)
        assert counts[name] == len(rows)
    assert counts["publishers"] >= 1  # the implicit registration of the publisher

    time.sleep(0.01)  # the second snapshot's id and time are later
    assert client.publish("Sport/D", b"4", retain=True).ok  # type: ignore[union-attr]
    assert client.publish("Sport/B", b"2 once more", retain=True).ok  # type: ignore[union-attr]
    assert client.delete_publication("Sport/A").ok  # type: ignore[union-attr]
    second_at = datetime.now(UTC)
    snapshot_job.take(spark, config, ("retained",), at=second_at)
    second = snapshot_job.snapshot_id(second_at)
    changes = snapshot_job.diff(spark, config, "retained", first, second).collect()
    by_topic = {r["key"].split("\x00")[1]: r["change"] for r in changes}
    assert by_topic == {"Sport/A": "removed", "Sport/B": "changed", "Sport/D": "added"}

    # at a past time: the records written after it do not count
    again = snapshot_job.snapshot(spark, config, "retained", first_at).collect()
    assert {r["topic"]: r["body"] for r in again} == {"Sport/A": b"1", "Sport/B": b"2 again"}
