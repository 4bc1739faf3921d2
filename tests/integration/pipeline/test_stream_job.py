"""Issue 7: "A known stream of activity events gives exactly the expected aggregates."

One run of the streaming job (``once``) over the known stream, written to a real Kafka topic
in a committed transaction, next to an aborted transaction and a value that is not an event;
then one test per rule against the tables it wrote.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

from mqkafka.activity.events import COMMAND
from mqkafka.pipeline import stream_job
from mqkafka.pipeline.config import PipelineConfig
from tests.integration.pipeline import known_stream as ks

pytestmark = pytest.mark.kafka
Table = list[dict[str, Any]]


@pytest.fixture(scope="module")
def tables(
    spark: Any, known_run: tuple[PipelineConfig, stream_job.RunSummary]
) -> Callable[[str], Table]:
    config = known_run[0]

    def read(name: str) -> Table:
        frame = spark.read.parquet(config.table(name)).drop("batch_id")
        return [row.asDict() for row in frame.collect()]

    return read


EMITTED = ks.known_stream()  # minutes 0-2; the pusher's minute 10 stays open


def test_topic_minute_is_exactly_the_oracle(tables: Callable[[str], Table]) -> None:
    """Per topic and minute: publications, deliveries, bytes, fan-out, latency over messages."""
    got = {(r.pop("minute"), r.pop("topic")): r for r in tables("topic_minute")}
    assert got == ks.topic_minute(EMITTED)


def test_fanout_is_deliveries_per_publication(tables: Callable[[str], Table]) -> None:
    """Fan-out: deliveries per publication (DELIVERY events grouped by msg_id)."""
    minute_1 = datetime(2026, 1, 1, 10, 1)
    soccer = next(
        r for r in tables("topic_minute") if (r["minute"], r["topic"]) == (minute_1, "Sport/Soccer")
    )
    assert (soccer["fanout_mean"], soccer["fanout_max"], soccer["messages"]) == (2.0, 3, 3)


def test_queue_minute_is_exactly_the_oracle(tables: Callable[[str], Table]) -> None:
    """Per subscriber queue: deliveries, bytes, commands naming it, failures, p50/p99 latency."""
    got = {(r.pop("minute"), r.pop("queue")): r for r in tables("queue_minute")}
    expected = ks.queue_minute(EMITTED)
    assert got.keys() == expected.keys()
    for key, row in got.items():
        assert row == pytest.approx(expected[key], rel=1e-9), key


def test_failures_are_commands_not_ok_by_reason(tables: Callable[[str], Table]) -> None:
    """Failures by reason code: COMMAND events with completion != ok, grouped by reason."""
    keys = ("minute", "queue", "identity_queue", "command", "completion", "reason")
    every = {tuple(r[k] for k in keys): r["commands"] for r in tables("command_minute")}
    failed = {tuple(r[k] for k in keys): r["failures"] for r in tables("failures_minute")}
    assert every == ks.command_minute(EMITTED)
    assert failed == {k: n for k, n in every.items() if k[4] != "ok"}
    # a warning is not ok either
    assert {k[5] for k in failed} == {3081, 3152, 3073, 3008, 3072, 3083}


def test_minute_totals_are_exactly_the_oracle(tables: Callable[[str], Table]) -> None:
    """A Publish naming two topics counts once in the totals."""
    got = {r.pop("minute"): r for r in tables("minute_totals")}
    expected = ks.minute_totals(EMITTED)
    for row in got.values():
        row.pop("latency_max_ms")
    assert got == expected
    assert got[datetime(2026, 1, 1, 10, 1)]["publications"] == 4  # E (2 topics), F, G, H


def test_a_refused_publish_is_no_traffic(tables: Callable[[str], Table]) -> None:
    """The wildcard Publish the broker refused (900 ms) is a failure, not a message: the
    minute's slowest message took 30 ms, and its topic carried nothing."""
    minute_1 = datetime(2026, 1, 1, 10, 1)
    totals = next(r for r in tables("minute_totals") if r["minute"] == minute_1)
    assert (totals["latency_max_ms"], totals["messages"]) == (30.0, 4)
    wildcard = next(r for r in tables("topic_minute") if r["topic"] == "Sport/#")
    assert (wildcard["messages"], wildcard["failed_publications"]) == (0, 1)
    assert wildcard["latency_max_ms"] is None


def test_an_aborted_transaction_is_not_counted(tables: Callable[[str], Table]) -> None:
    """read_committed: events of a transaction the service aborted never count."""
    assert "Aborted/Topic" not in {r["topic"] for r in tables("topic_minute")}


def test_a_value_that_is_not_an_event_is_skipped_and_counted(
    known_run: tuple[PipelineConfig, stream_job.RunSummary], tables: Callable[[str], Table]
) -> None:
    assert known_run[1].undecodable == 1
    known_commands = sum(e.kind == COMMAND for e in EMITTED)
    assert sum(r["commands"] for r in tables("minute_totals")) == known_commands == 14


def test_a_minute_is_written_once_the_watermark_passes_its_end(
    tables: Callable[[str], Table],
) -> None:
    """Append mode: the pusher's minute (10) is still open; minutes 0-2 are final."""
    minutes = sorted(r["minute"].minute for r in tables("minute_totals"))
    assert minutes == [0, 1, 2]
