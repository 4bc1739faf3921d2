"""QueueDirectory: which queues exist, asked of the cluster as seldom as correctness allows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqkafka.service.queues import QueueDirectory


@dataclass
class _Found:
    error: Any = None


@dataclass
class _Metadata:
    topics: dict[str | None, _Found] = field(default_factory=dict)


class Cluster:
    """An AdminClient's list_topics over a set of topic names, counting the requests."""

    def __init__(self, *topics: str) -> None:
        self.topics = set(topics)
        self.requests: list[str | None] = []

    def list_topics(self, topic: str | None, timeout: float) -> _Metadata:
        self.requests.append(topic)
        names = self.topics if topic is None else {topic} & self.topics
        return _Metadata({name: _Found() for name in names})


def test_after_forget_every_queue_is_asked_in_one_request() -> None:
    cluster = Cluster("A", "B", "C")
    queues = QueueDirectory(cluster, auto_create=False)
    assert all(queues.is_topic(q) for q in "ABC")
    queues.forget()  # an aborted transaction: a topic may have gone since
    cluster.requests.clear()
    assert [queues.is_topic(q) for q in "ABCD"] == [True, True, True, False]
    assert cluster.requests == [None, "D"]  # one listing, then only the queue it lacked


def test_a_topic_made_after_the_listing_is_still_found() -> None:
    cluster = Cluster("A")
    queues = QueueDirectory(cluster, auto_create=False)
    assert queues.is_topic("A")
    assert not queues.is_topic("NEW")
    cluster.topics.add("NEW")  # an MQI client defines the queue
    assert queues.is_topic("NEW")
    assert cluster.requests == [None, "NEW", "NEW"]


def test_a_deleted_topic_is_not_known_after_forget() -> None:
    cluster = Cluster("A")
    queues = QueueDirectory(cluster, auto_create=False)
    assert queues.is_topic("A")
    cluster.topics.discard("A")
    assert queues.is_topic("A")  # known: not asked again until a transaction fails
    queues.forget()
    assert not queues.is_topic("A")
