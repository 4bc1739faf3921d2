"""Issue 7: "a restarted streaming job resumes from its checkpoint without counting anything
twice", and late events handled by the watermark.

Three runs over one checkpoint: the first sees minutes 0-1 and an event at 3:00 (so only
minute 0 is final); the second sees a late event still inside the watermark, one behind it,
minute 2 and a pusher; the third re-runs the last batch as after a crash between writing the
tables and committing the batch.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mqkafka.pipeline import stream_job
from mqkafka.pipeline.config import PipelineConfig
from tests.integration.pipeline import known_stream as ks
from tests.integration.pipeline.conftest import produce

pytestmark = pytest.mark.kafka

PART_1 = [e for e in ks.known_stream() if e.time_ms < ks.at(2)] + ks.publication(
    3, 0, "Sport/Soccer", "L", ["Q1"], 6
)
INSIDE = ks.publication(1, 45, "Sport/Soccer", "M", ["Q2"], 9)  # watermark 1:00, minute 1 open
BEHIND = ks.publication(0, 30, "Sport/Soccer", "Z", ["Q3"], 9)  # behind the watermark: dropped
PART_2 = [*INSIDE, *BEHIND, *[e for e in ks.known_stream() if e.time_ms >= ks.at(2)]]


def totals(
    read: Callable[[PipelineConfig, str], list[dict[str, Any]]], config: PipelineConfig
) -> dict[Any, dict[str, Any]]:
    """``minute_totals`` by minute, in the oracle's columns."""
    out = {}
    for row in read(config, "minute_totals"):
        del row["latency_max_ms"]
        out[row.pop("minute")] = row
    return out


def test_restart_resumes_from_the_checkpoint_without_counting_twice(
    spark: Any, activity: PipelineConfig, read_table: Callable[..., list[dict[str, Any]]]
) -> None:
    produce(activity, PART_1)
    first = stream_job.run(spark, activity, once=True)
    assert first.input_rows == len(PART_1)
    final = totals(read_table, activity)
    assert [m.minute for m in final] == [0], "the watermark (1:00) has passed minute 0 only"
    assert final == {m: v for m, v in ks.minute_totals(PART_1).items() if m.minute == 0}

    produce(activity, [*PART_2, ks.pusher(20)])
    second = stream_job.run(spark, activity, once=True)
    assert second.input_rows == len(PART_2) + 1  # nothing of part 1 read again
    # Spark counts the rows it dropped at the aggregation, after partial aggregation: some
    assert second.late_dropped > 0
    counted = [e for e in PART_1 + PART_2 if e not in BEHIND]
    assert totals(read_table, activity) == ks.minute_totals(counted)
    topics = {(r.pop("minute"), r.pop("topic")): r for r in read_table(activity, "topic_minute")}
    assert topics == ks.topic_minute(counted)


def test_a_batch_run_again_after_a_crash_writes_the_same_rows(
    spark: Any, activity: PipelineConfig, read_table: Callable[..., list[dict[str, Any]]]
) -> None:
    """The tables are written, then the job dies before committing the batch: the restarted
    job runs that batch again from its recorded offsets and state, over the same rows."""
    produce(activity, [*ks.known_stream(), ks.pusher(10)])
    stream_job.run(spark, activity, once=True)
    before = totals(read_table, activity)
    commits = Path(activity.stream_checkpoint) / "commits"
    last = max(int(p.name) for p in commits.iterdir() if p.name.isdigit())
    batch_dir = Path(activity.table("minute_totals")) / f"batch_id={last}"
    files_before = {p.name for p in batch_dir.glob("*.parquet")}
    (commits / str(last)).unlink()  # the crash: tables written, batch not committed
    (commits / f".{last}.crc").unlink(missing_ok=True)  # (the local file system's checksum)

    again = stream_job.run(spark, activity, once=True)
    assert again.batches == 0 and again.input_rows == 0  # re-run from the offset log, no new data
    assert (commits / str(last)).exists()
    assert totals(read_table, activity) == before == ks.minute_totals(ks.known_stream())
    files_after = {p.name for p in batch_dir.glob("*.parquet")}
    assert files_after and files_after != files_before, "the batch was written again, in place"
