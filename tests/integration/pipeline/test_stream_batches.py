"""Activity records are ActivityBatch values: every event of a record counts once, an empty
batch counts nothing, and neither is taken for a value that does not decode."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mqkafka.activity.events import encode, encode_batch
from mqkafka.pipeline import stream_job
from mqkafka.pipeline.config import PipelineConfig
from tests.integration.pipeline import known_stream as ks
from tests.integration.pipeline.conftest import produce

pytestmark = pytest.mark.kafka


def test_each_event_of_a_record_counts_once_and_an_empty_batch_adds_nothing(
    spark: Any, activity: PipelineConfig, read_table: Callable[..., list[dict[str, Any]]]
) -> None:
    events = ks.known_stream()
    whole = encode_batch([encode(e) for e in events])  # three minutes in one record
    produce(activity, [whole, encode_batch([]), encode_batch([encode(ks.pusher(10))])])
    summary = stream_job.run(spark, activity, once=True)
    assert (summary.records, summary.input_rows, summary.undecodable) == (3, len(events) + 1, 0)

    totals = {}
    for row in read_table(activity, "minute_totals"):
        del row["latency_max_ms"]
        totals[row.pop("minute")] = row
    assert totals == ks.minute_totals(events)
    topics = {(r.pop("minute"), r.pop("topic")): r for r in read_table(activity, "topic_minute")}
    assert topics == ks.topic_minute(events)
