"""Kafka away under a record of ``mqk serve --runtime faust``, without Kafka: the worker waits
it out as the default loop does (the open transactions aborted, the state effects undone,
every record since the last commit handled again once Kafka answers, the outage said) and
goes on; a bug or a fenced producer still stops it. The service's Faust app, producer and
dispatcher are stand-ins that record what the worker did to them."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiokafka import errors  # type: ignore[import-untyped]

from mqkafka.faust import brokerrun
from mqkafka.faust.brokerrun import FaustBrokerService
from mqkafka.faust.outage import OutageLines, is_away
from mqkafka.kafka.clients import KafkaError, KafkaException

LEADERS = "Failed to query partition leaders: Local: Timed out"


def _timed_out() -> KafkaException:
    """What the clean-clone run met: the dispatcher's end offsets while Kafka restarted."""
    return KafkaException(KafkaError(KafkaError._TIMED_OUT, LEADERS))


@dataclass(frozen=True)
class _Message:
    offset: int
    topic: str = "ns.SYSTEM.BROKER.DEFAULT.STREAM"
    partition: int = 0
    key: bytes | None = None
    value: bytes | None = b"publication"
    headers: Any = None
    timestamp: float = 0.0


@dataclass(eq=False)
class _Event:
    message: _Message


class _Stream:
    """Faust's stream as the agent reads it: each record its current event in turn."""

    def __init__(self, offsets: Iterable[int]) -> None:
        self.events = [_Event(_Message(offset)) for offset in offsets]
        self.current_event: _Event | None = None

    async def __aiter__(self) -> AsyncIterator[Any]:
        for event in self.events:
            self.current_event = event
            yield event.message.value


@dataclass
class _Dispatcher:
    """The dispatcher: ``failures`` are raised by the handling of a record's offset, in turn;
    ``pending`` are its state effects since the last abort (by the record they came from)."""

    failures: dict[int, list[BaseException]]
    pending: list[int] = field(default_factory=list)
    aborts: list[bool] = field(default_factory=list)  # whether each was said at debug

    def before_batch(self) -> None:
        pass

    def handle(self, records: list[Any]) -> list[tuple[str, bytes, None, None, int]]:
        offset = records[0].offset()
        if self.failures.get(offset):
            raise self.failures[offset].pop(0)
        self.pending.append(offset)
        return [("ns.APP.ORDERS", b"order-%d" % offset, None, None, -1)]

    def aborted(self, *, expected: bool = False) -> None:
        self.aborts.append(expected)
        self.pending.clear()


@dataclass
class _Producer:
    """The producer of the open transactions: what they hold, and what was aborted."""

    sent: list[bytes] = field(default_factory=list)
    aborted: int = 0
    _transaction_producers: dict[str, Any] = field(default_factory=lambda: {"app-1-0": None})

    async def abort_open(self) -> int:
        self.aborted += 1
        self.sent.clear()
        return 1

    async def send_for(self, source: Any, topic: str, key: Any, value: bytes, *_: Any) -> None:
        self.sent.append(value)


class _App:
    def __init__(self, producer: _Producer) -> None:
        self.producer = producer
        self.consumer = self
        self.transactions = producer


@dataclass
class _Worker:
    service: FaustBrokerService
    dispatcher: _Dispatcher
    producer: _Producer
    stops: list[str]  # the lines it would have stopped with


def _worker(failures: dict[int, list[BaseException]]) -> _Worker:
    """A service with the stand-ins, its stop recorded instead of signalled."""
    worker = _Worker(
        FaustBrokerService.__new__(FaustBrokerService), _Dispatcher(failures), _Producer(), []
    )
    service = worker.service
    service.dispatcher = worker.dispatcher  # type: ignore[assignment]
    service.app = _App(worker.producer)  # type: ignore[assignment]
    service.outage = OutageLines()
    service._fresh = True
    service._since_commit = []
    service._refusals = {}
    service._stop_line = None
    service._stop_for = worker.stops.append  # type: ignore[method-assign,assignment]
    return worker


@pytest.fixture(autouse=True)
def no_pause(monkeypatch: pytest.MonkeyPatch) -> list[Iterable[str]]:
    started: list[Iterable[str]] = []

    async def start_transactions(producer: Any, ids: Iterable[str], app: Any) -> None:
        started.append(sorted(ids))

    monkeypatch.setattr(brokerrun, "backoff", lambda tries: 0.0, raising=False)
    monkeypatch.setattr(brokerrun, "start_transactions", start_transactions, raising=False)
    return started


def _serve(worker: _Worker, offsets: Iterable[int]) -> None:
    asyncio.run(worker.service._serve(_Stream(offsets)))


@pytest.mark.parametrize(
    "away",
    [
        [_timed_out()],  # the dispatcher's end offsets
        [KafkaException(KafkaError(KafkaError.NOT_LEADER_FOR_PARTITION))],  # a leader chosen
        [errors.KafkaConnectionError("Unable to bootstrap")],  # a send's
        [_timed_out(), errors.KafkaTimeoutError(), _timed_out()],  # away for three tries
    ],
)
def test_a_record_that_meets_kafka_away_is_handled_again_and_the_worker_goes_on(
    away: list[BaseException],
    no_pause: list[Iterable[str]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    worker = _worker({2: list(away)})
    with caplog.at_level(logging.DEBUG):
        _serve(worker, range(4))
    assert worker.stops == []
    producer, dispatcher = worker.producer, worker.dispatcher
    # records 0-2 since the last commit handled again after each abort: each output once
    assert producer.sent == [b"order-0", b"order-1", b"order-2", b"order-3"]
    assert dispatcher.pending == [0, 1, 2, 3]
    assert producer.aborted == len(away)
    assert no_pause == [["app-1-0"]] * len(away)  # begun again, each time
    assert dispatcher.aborts == [True] * len(away)  # said by the outage's line, not an abort's
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Kafka is away")]
    assert len(said) == 1, said  # once per 30 s
    assert worker.service.outage.away_since is not None  # the next commit says Kafka is back


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (ValueError("a bug"), "processing ns.SYSTEM.BROKER.DEFAULT.STREAM [0] offset 1 failed"),
        (errors.ProducerFenced(), "a producer of this worker was fenced"),
        (KafkaException(KafkaError(KafkaError._FATAL, "fatal", fatal=True)), "processing"),
    ],
)
def test_a_bug_or_a_fenced_producer_still_stops_the_worker(error: BaseException, line: str) -> None:
    worker = _worker({1: [error]})
    _serve(worker, range(2))
    assert len(worker.stops) == 1 and worker.stops[0].startswith(line), worker.stops
    assert worker.producer.aborted == 0


def test_kafka_away_past_the_give_up_stops_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(brokerrun, "AWAY_GIVE_UP", 0.0)
    worker = _worker({0: [_timed_out(), _timed_out()]})
    _serve(worker, range(1))
    assert len(worker.stops) == 1 and "failed (KafkaException)" in worker.stops[0], worker.stops


def test_a_redo_that_meets_kafka_away_waits_it_out() -> None:
    """A send failed (the commit's redo) and Kafka is found away while handling again."""
    worker = _worker({})
    _serve(worker, range(2))
    worker.dispatcher.failures[1] = [_timed_out()]
    asyncio.run(worker.service._redo([]))
    assert worker.producer.sent == [b"order-0", b"order-1"]
    assert worker.dispatcher.pending == [0, 1]
    assert worker.stops == []


@pytest.mark.parametrize(
    ("error", "away"),
    [
        (_timed_out(), True),
        (KafkaException(KafkaError(KafkaError._TRANSPORT)), True),
        (KafkaException(KafkaError(KafkaError.LEADER_NOT_AVAILABLE)), True),
        (KafkaException(KafkaError(KafkaError._TIMED_OUT, "fenced", fatal=True)), False),
        (KafkaException(KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED)), False),
        (errors.KafkaConnectionError(), True),
        (errors.NotLeaderForPartitionError(), True),
        (errors.RequestTimedOutError(), True),
        (errors.KafkaTimeoutError(), True),
        (errors.UnknownTopicOrPartitionError(), False),  # deleted under the worker
        (errors.MessageSizeTooLargeError(), False),
        (errors.ProducerFenced(), False),
        (ValueError("a bug"), False),
        (None, False),
    ],
)
def test_what_says_kafka_is_away(error: BaseException | None, away: bool) -> None:
    assert is_away(error) is away


def test_kafka_away_as_the_cause_is_kafka_away() -> None:
    try:
        try:
            raise errors.KafkaConnectionError("Connect call failed")
        except errors.KafkaConnectionError as inner:
            raise RuntimeError("send failed") from inner
    except RuntimeError as outer:
        assert is_away(outer)
