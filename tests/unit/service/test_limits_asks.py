"""How the topic limits are asked of the cluster (issue 19), on a fake admin client and a
fake clock: a cluster that does not answer in time costs the batch one wait, not one per topic;
it is said once, the known limits kept and asked again later; a late answer is taken."""

from __future__ import annotations

import logging
import weakref
from typing import Any

import pytest

from mqkafka.kafka import clients, txrecovery
from mqkafka.kafka.clients import KafkaError, KafkaException, RepeatFilter
from mqkafka.service.limits import (
    BATCH_OVERHEAD,
    REQUEST_TIMEOUT,
    TopicLimits,
    assumed_topic_bytes,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Entry:
    def __init__(self, value: int) -> None:
        self.value = str(value)


class Answer:
    """A describe_configs future: answered at once, or only once ``admin.answering`` (a wait
    for it moves the fake clock on by the time waited)."""

    def __init__(self, admin: SlowAdmin, topic: str) -> None:
        self._admin, self._topic = admin, topic

    def result(self, timeout: float | None = None) -> dict[str, Entry]:
        if not self._admin.answering:
            self._admin.clock.now += timeout or 0.0
            raise TimeoutError
        return {"max.message.bytes": Entry(self._admin.limits.get(self._topic, 1_048_588))}


class SlowAdmin:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.answering = True
        self.asked = 0
        self.limits: dict[str, int] = {}

    def describe_configs(self, resources: list[Any], request_timeout: float) -> dict[Any, Any]:
        self.asked += 1
        return {resource: Answer(self, resource.name) for resource in resources}


TOPICS = [f"APP.Q{n}" for n in range(20)]


@pytest.fixture(autouse=True)
def kafka_reachable(monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = RepeatFilter()
    monkeypatch.setattr(clients, "_repeat_filter", lambda: fresh)
    monkeypatch.setattr(txrecovery, "_waiting", weakref.WeakSet())


def _limits() -> tuple[TopicLimits, SlowAdmin, Clock]:
    clock = Clock()
    admin = SlowAdmin(clock)
    limits = TopicLimits(admin, producer_max=1_000_000, clock=clock, timeout=5.0)
    for topic in TOPICS:
        limits.limit(topic)
    return limits, admin, clock


def _said(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records if "topic limits" in r.getMessage()]


class DownAdmin(SlowAdmin):
    def describe_configs(self, resources: list[Any], request_timeout: float) -> dict[Any, Any]:
        self.asked += 1
        down = KafkaException(KafkaError(KafkaError._TRANSPORT, "Connection refused"))
        return {resource: Failed(down) for resource in resources}


class Failed:
    def __init__(self, error: Exception) -> None:
        self._error = error

    def result(self, timeout: float | None = None) -> Any:
        raise self._error


def test_a_cluster_that_does_not_answer_costs_the_batch_one_timeout_not_one_per_topic() -> None:
    limits, admin, clock = _limits()
    admin.answering = False
    before = clock.now
    limits.expire()  # a transaction aborted
    limits.refresh_if_due()
    assert clock.now - before == 5.0
    assert limits.limit("APP.Q3") == 1_000_000  # what is known is kept


def test_an_unanswered_ask_is_said_once_and_asked_again_later(
    caplog: pytest.LogCaptureFixture,
) -> None:
    limits, admin, clock = _limits()
    admin.answering = False
    with caplog.at_level(logging.DEBUG, logger="mqkafka.service.limits"):
        limits.expire()
        limits.refresh_if_due()
        asked = admin.asked
        for _ in range(5):  # every abort of the outage: not asked again, not said again
            limits.expire()
            limits.refresh_if_due()
        assert admin.asked == asked
        clock.now += REQUEST_TIMEOUT  # no answer at all: given up, asked again after a while
        limits.refresh_if_due()
        admin.answering, admin.limits["APP.Q3"] = True, 20_000
        generation = limits.generation
        limits.refresh_if_due()
    assert admin.asked == asked + 1
    assert limits.limit("APP.Q3") == 20_000 - BATCH_OVERHEAD and limits.generation > generation
    said = [line for level, line in _said(caplog) if level >= logging.WARNING]
    assert len(said) == 1 and "no answer in 60s" in said[0], said  # a slow one: debug only


def test_a_refused_ask_is_said_once_as_a_warning_and_a_debug_line_while_kafka_is_away(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """While Kafka is away the loop says the outage; the limits' own line would be a second."""
    said = []
    for away in (False, True):
        caplog.clear()
        limits, _, clock = _limits()
        limits._admin = DownAdmin(clock)
        if away:
            clients._repeat_filter().unreachable_since = clock.now
        with caplog.at_level(logging.DEBUG, logger="mqkafka.service.limits"):
            for _ in range(3):
                limits.expire()
                limits.refresh_if_due()
                clock.now += limits.retry_seconds
        said.append([level for level, _ in _said(caplog)])
        assert limits._admin.asked == 3  # asked again after retry_seconds each time
    assert said == [[logging.WARNING], [logging.DEBUG]]


def test_a_refused_ask_at_an_outages_start_is_its_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The limits' line came 1 ms before librdkafka's "Disconnected" of the same outage (the
    restart test counted two lines): said, it is the process's line on Kafka being away."""
    limits, _, clock = _limits()
    limits._admin = DownAdmin(clock)
    with caplog.at_level(logging.DEBUG, logger="mqkafka.service.limits"):
        limits.expire()
        limits.refresh_if_due()
    assert [level for level, _ in _said(caplog)] == [logging.WARNING]
    disconnected = logging.LogRecord(
        "k", logging.ERROR, __file__, 1, "TxnCoordinator: Disconnected (after 8571ms)", None, None
    )
    assert not clients._repeat_filter().filter(disconnected)


def test_an_answer_that_comes_late_is_taken_before_a_later_batch_without_waiting() -> None:
    limits, admin, clock = _limits()
    admin.answering = False
    limits.expire()
    limits.refresh_if_due()  # waits 5 s, in vain
    admin.answering, admin.limits["APP.Q7"] = True, 30_000
    before = clock.now
    limits.refresh_if_due()
    assert limits.limit("APP.Q7") == 30_000 - BATCH_OVERHEAD and clock.now == before


@pytest.mark.parametrize(
    ("queue_config", "assumed"),
    [
        (None, clients.MAX_RECORD_BYTES),  # the shipped catalogue: queue topics' 5 MiB
        ({"max.message.bytes": "2097152"}, 2_097_152),  # an operator's catalogue
        ({}, 1_048_588),  # a catalogue that sets none: Kafka's default
    ],
)
def test_a_topic_the_cluster_does_not_describe_is_taken_at_the_catalogues_queue_size(
    queue_config: dict[str, str] | None, assumed: int
) -> None:
    """A queue topic whose config cannot be described was taken at 1 MB, so its 1-4 MB copies
    were dead-lettered while queue topics are made with 5 MiB."""
    assert assumed_topic_bytes(queue_config) == assumed
    clock = Clock()
    admin = SlowAdmin(clock)
    admin.answering = False
    limits = TopicLimits(
        admin, producer_max=8 << 20, clock=clock, assumed=assumed_topic_bytes(queue_config)
    )
    assert limits.limit("APP.UNDESCRIBED") == assumed - BATCH_OVERHEAD
    assert TopicLimits(admin, producer_max=1_000_000, clock=clock).limit("APP.X") == 1_000_000
