"""How the compacted-topic reader asks Kafka for its end offsets, on fake admin clients: a
time in all, said once; a new admin client after an outage; a leader being chosen asked on;
an answer waited for a bounded time."""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import Any

import pytest

from mqkafka.kafka import clients, compacted
from mqkafka.kafka.clients import KafkaError, KafkaException, TopicPartition


class DownAdmin:
    def __init__(self) -> None:
        self.asked = 0

    def list_offsets(self, request: Any, **kw: Any) -> Any:
        self.asked += 1
        raise KafkaException(KafkaError(KafkaError._TRANSPORT, "Connection refused"))


def test_end_offsets_gives_up_after_its_time_and_says_the_wait_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """It asked 20 x 10 s, silently; now a time in all, the wait said once per 30 s."""
    admin = DownAdmin()
    monkeypatch.setattr(clients, "admin", lambda config: admin)
    monkeypatch.setattr(compacted, "SAY_AFTER", 0.0)
    reader = compacted.CompactedReader.__new__(compacted.CompactedReader)
    reader.topics, reader.partitions = ("state",), [("state", 0)]
    reader._admin, reader._config = admin, None  # type: ignore[assignment]
    reader._fresh_admin, reader._outages = False, clients.outages()
    with (
        caplog.at_level(logging.DEBUG, logger="mqkafka.kafka.compacted"),
        pytest.raises(KafkaException),
    ):
        reader.end_offsets(timeout=1.0)
    assert admin.asked > 1
    said = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1 and "no end offsets of state" in said[0].getMessage()


class UpAdmin:
    def list_offsets(self, request: Any, **kw: Any) -> dict[Any, Future[Any]]:
        answers = {}
        for tp in request:
            answer: Future[Any] = Future()
            answer.set_result(TopicPartition(tp.topic, tp.partition, 5))
            answers[tp] = answer
        return answers


def test_end_offsets_ask_through_a_new_admin_client_after_an_outage(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An admin client from before a broker's restart is answered FENCED_LEADER_EPOCH."""
    made: list[Any] = []

    def fresh_admin(config: object) -> UpAdmin:
        admin = UpAdmin()
        made.append(admin)
        return admin

    monkeypatch.setattr(clients, "admin", fresh_admin)
    reader = compacted.CompactedReader.__new__(compacted.CompactedReader)
    reader.topics, reader.partitions = ("state",), [("state", 0)]
    reader._admin, reader._config, reader._fresh_admin = UpAdmin(), None, False  # type: ignore[assignment]
    reader._outages = clients.outages()
    assert reader.end_offsets() == {("state", 0): 5} and not made  # no outage: the same one
    limiter = clients._repeat_filter()
    refused = "Connect to ipv4#127.0.0.1:9092 failed: Connection refused"
    limiter.filter(logging.LogRecord("k", logging.ERROR, __file__, 1, refused, None, None))
    reader.end_offsets()  # while Kafka is away
    limiter.unreachable_since = None  # and back
    reader.end_offsets()
    reader.end_offsets()
    assert len(made) == 2  # a new one while away, and one at the first call after
    limiter.filter(logging.LogRecord("k", logging.ERROR, __file__, 1, refused, None, None))
    limiter.unreachable_since = None  # an outage this reader did not ask through
    reader.end_offsets()
    assert len(made) == 3


class ElectingAdmin(UpAdmin):
    """A topic just made: its leader is chosen after ``refusals`` answers."""

    def __init__(self, refusals: int, code: int) -> None:
        self.refusals, self.code, self.asked = refusals, code, 0

    def list_offsets(self, request: Any, **kw: Any) -> dict[Any, Future[Any]]:
        self.asked += 1
        if self.asked <= self.refusals:
            raise KafkaException(KafkaError(self.code))
        return super().list_offsets(request, **kw)


@pytest.mark.parametrize(
    ("code", "answered"),
    [
        (KafkaError.NOT_LEADER_FOR_PARTITION, True),  # a leader being chosen: asked on
        (KafkaError.LEADER_NOT_AVAILABLE, True),
        (KafkaError._TRANSPORT, False),  # Kafka away: the attempts count
    ],
)
def test_end_offsets_attempts_do_not_count_a_leader_being_chosen(
    monkeypatch: pytest.MonkeyPatch, code: int, answered: bool
) -> None:
    """An MQCONN to a namespace whose state topics were just made was 2059 under load: its
    three attempts were spent in 0.15 s on NOT_LEADER_FOR_PARTITION (a name the away list
    did not know)."""
    admin = ElectingAdmin(refusals=6, code=code)
    monkeypatch.setattr(clients, "admin", lambda config: admin)
    reader = compacted.CompactedReader.__new__(compacted.CompactedReader)
    reader.topics, reader.partitions = ("state",), [("state", 0)]
    reader._admin, reader._config, reader._fresh_admin = admin, None, False  # type: ignore[assignment]
    reader._outages = clients.outages()
    if answered:
        assert reader.end_offsets(attempts=3, timeout=10.0) == {("state", 0): 5}
        assert clients.is_away(KafkaError(code))
    else:
        with pytest.raises(KafkaException):
            reader.end_offsets(attempts=3, timeout=10.0)
        assert admin.asked == 3


class SilentAdmin:
    """An admin client whose list_offsets is never answered."""

    def __init__(self) -> None:
        self.asked = 0

    def list_offsets(self, request: Any, **kw: Any) -> dict[Any, Future[Any]]:
        self.asked += 1
        return {tp: Future() for tp in request}


def test_end_offsets_wait_a_bounded_time_for_an_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clean-clone run hung in an MQCLOSE: its barrier waited for ever on a list_offsets
    future no one answered."""
    admin = SilentAdmin()
    monkeypatch.setattr(clients, "admin", lambda config: admin)
    monkeypatch.setattr(compacted, "ANSWER_MARGIN", 0.0)
    monkeypatch.setattr(compacted, "REQUEST_WAIT", 1.0)
    reader = compacted.CompactedReader.__new__(compacted.CompactedReader)
    reader.topics, reader.partitions = ("state",), [("state", 0)]
    reader._admin, reader._config, reader._fresh_admin = admin, None, False  # type: ignore[assignment]
    reader._outages = clients.outages()
    with pytest.raises(KafkaException) as raised:
        reader.end_offsets(attempts=2, timeout=30.0)
    assert raised.value.args[0].code() == KafkaError._TIMED_OUT and admin.asked == 2
