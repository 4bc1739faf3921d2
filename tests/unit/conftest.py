"""Unit tests start from a process that has not seen Kafka go away: xdist runs them in the
workers after the integration files, whose in-process clients (the Kafka restart tests') may
leave the process's "Kafka is away since" set, which the outage lines read, and a line saying
Kafka is away within the last 30 s, which keeps the next such line to debug (the Faust runtime's
outage unit tests say it too)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mqkafka.kafka import clients


@pytest.fixture(autouse=True)
def kafka_not_seen_away() -> Iterator[None]:
    limiter = clients._repeat_filter()
    forget(limiter)
    yield
    forget(limiter)


def forget(limiter: clients.RepeatFilter) -> None:
    limiter.unreachable_since = None
    limiter._last.clear()
    limiter._held.clear()
