"""The MQI's state copy replaces its consumer when it reads nothing while Kafka answers, as the
service's state reader does (one mechanism: ``kafka.readstall`` through
``CompactedReader.watch``), on fake clients. librdkafka 2.16 can leave a consumer with no
broker after an outage, for good: every MQOPEN's barrier then ended in 2009 ("the catalogue
did not catch up in time"). The replica knows it is behind from what Kafka told it (the
offsets of the records it wrote, the end offsets its barriers asked): replaced once, at the
positions read, each record applied once; kept while it reads, while Kafka does not answer,
or while nothing says it is behind."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from types import SimpleNamespace
from typing import Any, cast

import pytest

from mqkafka.kafka import clients, readstall
from mqkafka.kafka.clients import KafkaError, KafkaException, TopicPartition
from mqkafka.mqi.kafkaqm import replica as replica_module
from mqkafka.mqi.kafkaqm.replica import StateReplica
from mqkafka.mqi.kafkaqm.settings import Settings
from mqkafka.mqi.rules.catalogue import CatalogueRecord, QueueDefinition

SETTINGS = Settings("127.0.0.1:9092")
CATALOGUE, CONNECTIONS = SETTINGS.catalogue_topic, SETTINGS.connections_topic
Logs = dict[str, list[tuple[bytes, bytes | None]]]  # each topic's one partition


class Record:
    def __init__(self, topic: str, offset: int, key: bytes, value: bytes | None) -> None:
        self._topic, self._offset, self._key, self._value = topic, offset, key, value

    def error(self) -> None:
        return None

    def topic(self) -> str:
        return self._topic

    def partition(self) -> int:
        return 0

    def offset(self) -> int:
        return self._offset

    def key(self) -> bytes:
        return self._key

    def value(self) -> bytes | None:
        return self._value

    def timestamp(self) -> tuple[int, int]:
        return (1, int(time.time() * 1000))


class Admin:
    """Kafka's metadata and end offsets, from the logs; or no answer."""

    def __init__(self, logs: Logs) -> None:
        self.logs, self.answers = logs, True

    def list_topics(self, timeout: float) -> Any:
        found = SimpleNamespace(error=None, partitions={0: None})
        return SimpleNamespace(topics=dict.fromkeys(self.logs, found))

    def list_offsets(self, request: Any, **_: Any) -> dict[Any, Future[Any]]:
        if not self.answers:
            raise KafkaException(KafkaError(KafkaError._TRANSPORT, "no broker"))
        answers: dict[Any, Future[Any]] = {}
        for tp in request:
            answers[tp] = Future()
            answers[tp].set_result(SimpleNamespace(offset=len(self.logs[tp.topic])))
        return answers


class Producer:
    """Appends to the logs; delivery reports (or refusals) at poll and flush."""

    def __init__(self, logs: Logs) -> None:
        self.logs, self.refuses, self._reports = logs, False, list[Any]()

    def produce(self, topic: str, key: bytes, value: bytes | None, on_delivery: Any) -> None:
        if self.refuses:
            failed = KafkaError(KafkaError._MSG_TIMED_OUT, "no broker")
            self._reports.append(lambda: on_delivery(failed, None))
            return
        self.logs[topic].append((key, value))
        written = Record(topic, len(self.logs[topic]) - 1, key, value)
        self._reports.append(lambda: on_delivery(None, written))

    def poll(self, timeout: float) -> int:
        reports, self._reports = self._reports, []
        for report in reports:
            report()
        return len(reports)

    def flush(self, timeout: float) -> int:
        self.poll(0)
        return 0


class Consumer:
    """Reads the logs from where it was assigned, but nothing past ``stuck_at`` records of
    the ``stuck`` topics (a client left with no broker for them), nor in its first
    ``silent`` polls."""

    def __init__(
        self, logs: Logs, stuck_at: int | None = None, silent: int = 0, stuck: Iterable[str] = ()
    ) -> None:
        self.logs, self.stuck_at, self.silent = logs, stuck_at, silent
        self.stuck = frozenset(stuck or logs)
        self.at: dict[str, int] = {}
        self.assigned: dict[str, int] = {}
        self.closed = threading.Event()

    def assign(self, tps: list[TopicPartition]) -> None:
        self.assigned = {tp.topic: tp.offset for tp in tps}
        self.at = {tp.topic: max(tp.offset, 0) for tp in tps}

    def consume(self, most: int, timeout: float) -> list[Record]:
        got: list[Record] = []
        if self.silent > 0:
            self.silent -= 1
        else:
            for topic, at in self.at.items():
                end = len(self.logs[topic])
                if self.stuck_at is not None and topic in self.stuck:
                    end = min(end, self.stuck_at)
                got += [Record(topic, o, *self.logs[topic][o]) for o in range(at, end)]
                self.at[topic] = max(at, end)
        if not got:
            time.sleep(min(timeout, 0.005))
        return got

    def position(self, tps: list[TopicPartition]) -> list[TopicPartition]:
        return [TopicPartition(tp.topic, tp.partition, self.at[tp.topic]) for tp in tps]

    def close(self) -> None:
        self.closed.set()


class Replica(StateReplica):
    """Counts what it applies."""

    applied: list[tuple[str, bytes]]

    def _apply(self, topic: str, partition: int, key: bytes, value: bytes | None, ts: int) -> None:
        self.applied.append((topic, key))
        super()._apply(topic, partition, key, value, ts)


def defined(name: str) -> tuple[bytes, bytes | None]:
    record = CatalogueRecord.put(QueueDefinition(name))
    return record.key, record.value


@pytest.fixture
def logs() -> Logs:
    return {CATALOGUE: [defined("Q.BEFORE")], CONNECTIONS: []}


@pytest.fixture
def replicas() -> Iterator[list[Replica]]:
    made: list[Replica] = []
    yield made
    for replica in made:
        replica.close()


def start(
    monkeypatch: pytest.MonkeyPatch, logs: Logs, made: list[Consumer], into: list[Replica]
) -> tuple[Replica, Admin, Producer]:
    handed = iter(made)
    monkeypatch.setattr(clients, "consumer", lambda *_a, **_k: next(handed))
    admin, producer = Admin(logs), Producer(logs)
    monkeypatch.setattr(clients, "admin", lambda *_a, **_k: admin)  # asked afresh: the same
    monkeypatch.setattr(clients, "producer", lambda *_a, **_k: producer)
    Replica.applied = []
    replica = Replica(SETTINGS, cast(Any, SimpleNamespace(client=admin)))
    into.append(replica)
    return replica, admin, producer


@pytest.mark.parametrize("beats", [False, True], ids=["all of it", "the catalogue only"])
def test_a_replica_stuck_while_kafka_answers_is_replaced_once_at_its_positions(
    monkeypatch: pytest.MonkeyPatch, logs: Logs, replicas: list[Replica], beats: bool
) -> None:
    """The consumer read the first record, then nothing for good (or nothing of the
    catalogue, the heartbeats of others read all along): a queue defined by this connection
    (its write, its offset Kafka's answer) is seen once its successor reads on from where it
    stopped; MQOPEN's barrier no longer ends in 2009."""
    monkeypatch.setattr(readstall, "REPLACE_AFTER", 0.3)
    stuck = Consumer(logs, stuck_at=1, stuck=[CATALOGUE] if beats else [])
    fresh = Consumer(logs)
    replica, _, _ = start(monkeypatch, logs, [stuck, fresh], replicas)
    done = threading.Event()

    def beat() -> None:  # another connection's heartbeats, every 20 ms
        while not done.wait(0.02):
            logs[CONNECTIONS].append((b"other", None))

    beating = threading.Thread(target=beat)
    if beats:
        beating.start()
    record = CatalogueRecord.put(QueueDefinition("Q.AFTER"))
    replica.write(CATALOGUE, record.key, record.value, wait=False)
    replica.flush()
    try:
        replica.sync(timeout=10)
    finally:
        done.set()
    assert replica.lookup("Q.AFTER") is not None and replica.lookup("Q.BEFORE") is not None
    assert replica._reader.renewals == 1
    assert fresh.assigned[CATALOGUE] == 1  # where the stuck one stopped
    assert [key for topic, key in replica.applied if topic == CATALOGUE] == [
        b"Q.BEFORE",
        b"Q.AFTER",
    ]
    assert stuck.closed.wait(10) and not fresh.closed.is_set()


@pytest.mark.parametrize(
    "case",
    ["reads again in time", "Kafka refuses since", "answered long ago", "nothing says behind"],
)
def test_a_replica_is_kept_while_it_reads_or_nothing_shows_it_stuck_with_kafka_answering(
    monkeypatch: pytest.MonkeyPatch, logs: Logs, replicas: list[Replica], case: str
) -> None:
    """Kept: a consumer silent for a while that reads again; one stuck while Kafka refused
    what was asked since (an outage: its time is not held against the consumer), or last
    answered past ``ANSWERED_WITHIN``; one that nothing shows to be behind (a record another
    client wrote, no barrier asked since)."""
    monkeypatch.setattr(readstall, "REPLACE_AFTER", 5.0 if case == "reads again in time" else 0.3)
    if case == "answered long ago":
        monkeypatch.setattr(replica_module, "ANSWERED_WITHIN", 0.0)
    reads = case == "reads again in time"
    consumer = Consumer(logs, stuck_at=None if reads else 1, silent=30 if reads else 0)
    replica, admin, producer = start(monkeypatch, logs, [consumer], replicas)
    record = CatalogueRecord.put(QueueDefinition("Q.AFTER"))
    if case == "nothing says behind":
        logs[CATALOGUE].append((record.key, record.value))  # another client's
    else:
        replica.write(CATALOGUE, record.key, record.value, wait=False)
        replica.flush()
    if case == "Kafka refuses since":
        producer.refuses, admin.answers = True, False
        replica.write(CONNECTIONS, b"me", None, wait=False)  # the next heartbeat
        replica.flush()
    if reads:
        replica.sync(timeout=10)
        assert replica.lookup("Q.AFTER") is not None
    else:
        time.sleep(1.0)  # over three times REPLACE_AFTER
    assert replica._reader.renewals == 0 and not consumer.closed.is_set()
