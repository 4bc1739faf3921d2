"""Unit tests start from a process that has not seen Kafka go away: xdist runs them in the
workers after the integration files, whose in-process clients (the Kafka restart tests') may
leave the process's "Kafka is away since" set, which the outage lines read."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mqkafka.kafka import clients


@pytest.fixture(autouse=True)
def kafka_not_seen_away() -> Iterator[None]:
    limiter = clients._repeat_filter()
    limiter.unreachable_since = None
    yield
    limiter.unreachable_since = None
