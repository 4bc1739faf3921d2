"""A transaction's producer that cannot start (Kafka away) is stopped, not left to the
garbage collector: Faust's ``begin_transaction`` kept none and closed none, and asyncio said
"Unclosed AIOKafkaProducer" once a try, a second apart, in a Kafka-restart run's outage."""

from __future__ import annotations

import asyncio
from typing import Any

from aiokafka.errors import KafkaConnectionError  # type: ignore[import-untyped]

from mqkafka.faust import rebalance


class Txn:
    def __init__(self) -> None:
        self.open = False

    def is_in_transaction(self) -> bool:
        return self.open

    def is_fatal_error(self) -> bool:
        return False


class Made:
    """A transactional AIOKafkaProducer as far as ensure_begun and Faust use it."""

    def __init__(self, away: bool) -> None:
        self.away, self.stopped = away, False
        self._txn_manager = Txn()

    async def start(self) -> None:
        if self.away:
            raise KafkaConnectionError("Unable to bootstrap from [('127.0.0.1', 1)]")

    async def stop(self) -> None:
        self.stopped = True


class FaustProducer:
    """Faust's producer: begin_transaction as Faust's (a producer kept only once started)."""

    def __init__(self, away_tries: int) -> None:
        self.away_tries = away_tries
        self.made: list[Made] = []
        self._transaction_producers: dict[str, Made] = {}
        self._trn_locks: dict[str, asyncio.Lock] = {}

    def _new_producer(self, transactional_id: str) -> Made:
        made = Made(away=len(self.made) < self.away_tries)
        self.made.append(made)
        return made

    async def begin_transaction(self, transactional_id: str) -> None:
        try:  # as Faust: a new one, kept only once started; a failure is a warning
            started = self._transaction_producers.get(transactional_id)
            if started is None:
                started = self._new_producer(transactional_id)
                await started.start()
                self._transaction_producers[transactional_id] = started
            started._txn_manager.open = True
        except KafkaConnectionError:
            pass


class App:
    should_stop = False


def test_a_producer_that_cannot_start_is_stopped_and_the_next_try_begins(
    monkeypatch: Any,
) -> None:
    monkeypatch.setattr(rebalance, "START_BACKOFF", 0.0)
    producer = FaustProducer(away_tries=3)
    begun = asyncio.run(rebalance.ensure_begun(producer, "t-0", App(), 5))
    assert begun
    assert [m.stopped for m in producer.made] == [True, True, True, False]
    assert producer._transaction_producers == {"t-0": producer.made[3]}
    assert "t-0" in producer._trn_locks


def test_kafka_away_for_every_try_leaves_no_producer_unstopped(monkeypatch: Any) -> None:
    monkeypatch.setattr(rebalance, "START_BACKOFF", 0.0)
    producer = FaustProducer(away_tries=10)
    assert not asyncio.run(rebalance.ensure_begun(producer, "t-1", App(), 4))
    assert len(producer.made) == 4 and all(m.stopped for m in producer.made)
    assert producer._transaction_producers == {}
