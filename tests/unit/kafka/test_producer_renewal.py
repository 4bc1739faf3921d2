"""A new transactional producer is not fenced by the one it replaced (txrecovery's
``_renew_producer``), on fake clients over a model of the transaction coordinator.

An init_transactions that times out (Kafka away) goes on inside librdkafka: its
InitProducerId is tried again until Kafka answers, and each one the coordinator answers bumps
the transactional id's epoch, fencing whoever held it. Replaced and let go (its destroy on a
thread of its own, not waited for), the old producer's retry landed just after its
successor's init: the successor was fenced 70 ms after it began and, younger than a
transaction timeout, that ended the service. The old one is now closed before the new one
inits; one whose close does not return in time may still fence it, and that is cured once."""

from __future__ import annotations

import threading
import weakref
from concurrent.futures import wait
from typing import Any, cast

import pytest

from mqkafka.kafka import clients, txrecovery
from mqkafka.kafka.clients import KafkaError, KafkaException, RepeatFilter
from tests.unit.kafka.test_txrecovery import FakeConsumer, Loop

FENCED = KafkaError(KafkaError._FENCED, "Producer fenced by newer instance", fatal=True)


class Coordinator:
    """One transactional id's coordinator. While Kafka is away an init times out on the
    caller's side and stays pending in its client; once Kafka is back, the pending ones of
    clients not closed land after the init that is asked then (their retry backoff)."""

    def __init__(self) -> None:
        self.away = False
        self.holder: Producer | None = None  # the producer holding the current epoch
        self.pending: list[Producer] = []

    def init(self, producer: Producer) -> None:
        if self.away:
            self.pending.append(producer)
            raise KafkaException(
                KafkaError(KafkaError._TIMED_OUT, "retry call to resume", retriable=True)
            )
        self.holder = producer
        late, self.pending = self.pending, []
        for retried in late:
            if not retried.closed and retried is not producer:
                self.holder = retried  # a bumped epoch: the one above is fenced


class Producer:
    def __init__(self, coordinator: Coordinator, closes: threading.Event) -> None:
        self.coordinator, self.closes, self.closed = coordinator, closes, False

    def init_transactions(self, timeout: float) -> None:
        self.coordinator.init(self)

    def purge(self, *_: bool) -> None:
        pass

    def poll(self, timeout: float) -> int:
        return 0

    def close(self) -> bool:
        self.closes.wait()  # a close that may wait for a broker
        self.closed = True
        return True

    @property
    def fenced(self) -> bool:
        return self.coordinator.holder is not self


@pytest.fixture(autouse=True)
def kafka_reachable(monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = RepeatFilter()
    monkeypatch.setattr(clients, "_repeat_filter", lambda: fresh)
    monkeypatch.setattr(txrecovery, "_waiting", weakref.WeakSet())


def _outage(monkeypatch: pytest.MonkeyPatch, closes: threading.Event) -> tuple[Loop, Coordinator]:
    """A loop whose transaction failed in an outage (a new producer is due), the first try
    of its recovery made while Kafka is still away: that producer's init timed out."""
    coordinator = Coordinator()
    monkeypatch.setattr(clients, "producer", lambda *_a, **_k: Producer(coordinator, closes))
    loop = Loop(FakeConsumer({("control", 0): 7}, []))
    loop._client = cast(Any, None)
    loop.producer = Producer(coordinator, closes)
    coordinator.init(loop.producer)
    loop._stop.set()  # no pauses
    coordinator.away, loop._renew = True, True
    assert not loop._recovered()  # its init timed out, pending inside its client
    coordinator.away = False
    return loop, coordinator


def test_the_producer_replaced_is_closed_before_its_successor_inits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    closes = threading.Event()
    closes.set()  # closes return at once, as with a broker up
    loop, coordinator = _outage(monkeypatch, closes)
    timed_out = loop.producer
    assert loop._recovered()  # Kafka back: another new producer inits
    assert coordinator.holder is loop.producer  # not fenced by the one whose init timed out
    assert timed_out.closed and not loop._init_raced


def test_a_producer_fenced_by_a_predecessor_not_closed_in_time_is_renewed_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(txrecovery, "CLOSE_WAIT", 0.05)
    closes = threading.Event()  # closes do not return
    loop, _ = _outage(monkeypatch, closes)
    assert loop._recovered()
    assert loop._init_raced and loop.producer.fenced  # the late init of the one before
    assert loop._retry_after(KafkaException(FENCED)) and loop._renew  # not the loop's end
    closes.set()
    wait(loop._retiring, 10)  # the closes return
    assert loop._recovered()
    assert not loop.producer.fenced and not loop._init_raced
    assert not loop._retry_after(KafkaException(FENCED))  # fenced again: another worker's
