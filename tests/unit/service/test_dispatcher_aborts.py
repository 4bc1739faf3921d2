"""What the dispatcher says of an aborted transaction: a warning when it is news, a debug line
while Kafka is away (the transactional loop says the outage: one line per problem) or when a
rebalance aborted it."""

from __future__ import annotations

import logging
import time
import weakref

import pytest

from mqkafka.kafka import clients, txrecovery
from mqkafka.kafka.clients import RepeatFilter
from tests.unit.service.test_dispatcher import dispatcher, register


@pytest.fixture(autouse=True)
def kafka_reachable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process-wide record of Kafka's absence, fresh for each test."""
    fresh = RepeatFilter()
    monkeypatch.setattr(clients, "_repeat_filter", lambda: fresh)
    monkeypatch.setattr(txrecovery, "_waiting", weakref.WeakSet())


def _abort_lines(caplog: pytest.LogCaptureFixture, *, expected: bool = False) -> list[int]:
    d = dispatcher(plans=False)
    d.handle([register("APP.A", "Sport/#")])
    with caplog.at_level(logging.DEBUG, logger="mqkafka.service.dispatcher"):
        d.aborted(expected=expected)
    return [r.levelno for r in caplog.records if r.getMessage().startswith("transaction aborted")]


def test_an_abort_with_kafka_there_is_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    assert _abort_lines(caplog) == [logging.WARNING]


def test_an_abort_while_kafka_is_away_is_a_debug_line(caplog: pytest.LogCaptureFixture) -> None:
    clients._repeat_filter().unreachable_since = time.monotonic()
    assert _abort_lines(caplog) == [logging.DEBUG]


def test_an_abort_for_a_rebalance_is_a_debug_line(caplog: pytest.LogCaptureFixture) -> None:
    """The Faust runtime aborts open transactions at every rebalance (faust.rebalance)."""
    assert _abort_lines(caplog, expected=True) == [logging.DEBUG]
