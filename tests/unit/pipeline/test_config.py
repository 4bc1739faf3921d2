"""PipelineConfig validates when built and names the topics and places of one deployment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.pipeline.config import PipelineConfig


@pytest.mark.parametrize(
    "bad",
    [{"bootstrap": " "}, {"watermark_s": -1}, {"trigger_s": 0}, {"max_events_per_batch": 0},
     {"shuffle_partitions": 0}, {"state_store": "memory"}],
)  # fmt: skip
def test_a_bad_value_is_an_options_error(bad: dict[str, Any]) -> None:
    with pytest.raises(MQError) as raised:
        PipelineConfig(**{"bootstrap": "k:9092", **bad})
    assert raised.value.reason == RC.OPTIONS_ERROR


def test_topics_carry_the_namespace_prefix() -> None:
    config = PipelineConfig("k:9092", namespace="qm2.")
    assert config.activity_topic == "qm2.mqk-activity"
    assert config.state_topic("retained") == "qm2.mqk-retained"
    assert config.state_topic("subscriptions") == "qm2.mqk-subscriptions"
    assert config.state_topic("publishers") == "qm2.mqk-publishers"


def test_local_paths_are_made_absolute_and_uris_kept(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    config = PipelineConfig("k:9092", tables="t", checkpoints="s3a://bucket/cp")
    assert config.table("topic_minute") == f"{tmp_path}/t/topic_minute"
    assert config.stream_checkpoint == "s3a://bucket/cp/activity"


def test_defaults_live_under_mqk_home(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("MQK_HOME", str(tmp_path))
    config = PipelineConfig("k:9092")
    assert config.tables == str(tmp_path / "pipeline" / "tables")
    assert config.checkpoints == str(tmp_path / "pipeline" / "checkpoints")
