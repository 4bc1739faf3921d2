"""Where the broker's state lives: small ports with in-memory implementations.

A store holds the durable truth (records keyed by their natural key); ``EngineState`` keeps
the derived indexes (names, identities, the topic matcher) and rebuilds them from the stores
when it starts. A RocksDB-backed store implements the same Protocol; the contract tests in
``tests/unit/engine/test_stores.py`` run against every implementation.

Retained publications are keyed by (namespace, topic) so that a compacted Kafka topic keyed
the same way *is* retain semantics: one per topic, the newest wins (reference §4.3).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from mqkafka.engine.records import (
    Publication,
    Publisher,
    PublisherKey,
    Subscription,
    SubscriptionKey,
)
from mqkafka.engine.topicspace import Namespace


class SubscriptionStore(Protocol):
    def get(self, key: SubscriptionKey) -> Subscription | None: ...
    def put(self, subscription: Subscription) -> None:
        """Insert or replace the subscription with the same key."""
        ...

    def delete(self, key: SubscriptionKey) -> None:
        """Remove it; a missing key is not an error."""
        ...

    def __iter__(self) -> Iterator[Subscription]: ...
    def __len__(self) -> int: ...


class RetainedStore(Protocol):
    def get(self, namespace: Namespace, topic: str) -> Publication | None: ...
    def put(self, publication: Publication) -> None:
        """Keep it, replacing the one retained for the same namespace and topic."""
        ...

    def delete(self, namespace: Namespace, topic: str) -> None: ...
    def in_namespace(self, namespace: Namespace) -> Iterator[Publication]: ...
    def topics(self, namespace: Namespace, literal_prefix: str = "") -> Iterator[str]:
        """The retained topics of ``namespace`` that start with ``literal_prefix``, without
        reading the publications (a key scan on RocksDB)."""
        ...

    def __iter__(self) -> Iterator[Publication]: ...
    def __len__(self) -> int: ...


class PublisherStore(Protocol):
    def get(self, key: PublisherKey) -> Publisher | None: ...
    def put(self, publisher: Publisher) -> None: ...
    def delete(self, key: PublisherKey) -> None: ...
    def __iter__(self) -> Iterator[Publisher]: ...
    def __len__(self) -> int: ...


class MemorySubscriptionStore:
    def __init__(self) -> None:
        self._items: dict[SubscriptionKey, Subscription] = {}

    def get(self, key: SubscriptionKey) -> Subscription | None:
        return self._items.get(key)

    def put(self, subscription: Subscription) -> None:
        self._items[subscription.key] = subscription

    def delete(self, key: SubscriptionKey) -> None:
        self._items.pop(key, None)

    def __iter__(self) -> Iterator[Subscription]:
        return iter(list(self._items.values()))

    def __len__(self) -> int:
        return len(self._items)


class MemoryRetainedStore:
    def __init__(self) -> None:
        self._spaces: dict[Namespace, dict[str, Publication]] = {}

    def get(self, namespace: Namespace, topic: str) -> Publication | None:
        space = self._spaces.get(namespace)
        return None if space is None else space.get(topic)

    def put(self, publication: Publication) -> None:
        space = self._spaces.setdefault(publication.namespace, {})
        space[publication.topic.text] = publication

    def delete(self, namespace: Namespace, topic: str) -> None:
        space = self._spaces.get(namespace)
        if space is not None:
            space.pop(topic, None)
            if not space:
                del self._spaces[namespace]

    def in_namespace(self, namespace: Namespace) -> Iterator[Publication]:
        return iter(list(self._spaces.get(namespace, {}).values()))

    def topics(self, namespace: Namespace, literal_prefix: str = "") -> Iterator[str]:
        space = self._spaces.get(namespace, {})
        return iter([topic for topic in space if topic.startswith(literal_prefix)])

    def __iter__(self) -> Iterator[Publication]:
        return iter([p for space in self._spaces.values() for p in space.values()])

    def __len__(self) -> int:
        return sum(len(space) for space in self._spaces.values())


class MemoryPublisherStore:
    def __init__(self) -> None:
        self._items: dict[PublisherKey, Publisher] = {}

    def get(self, key: PublisherKey) -> Publisher | None:
        return self._items.get(key)

    def put(self, publisher: Publisher) -> None:
        self._items[publisher.key] = publisher

    def delete(self, key: PublisherKey) -> None:
        self._items.pop(key, None)

    def __iter__(self) -> Iterator[Publisher]:
        return iter(list(self._items.values()))

    def __len__(self) -> int:
        return len(self._items)


__all__ = [
    "MemoryPublisherStore",
    "MemoryRetainedStore",
    "MemorySubscriptionStore",
    "PublisherStore",
    "RetainedStore",
    "SubscriptionStore",
]
