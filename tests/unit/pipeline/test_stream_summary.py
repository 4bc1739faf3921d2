"""What a run reports, from Spark's progress reports (plain JSON values)."""

from __future__ import annotations

from mqkafka.pipeline.stream_job import summarise


def progress(batch: int, rows: int, late: int = 0, undecodable: int = 0) -> dict[str, object]:
    return {
        "batchId": batch,
        "numInputRows": rows,
        "stateOperators": [{"numRowsDroppedByWatermark": late}],
        "observedMetrics": {"decode": {"undecodable": undecodable}},
    }


def test_totals_over_batches_with_data() -> None:
    summary = summarise([progress(0, 10, 0, 1), progress(1, 5, 2), progress(2, 0)], 3.0)
    assert (summary.batches, summary.input_rows) == (2, 15)  # batch 2 had no data
    assert (summary.late_dropped, summary.undecodable, summary.seconds) == (2, 1, 3.0)
    assert "15 event(s)" in summary.describe()


def test_a_progress_without_state_or_metrics_counts_nothing_late() -> None:
    summary = summarise([{"batchId": 0, "numInputRows": 3}], 1.0)
    assert (summary.late_dropped, summary.undecodable) == (0, 0)


def test_events_are_the_rows_decoded_and_records_what_kafka_gave() -> None:
    """A Kafka record is a batch of events: ``numInputRows`` counts records, the decode
    metric the rows (events and undecodable values) they gave."""
    batch = progress(0, 3, undecodable=1)
    batch["observedMetrics"] = {"decode": {"rows": 1201, "undecodable": 1}}
    summary = summarise([batch, progress(1, 0)], 2.0)
    assert (summary.records, summary.input_rows, summary.undecodable) == (3, 1201, 1)
    assert "1201 event(s) from 3 record(s)" in summary.describe()
