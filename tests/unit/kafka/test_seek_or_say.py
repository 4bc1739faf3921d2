"""A failed seek is said at the level it deserves: a partition not fetched yet (_STATE) needs
no seek (its fetch starts from the committed offset), any other failure is a warning."""

from __future__ import annotations

import logging

import pytest

from mqkafka.kafka import clients
from mqkafka.kafka.clients import KafkaError, KafkaException, TopicPartition

log = logging.getLogger("test.seek")


class _Refusing:
    """A consumer whose seek fails with one error code (no Kafka needed to decide a level)."""

    def __init__(self, code: int | None) -> None:
        self.code = code
        self.sought: list[TopicPartition] = []

    def seek(self, tp: TopicPartition) -> None:
        self.sought.append(tp)
        if self.code is not None:
            raise KafkaException(KafkaError(self.code))


@pytest.mark.parametrize(
    ("code", "levels"),
    [
        (None, []),
        (KafkaError._STATE, [logging.DEBUG]),
        (KafkaError._UNKNOWN_PARTITION, [logging.WARNING]),
        (KafkaError._INVALID_ARG, [logging.WARNING]),
    ],
)
def test_a_seek_failure_is_said_at_its_level(
    code: int | None, levels: list[int], caplog: pytest.LogCaptureFixture
) -> None:
    consumer = _Refusing(code)
    tp = TopicPartition("mqk-q", 3, 42)
    with caplog.at_level(logging.DEBUG, logger="test.seek"):
        clients.seek_or_say(consumer, tp, log, "seek after abort")
    assert [r.levelno for r in caplog.records] == levels
    assert [(t.topic, t.partition, t.offset) for t in consumer.sought] == [("mqk-q", 3, 42)]
    assert all("seek after abort failed for mqk-q[3]" in r.getMessage() for r in caplog.records)
