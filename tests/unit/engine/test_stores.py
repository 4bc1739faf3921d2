"""The store contract, run against every implementation, and rebuilding state from stores."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mqkafka.engine.identity import Identity
from mqkafka.engine.records import (
    Publication,
    Publisher,
    PublisherKey,
    Subscription,
    SubscriptionKey,
)
from mqkafka.engine.state import EngineState
from mqkafka.engine.stores import (
    MemoryPublisherStore,
    MemoryRetainedStore,
    MemorySubscriptionStore,
    PublisherStore,
    RetainedStore,
    SubscriptionStore,
)
from mqkafka.engine.topicspace import ROOT, Namespace, TopicFilter, TopicString
from mqkafka.mq.commands import Interface, PublicationContent, RegOpt
from mqkafka.mq.topics import Scheme
from tests.unit.engine.driver import BrokerDriver

SUBSCRIPTION_STORES: list[Callable[[], SubscriptionStore]] = [MemorySubscriptionStore]
RETAINED_STORES: list[Callable[[], RetainedStore]] = [MemoryRetainedStore]
PUBLISHER_STORES: list[Callable[[], PublisherStore]] = [MemoryPublisherStore]

SP = Namespace.subpoint("SP")


def subscription(topic: str, queue: str = "Q", namespace: Namespace = ROOT) -> Subscription:
    key = SubscriptionKey(namespace, Identity(queue, "QM1"), TopicFilter(topic, Scheme.TOPIC))
    return Subscription(key, "fred", RegOpt.NONE, Interface.RFH2, b"C" * 24)


def publication(topic: str, body: bytes = b"", namespace: Namespace = ROOT) -> Publication:
    return Publication(
        namespace, TopicString(topic), PublicationContent(body=body), Interface.RFH2, 0, 0
    )


@pytest.mark.parametrize("make", SUBSCRIPTION_STORES)
def test_subscription_store_contract(make: Callable[[], SubscriptionStore]) -> None:
    store = make()
    a, b = subscription("A"), subscription("B")
    assert store.get(a.key) is None and len(store) == 0
    store.put(a)
    store.put(b)
    assert store.get(a.key) == a and len(store) == 2
    changed = Subscription(a.key, "fred", RegOpt.PERSISTENT, Interface.RFH2, b"C" * 24)
    store.put(changed)  # replaces the one with the same key
    assert store.get(a.key) == changed and len(store) == 2
    store.delete(a.key)
    store.delete(a.key)  # a missing key is not an error
    assert list(store) == [b]


@pytest.mark.parametrize("make", RETAINED_STORES)
def test_retained_store_contract(make: Callable[[], RetainedStore]) -> None:
    """One retained publication per (namespace, topic): the newest replaces the older."""
    store = make()
    store.put(publication("T", b"1"))
    store.put(publication("T", b"2"))
    store.put(publication("T", b"sp", SP))
    store.put(publication("U", b"u"))
    assert len(store) == 3
    found = store.get(ROOT, "T")
    assert found is not None and found.content.body == b"2"
    assert sorted(p.topic.text for p in store.in_namespace(ROOT)) == ["T", "U"]
    assert [p.content.body for p in store.in_namespace(SP)] == [b"sp"]
    store.delete(ROOT, "T")
    store.delete(ROOT, "nothing")
    assert store.get(ROOT, "T") is None and len(store) == 2


@pytest.mark.parametrize("make", PUBLISHER_STORES)
def test_publisher_store_contract(make: Callable[[], PublisherStore]) -> None:
    store = make()
    key = PublisherKey(ROOT, Identity("P", "QM1"), TopicString("T"))
    store.put(Publisher(key, "fred"))
    store.put(Publisher(key, "fred", RegOpt.LOCAL))
    assert store.get(key) == Publisher(key, "fred", RegOpt.LOCAL) and len(store) == 1
    store.delete(key)
    assert store.get(key) is None and list(store) == []


def test_state_rebuilt_from_its_stores_answers_the_same() -> None:
    """A broker restarting on persisted stores has the state it stopped with: names,
    identities, the topic index and retained publications."""
    broker = BrokerDriver()
    broker.register_subscriber("Sport/#", queue="Q1", sub_name="sport", correl_id=b"A" * 24)
    broker.register_subscriber("News", queue="Q2", sub_identity="i", options="JoinShared")
    broker.publish("Sport/Soccer", body=b"1-0", retain=True)
    broker.register_publisher("News", queue="P")
    old = broker.state
    restarted = BrokerDriver(state=EngineState(old.subscriptions, old.retained, old.publishers))
    restarted.state.check_invariants()
    restarted.publish("Sport/Tennis", body=b"6-0")
    assert [m.body for m in restarted.drain("Q1")] == [b"6-0"]
    assert restarted.deregister_subscriber(sub_name="sport").ok
    assert restarted.register_publisher("News", queue="P", user="bob").reason != 0
    assert len(restarted.state.retained) == 1


def test_empty_stores_given_are_the_stores_used() -> None:
    """An empty store is falsy (len 0) but must still be the one the state writes to."""
    subscriptions, retained, publishers = (
        MemorySubscriptionStore(),
        MemoryRetainedStore(),
        MemoryPublisherStore(),
    )
    state = EngineState(subscriptions, retained, publishers)
    assert state.subscriptions is subscriptions
    assert state.retained is retained
    assert state.publishers is publishers
