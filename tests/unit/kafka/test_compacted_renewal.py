"""The compacted reader's consumer replaced when it reads nothing while Kafka answers the end
offsets (librdkafka 2.16 can leave a client with no broker to ask after an outage, for good:
the service's state replica said "could not read mqk-subscriptions ... to its end in time"
through outages 7-9 of ``devsupport/lanes_restart_stress.py``), on fake clients: replaced
once, at the positions read, so no record is applied twice or missed; one that reads again in
time, or while Kafka does not answer, is kept. The real outage:
tests/integration/service/test_kafka_restart.py."""

from __future__ import annotations

import time
from concurrent.futures import Future
from types import SimpleNamespace
from typing import Any

import pytest

from mqkafka.kafka import clients, compacted, readstall
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import KafkaError, KafkaException, TopicPartition

TOPIC = "mqk-subscriptions"
# Each partition's last stable offset as the reader asks: partition 1 is at its end then, and
# records arrive on it during the catch-up (read and applied, though no partition waited on).
ENDS = {0: 6, 1: 0}
Applied = list[tuple[int, bytes]]


class Record:
    def __init__(self, partition: int, offset: int) -> None:
        self._partition, self.offset = partition, offset

    def error(self) -> None:
        return None

    def topic(self) -> str:
        return TOPIC

    def partition(self) -> int:
        return self._partition

    def key(self) -> bytes:
        return b"k%d" % self.offset

    def value(self) -> bytes:
        return b"v"

    def timestamp(self) -> tuple[int, int]:
        return (1, 0)


class Admin:
    """Answers the end offsets (Kafka answering), or does not."""

    def __init__(self, answers: bool = True) -> None:
        self.answers = answers

    def list_topics(self, timeout: float) -> Any:
        found = SimpleNamespace(error=None, partitions=dict.fromkeys(ENDS))
        return SimpleNamespace(topics={TOPIC: found})

    def list_offsets(self, request: Any, **_: Any) -> dict[Any, Future[Any]]:
        if not self.answers:
            raise KafkaException(KafkaError(KafkaError._TRANSPORT, "no broker"))
        answers: dict[Any, Future[Any]] = {}
        for tp in request:
            done: Future[Any] = Future()
            done.set_result(SimpleNamespace(offset=ENDS[tp.partition]))
            answers[tp] = done
        return answers


class Consumer:
    """Hands out each partition's records from where it was assigned, two at a time, up to
    ``until`` (then nothing, for good: a stuck client), after ``silent`` polls of nothing."""

    def __init__(self, until: dict[int, int], silent: int = 0) -> None:
        self.until, self.silent = until, silent
        self.at: dict[int, int] = {}
        self.assigned: dict[int, int] = {}
        self.closed = False

    def assign(self, tps: list[TopicPartition]) -> None:
        self.assigned = {tp.partition: tp.offset for tp in tps}
        self.at = {tp.partition: max(tp.offset, 0) for tp in tps}

    def consume(self, most: int, timeout: float) -> list[Record]:
        if self.silent > 0:
            self.silent -= 1
            return []
        got: list[Record] = []
        for p, at in self.at.items():
            got += [Record(p, o) for o in range(at, min(at + 2, self.until[p]))]
        for record in got:
            self.at[record.partition()] = record.offset + 1
        return got

    def position(self, tps: list[TopicPartition]) -> list[TopicPartition]:
        return [TopicPartition(tp.topic, tp.partition, self.at[tp.partition]) for tp in tps]

    def close(self) -> None:
        self.closed = True


def everything() -> Applied:
    return [(0, b"k%d" % o) for o in range(ENDS[0])] + [(1, b"k0"), (1, b"k1")]


def apply_to(applied: Applied) -> compacted.ApplyRecord:
    def apply(_topic: str, partition: int, key: bytes, _value: bytes | None, _ts: int) -> None:
        applied.append((partition, key))

    return apply


def reader(monkeypatch: pytest.MonkeyPatch, made: list[Consumer], admin: Admin) -> Any:
    """A reader whose clients.consumer hands out ``made`` in turn."""
    handed = iter(made)
    monkeypatch.setattr(clients, "consumer", lambda *_a, **_k: next(handed))
    monkeypatch.setattr(clients, "admin", lambda *_a, **_k: admin)  # asked afresh: the same
    return compacted.CompactedReader(ClientConfig("127.0.0.1:9092"), [TOPIC], admin=admin)


def test_a_reader_stuck_while_kafka_answers_is_replaced_once_at_its_positions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(readstall, "REPLACE_AFTER", 0.2)
    stuck, fresh = Consumer({0: 3, 1: 2}), Consumer({0: ENDS[0], 1: 2})
    subject = reader(monkeypatch, [stuck, fresh], Admin())
    applied: Applied = []
    with pytest.raises(KafkaException):  # the service's barrier gives up first: counted on
        subject.catch_up(apply_to(applied), timeout=0.1)
    assert subject.renewals == 0
    subject.catch_up(apply_to(applied), timeout=30)
    assert subject.renewals == 1
    assert fresh.assigned == {0: 3, 1: 2}  # where the stuck one's records stopped
    assert sorted(applied) == sorted(everything())  # each once, none missed
    assert subject.positions[(TOPIC, 0)] == ENDS[0]
    for _ in range(500):  # closed on a thread of its own
        if stuck.closed:
            break
        time.sleep(0.01)
    assert stuck.closed and not fresh.closed


@pytest.mark.parametrize(
    ("silent", "answers"),
    [(3, True), (10**9, False)],
    ids=["reads again in time", "Kafka not answering"],
)
def test_a_reader_is_kept_when_it_reads_again_or_kafka_does_not_answer(
    monkeypatch: pytest.MonkeyPatch, silent: int, answers: bool
) -> None:
    monkeypatch.setattr(readstall, "REPLACE_AFTER", 60.0 if answers else 0.0)
    kept = Consumer({0: ENDS[0], 1: 2}, silent=silent)
    subject = reader(monkeypatch, [kept], Admin(answers))
    applied: Applied = []
    if answers:
        subject.catch_up(apply_to(applied), timeout=30)
        assert (0, b"k5") in applied
    else:
        with pytest.raises(KafkaException):
            subject.catch_up(apply_to(applied), timeout=0.1)
    assert subject.renewals == 0
    assert kept.assigned == dict.fromkeys(ENDS, clients.OFFSET_BEGINNING)
