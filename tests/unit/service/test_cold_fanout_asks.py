"""A first publication to many queues asks the cluster about them at once (issue 35 point
10): their existence in one listing, the missing ones made in one request, their limits in one
ask, or before any publication as the topics are listed; on fake admin clients."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqkafka.service.limits import BATCH_OVERHEAD, TopicLimits
from mqkafka.service.queues import QueueDirectory


@dataclass
class _Found:
    error: Any = None


@dataclass
class _Metadata:
    topics: dict[str | None, _Found] = field(default_factory=dict)


class _Done:
    def result(self, timeout: float | None = None) -> None:
        return None


class Entry:
    def __init__(self, value: int) -> None:
        self.value = str(value)


class _Limit:
    def __init__(self, value: int) -> None:
        self.value = value

    def result(self, timeout: float | None = None) -> dict[str, Entry]:
        return {"max.message.bytes": Entry(self.value)}


class Cluster:
    """An AdminClient: list_topics, create_topics and describe_configs, each request kept."""

    def __init__(self, *topics: str) -> None:
        self.topics = set(topics)
        self.requests: list[tuple[str, Any]] = []

    def list_topics(self, topic: str | None, timeout: float) -> _Metadata:
        self.requests.append(("list", topic))
        names = self.topics if topic is None else {topic} & self.topics
        return _Metadata({name: _Found() for name in names})

    def create_topics(self, new: list[Any], operation_timeout: float) -> dict[str, _Done]:
        self.requests.append(("create", sorted(t.topic for t in new)))
        self.topics.update(t.topic for t in new)
        return {t.topic: _Done() for t in new}

    def describe_configs(self, resources: list[Any], request_timeout: float) -> dict[Any, Any]:
        self.requests.append(("describe", len(resources)))
        return {r: _Limit(500_000) for r in resources}


QUEUES = [f"SUB.Q{n:03d}" for n in range(200)]


def test_many_queues_are_asked_in_one_listing_and_the_missing_made_in_one_request() -> None:
    cluster = Cluster(*QUEUES[:150], "SYSTEM.DEAD.LETTER.QUEUE")
    queues = QueueDirectory(cluster)
    assert queues.ensure_all(QUEUES) == sorted(QUEUES)
    assert cluster.requests == [("list", None), ("create", sorted(QUEUES[150:]))]
    assert [queues.ensure(q) for q in QUEUES] == QUEUES  # each record's ask: all known
    assert len(cluster.requests) == 2


def test_where_queues_are_not_made_the_missing_ones_are_not_asked_one_by_one() -> None:
    cluster = Cluster(*QUEUES[:150])
    queues = QueueDirectory(cluster, auto_create=False)
    assert queues.ensure_all(QUEUES) == sorted(QUEUES[:150])
    assert [queues.ensure(q) for q in QUEUES[148:152]] == [*QUEUES[148:150], None, None]
    assert cluster.requests == [("list", None)]
    queues.forget()  # a transaction aborted: asked afresh
    assert queues.ensure(QUEUES[199]) is None
    assert cluster.requests[1:] == [("list", None), ("list", QUEUES[199])]


def test_limits_asked_ahead_as_topics_are_listed_are_taken_without_another_ask() -> None:
    cluster = Cluster(*QUEUES, "__consumer_offsets", "mqk-subscriptions")
    limits = TopicLimits(cluster)
    queues = QueueDirectory(cluster)
    queues.on_listed = limits.prefetch
    assert queues.ensure("SUB.Q000") == "SUB.Q000"  # the service's first ask lists them all
    assert cluster.requests == [("list", None), ("describe", 200)]  # Kafka's own left out
    assert all(limits.limit(q) == 500_000 - BATCH_OVERHEAD for q in QUEUES)
    assert len(cluster.requests) == 2


def test_limits_learned_for_many_topics_are_one_ask() -> None:
    cluster = Cluster()
    limits = TopicLimits(cluster)
    limits.learn(QUEUES)
    limits.learn(QUEUES)  # known: not asked again
    assert cluster.requests == [("describe", 200)]
    assert limits.limit(QUEUES[7]) == 500_000 - BATCH_OVERHEAD
