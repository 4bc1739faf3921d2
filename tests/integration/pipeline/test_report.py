"""Issue 7: "the report renders with charts" - from the tables of the known stream's run."""

from __future__ import annotations

import struct
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from mqkafka.pipeline import report
from mqkafka.pipeline.config import PipelineConfig
from mqkafka.pipeline.report_data import UNPARSED
from mqkafka.pipeline.snapshot_job import snapshot_path
from tests.integration.pipeline import known_stream as ks

pytestmark = pytest.mark.kafka
PNG = b"\x89PNG\r\n\x1a\n"


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG, path
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _subscription_snapshots(spark: Any, config: PipelineConfig) -> None:
    """Two subscriptions snapshots in the snapshot table's layout (the snapshot job's own
    test checks how they are taken)."""
    snapshots = [
        ("20260101T100000000000Z", ["Sport/#"]),
        ("20260101T100500000000Z", ["Sport/#", "Sport/#", "News/#"]),
    ]
    for snapshot, topics in snapshots:
        rows = [(f"k{i}", topic) for i, topic in enumerate(topics)]
        frame = spark.createDataFrame(rows, "key string, topic string")
        frame.write.mode("overwrite").parquet(
            f"{snapshot_path(config, 'subscriptions')}/snapshot={snapshot}"
        )


def test_the_report_renders_with_charts(
    spark: Any, known_run: tuple[PipelineConfig, Any], tmp_path: Path
) -> None:
    config = known_run[0]
    _subscription_snapshots(spark, config)
    data = report.load(spark, config)
    index = report.render(data, tmp_path / "report")

    page = index.read_text()
    for chart in report.CHARTS:
        assert f'src="{chart}.png"' in page
        width, height = png_size(tmp_path / "report" / f"{chart}.png")
        assert (width, height) == (900, 400)
    totals = ks.minute_totals(ks.known_stream())
    publications = sum(m["publications"] for m in totals.values())
    assert f'<td>Publications</td><td class="n">{publications:,}</td>' in page
    assert "Sport/Soccer" in page and "MQRCCF_NOT_AUTHORIZED (3081)" in page
    assert "3 subscriptions" in page  # the newest snapshot (of subscriptions only, as after
    # 'mqk pipeline snapshot --only subscriptions': no retained snapshot, and no error)
    # minutes 0-2 are final; the pusher's minute 10 is not, and is counted from Kafka
    assert [m.minute.minute for m in data.minutes] == [0, 1, 2, 10]
    assert data.open_from == datetime(2026, 1, 1, 10, 3)
    assert "10:03 UTC on are not final" in page
    assert data.topics[0].topic == "Sport/Soccer"  # the busiest, by deliveries
    # refused publications are failures, not traffic
    assert not {"Sport/#", "Sport/Golf"} & {t.topic for t in data.topics}
    assert f"<td>MQRCCF_REG_OPTIONS_ERROR (3083)</td><td>{UNPARSED}</td>" in page
    assert {q.queue for q in data.queues} >= {"Q1", "Q2", "Q3", "Q4", "Q9"}
    assert data.subscriptions is not None and data.subscriptions.history == (
        ("20260101T100000000000Z", 1),
        ("20260101T100500000000Z", 3),
    )
