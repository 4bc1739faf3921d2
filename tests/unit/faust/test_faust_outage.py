"""The Faust runtime's outage lines and what ends it, without Kafka."""

from __future__ import annotations

import logging

import pytest
from aiokafka import errors  # type: ignore[import-untyped]
from faust.exceptions import ProducerSendError

from mqkafka.faust.outage import OutageLines, is_fenced, is_incurable


def record(name: str, message: str, level: int = logging.ERROR) -> logging.LogRecord:
    return logging.LogRecord(name, level, __file__, 1, message, (), None)


def test_an_outage_is_one_line_per_interval_and_its_end_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    lines = OutageLines(interval=3600.0)
    with caplog.at_level(logging.DEBUG):
        assert lines.filter(record("aiokafka.conn", "all fine"))
        away = record("aiokafka.client", "Unable connect to node with id 1: Connect call failed")
        assert not lines.filter(away)  # said instead in the process's away line
        assert not lines.filter(record("faust.transport.consumer", "Heartbeat failed"))
        assert not lines.filter(record("aiokafka.conn", "Connect call failed again"))
        assert not lines.filter(record("mqkafka.faust.exactlyonce", "commit waits"))
        assert lines.filter(record("mqkafka.service.app", "the service's own line"))
        lines.away_since = (lines.away_since or 0.0) - 10.0  # away for 10 s
        lines.heard_from_kafka(logging.getLogger("test"))
        lines.heard_from_kafka(logging.getLogger("test"))  # nothing more to say
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2 and said[0].startswith("Kafka is away (Unable connect"), said
    assert said[1].startswith("Kafka is back after 10s"), said
    assert lines.filter(record("aiokafka.conn", "all fine again"))


def test_a_moment_away_is_no_outage_to_announce(caplog: pytest.LogCaptureFixture) -> None:
    """Its return is said at debug (its start was said at once, by the process's away line:
    that one is not what this test reads)."""
    lines = OutageLines()
    lines.filter(record("aiokafka.conn", "Connection refused"))
    with caplog.at_level(logging.DEBUG):
        lines.heard_from_kafka(logging.getLogger("test"))
    back = [r for r in caplog.records if r.name == "test"]
    assert [(r.levelno, r.getMessage()) for r in back] == [
        (logging.DEBUG, "Kafka is back after 0s: serving again")
    ]


def test_a_lost_coordinator_is_no_line_of_its_own() -> None:
    """A broker stopping: aiokafka's first lines say its coordinator went, before any says
    Kafka cannot be reached; either it is found again or the outage is said."""
    lines = OutageLines()
    for message in (
        "Heartbeat failed for group g: coordinator (node 1) is either not started or not valid",
        "Marking the coordinator dead (node 1)for group g.",
    ):
        assert not lines.filter(record("aiokafka.consumer.group_coordinator", message))
    assert lines.away_since is None
    assert lines.filter(record("aiokafka.consumer.group_coordinator", "Joined group 'g'"))


def test_a_send_aiokafka_retries_is_no_line_of_its_own() -> None:
    """A broker stopping answers a send NotEnoughReplicas, which aiokafka retries; the
    default loop's librdkafka says nothing of its retries either. One that leaves Kafka's
    leader unknown is Kafka away, said in the away line."""
    lines = OutageLines()
    retried = (
        "Got error produce response on topic-partition TopicPartition(topic='ns.mqk-activity', "
        "partition=3), retrying. Error: <class 'aiokafka.errors.NotEnoughReplicasError'>"
    )
    assert not lines.filter(record("aiokafka.producer.sender", retried, logging.WARNING))
    assert lines.away_since is None
    away = retried.replace("NotEnoughReplicasError", "NotLeaderForPartitionError")
    assert not lines.filter(record("aiokafka.producer.sender", away, logging.WARNING))
    assert lines.away_since is not None


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("away_at", "levels"),
    [
        # a broker killed (away 20 s), back, then stopped cleanly a second later (away 25 s)
        ([0.0, 21.0], [logging.WARNING, logging.WARNING]),
        # one outage seen late: a line of it after its return was said
        ([0.0, 5.0], [logging.WARNING, logging.DEBUG]),
    ],
)
def test_each_outage_is_one_return_said(
    away_at: list[float],
    levels: list[int],
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    lines = OutageLines(clock=clock)
    with caplog.at_level(logging.DEBUG):
        lines.away_since = 1000.0 + away_at[0]
        clock.now = 1020.0
        lines.heard_from_kafka(logging.getLogger("test"))
        lines.away_since = 1000.0 + away_at[1]
        clock.now = 1046.0
        lines.heard_from_kafka(logging.getLogger("test"))
    back = [r for r in caplog.records if r.getMessage().startswith("Kafka is back")]
    assert [r.levelno for r in back] == levels


FENCED = [
    (errors.ProducerFenced(), True),
    (errors.InvalidProducerEpoch(), True),
    (ProducerSendError("a send failed: ProducerFenced()"), True),
    (errors.KafkaTimeoutError(), False),
    (None, False),
]


@pytest.mark.parametrize(("error", "fenced"), FENCED)
def test_fenced(error: BaseException | None, fenced: bool) -> None:
    assert is_fenced(error) is fenced


def test_a_cause_that_was_fenced_is_fenced() -> None:
    try:
        try:
            raise errors.ProducerFenced()
        except errors.ProducerFenced as inner:
            raise RuntimeError("commit failed") from inner
    except RuntimeError as outer:
        assert is_fenced(outer)


@pytest.mark.parametrize(
    ("error", "incurable"),
    [
        (errors.MessageSizeTooLargeError(), True),
        (errors.UnknownError(), True),  # INVALID_RECORD, as aiokafka reports it
        (errors.KafkaTimeoutError(), False),
        (errors.NotLeaderForPartitionError(), False),
    ],
)
def test_incurable(error: BaseException, incurable: bool) -> None:
    assert is_incurable(error) is incurable
