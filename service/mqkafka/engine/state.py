"""The broker's state: stores plus the indexes derived from them.

Invariants (``check_invariants`` asserts them; the Hypothesis tests run it after every step):

1. A subscription name maps to at most one subscription per namespace, and that
   subscription carries the name ("unique within the stream", S2).
2. Every subscription is in the topic index exactly once, under its namespace and topic.
3. The identity index lists exactly the subscriptions of each traditional identity, and the
   owner index counts exactly their owners (so RegSub checks the few distinct owners of an
   identity, not its every subscription: its cost does not grow with them).
4. A subscription's exclusive holder is one of its subscriber identities.

``handle`` only reads the state; ``apply`` changes it, one state effect at a time, keeping
the indexes in step with the stores. Construction rebuilds the indexes from the stores, so a
broker that restarts on persisted stores has the same state it stopped with.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import TypeVar

from mqkafka.engine.effects import (
    DeadLetter,
    DeleteRetained,
    Deliver,
    DeregisterPublisher,
    Effect,
    RegisterPublisher,
    RemoveSubscription,
    Reply,
    Retain,
    StoreSubscription,
)
from mqkafka.engine.filters import PASS_ALL
from mqkafka.engine.identity import Identity, Owner
from mqkafka.engine.ports import CompiledFilter, FilterPort
from mqkafka.engine.records import (
    Publication,
    Publisher,
    PublisherKey,
    Subscription,
    SubscriptionKey,
)
from mqkafka.engine.stores import (
    MemoryPublisherStore,
    MemoryRetainedStore,
    MemorySubscriptionStore,
    PublisherStore,
    RetainedStore,
    SubscriptionStore,
)
from mqkafka.engine.topicspace import (
    Namespace,
    NamespaceKind,
    Scheme,
    SubscriptionIndex,
    TopicFilter,
    TopicString,
    publication_topic,
    selects,
)
from mqkafka.mq.commands import Interface, RegOpt


class Live:
    """A subscription as the publish path uses it: looked up by a small int, with its
    compiled filter and a slot for the delivery template the delivery module caches."""

    __slots__ = ("compiled", "identity", "local", "push", "seq", "shape", "sub", "template")

    def __init__(self, sub: Subscription, seq: int, compiled: CompiledFilter | None) -> None:
        options = int(sub.options)
        self.sub = sub
        self.seq = seq
        self.compiled = compiled
        self.identity = sub.key.identity
        self.push = not options & _PUB_ON_REQ_ONLY
        self.local = bool(options & _LOCAL)
        # What decides the pub/sub properties added to a copy (see delivery.added_properties).
        self.shape = options & _SHAPING | (_RFH1 if sub.interface is Interface.RFH1 else 0)
        self.template: object = None


_REMEMBERED_MATCHES = 10_000
_REMEMBERED_TOPICS = 50_000
_MESSAGE_EFFECTS = frozenset({Deliver, Reply, DeadLetter})
_PUB_ON_REQ_ONLY = int(RegOpt.PUBLISH_ON_REQUEST_ONLY)
_LOCAL = int(RegOpt.LOCAL)
_SHAPING = int(RegOpt.INCLUDE_STREAM_NAME | RegOpt.INFORM_IF_RETAINED)
_RFH1 = 1 << 40  # beyond every option bit


def literal_prefix(flt: TopicFilter) -> str:
    """What every topic the filter selects starts with: the text before its first wildcard
    (``Sport/Soccer`` of ``Sport/Soccer/#``, which also selects ``Sport/Soccer`` itself)."""
    if flt.scheme is Scheme.TOPIC:
        head = []
        for level in flt.levels:
            if level in ("#", "+"):
                break
            head.append(level)
        return "/".join(head)
    prefix = []
    for token in flt.char_tokens():
        if token.wildcard:
            break
        prefix.append(token.text)
    return "".join(prefix)


class EngineState:
    def __init__(
        self,
        subscriptions: SubscriptionStore | None = None,
        retained: RetainedStore | None = None,
        publishers: PublisherStore | None = None,
        filters: FilterPort = PASS_ALL,
    ) -> None:
        # "is None", not "or": an empty store has len() 0 and is falsy, but it is the store.
        self.subscriptions: SubscriptionStore = (
            MemorySubscriptionStore() if subscriptions is None else subscriptions
        )
        self.retained: RetainedStore = MemoryRetainedStore() if retained is None else retained
        self.publishers: PublisherStore = (
            MemoryPublisherStore() if publishers is None else publishers
        )
        self.filters = filters
        # Counts the state changes applied: adapters that remember what the engine answered
        # for a message know the answer still holds while this has not moved.
        self.version = 0
        self._seq = itertools.count(1)
        self._index: SubscriptionIndex[int] = SubscriptionIndex()
        self._live: dict[int, Live] = {}
        self._seq_of: dict[SubscriptionKey, int] = {}
        self._names: dict[tuple[Namespace, str], SubscriptionKey] = {}
        self._subs_of: dict[Identity, set[SubscriptionKey]] = {}
        self._owners_of: dict[Identity, dict[Owner, int]] = {}  # owner -> subscriptions
        self._pubs_of: dict[Identity, set[PublisherKey]] = {}
        self._matches: dict[tuple[bool, str, str], tuple[Live, ...]] = {}
        self._publication_topics: dict[tuple[str, bool], TopicString] = {}
        for sub in self.subscriptions:
            self._index_subscription(sub)
        for pub in self.publishers:
            self._pubs_of.setdefault(pub.key.identity, set()).add(pub.key)

    # ---- queries -------------------------------------------------------------------------

    def subscription(self, key: SubscriptionKey) -> Subscription | None:
        return self.subscriptions.get(key)

    def named(self, namespace: Namespace, name: str) -> Subscription | None:
        key = self._names.get((namespace, name))
        return None if key is None else self.subscriptions.get(key)

    def of_identity(self, identity: Identity) -> list[Subscription]:
        """The subscriptions of one traditional identity, oldest first."""
        keys = sorted(self._subs_of.get(identity, ()), key=self._seq_of.__getitem__)
        return [sub for key in keys if (sub := self.subscriptions.get(key)) is not None]

    def owners_of(self, identity: Identity) -> list[Owner]:
        """The distinct owners of the identity's subscriptions, in no particular order:
        usually one, however many subscriptions the identity holds."""
        return list(self._owners_of.get(identity, ()))

    def owners_oldest_first(self, identity: Identity) -> list[Owner]:
        """``owners_of`` ordered by each owner's oldest subscription: the order a walk over
        ``of_identity`` meets them in. It walks the identity's subscriptions (in memory), so
        it is for the rare case that asks which owner comes first."""
        owners = self._owners_of.get(identity, {})
        if len(owners) <= 1:
            return list(owners)
        first: dict[Owner, int] = {}
        for key in self._subs_of[identity]:
            seq = self._seq_of[key]
            owner = self._live[seq].sub.owner
            if seq < first.get(owner, seq + 1):
                first[owner] = seq
        return sorted(first, key=first.__getitem__)

    def matching(self, namespace: Namespace, topic: TopicString) -> tuple[Live, ...]:
        """Subscriptions whose topic selects ``topic``, oldest first (deterministic order).

        Publishers repeat topics, so answers are remembered until the subscriptions change
        (any store or remove forgets them all) - bounded, and forgotten when full.
        """
        key = (namespace.kind is NamespaceKind.STREAM, namespace.name, topic.text)
        found = self._matches.get(key)
        if found is None:
            seqs = self._index.match(namespace, topic)
            live = self._live
            found = (
                tuple(live[seq] for seq in sorted(seqs))
                if len(seqs) > 1
                else (tuple(live[seq] for seq in seqs))
            )
            if len(self._matches) >= _REMEMBERED_MATCHES:
                self._matches.clear()
            self._matches[key] = found
        return found

    def publication_topic(self, text: str, interface: Interface) -> TopicString:
        """``topicspace.publication_topic``, remembered: publishers repeat their topics and a
        validated topic is a value (bounded; forgotten all at once when full). Invalid ones
        raise every time."""
        key = (text, interface is Interface.RFH1)
        topic = self._publication_topics.get(key)
        if topic is None:
            topic = publication_topic(text, interface)
            if len(self._publication_topics) >= _REMEMBERED_TOPICS:
                self._publication_topics.clear()
            self._publication_topics[key] = topic
        return topic

    def live(self, key: SubscriptionKey) -> Live:
        return self._live[self._seq_of[key]]

    def retained_selected(self, namespace: Namespace, flt: TopicFilter) -> list[Publication]:
        """Retained publications whose topic the filter selects, in topic order.

        Only topics under the filter's literal head are looked at (a key scan on RocksDB) and
        only the selected publications are read, so a RegSub costs what it selects, not what
        the store holds."""
        exact = flt.exact_topic
        if exact is not None:
            one = self.retained.get(namespace, exact)
            return [] if one is None else [one]
        found = []
        for topic in self.retained.topics(namespace, literal_prefix(flt)):
            if selects(flt, TopicString(topic)):
                publication = self.retained.get(namespace, topic)
                if publication is not None:
                    found.append(publication)
        return sorted(found, key=lambda p: p.topic.text)

    def publisher(self, key: PublisherKey) -> Publisher | None:
        return self.publishers.get(key)

    def publishers_of(self, identity: Identity) -> list[Publisher]:
        keys = sorted(self._pubs_of.get(identity, ()), key=lambda k: k.topic.text)
        return [pub for key in keys if (pub := self.publishers.get(key)) is not None]

    # ---- changes ---------------------------------------------------------------------------

    def apply(self, effects: Iterable[Effect]) -> None:
        """Carry out the state effects in order; message effects are the adapter's."""
        for effect in effects:
            if type(effect) in _MESSAGE_EFFECTS:
                continue  # Deliver, Reply, DeadLetter: the adapter's
            self.version += 1
            match effect:
                case StoreSubscription(subscription=sub):
                    self._store(sub)
                case RemoveSubscription(key=key):
                    self._remove(key)
                case Retain(publication=publication):
                    self.retained.put(publication)
                case DeleteRetained(namespace=namespace, topic=topic):
                    self.retained.delete(namespace, topic)
                case RegisterPublisher(publisher=pub):
                    self.publishers.put(pub)
                    self._pubs_of.setdefault(pub.key.identity, set()).add(pub.key)
                case DeregisterPublisher(key=pub_key):
                    self.publishers.delete(pub_key)
                    _discard(self._pubs_of, pub_key.identity, pub_key)
                case _:
                    pass  # Deliver, Reply, DeadLetter: the adapter's

    def _store(self, sub: Subscription) -> None:
        old = self.subscriptions.get(sub.key)
        seq = None
        if old is not None:
            seq = self._seq_of[sub.key]  # a re-registration keeps its place in delivery order
            self._unindex_subscription(old)
        self.subscriptions.put(sub)
        self._index_subscription(sub, seq)

    def _remove(self, key: SubscriptionKey) -> None:
        old = self.subscriptions.get(key)
        if old is None:
            return
        self._unindex_subscription(old)
        self.subscriptions.delete(key)

    def _index_subscription(self, sub: Subscription, seq: int | None = None) -> None:
        self._matches.clear()
        key = sub.key
        if seq is None:
            seq = next(self._seq)
        compiled = self.filters.compile(key.filter) if key.filter is not None else None
        self._live[seq] = Live(sub, seq, compiled)
        self._seq_of[key] = seq
        self._index.add(seq, key.namespace, key.topic)
        self._subs_of.setdefault(key.identity, set()).add(key)
        owners = self._owners_of.setdefault(key.identity, {})
        owner = sub.owner
        owners[owner] = owners.get(owner, 0) + 1
        if sub.name is not None:
            self._names[key.namespace, sub.name] = key

    def _unindex_subscription(self, sub: Subscription) -> None:
        self._matches.clear()
        key = sub.key
        seq = self._seq_of.pop(key)
        del self._live[seq]
        self._index.remove(seq)
        _discard(self._subs_of, key.identity, key)
        owners = self._owners_of[key.identity]
        owner = sub.owner
        if owners[owner] > 1:
            owners[owner] -= 1
        elif len(owners) > 1:
            del owners[owner]
        else:
            del self._owners_of[key.identity]
        if sub.name is not None and self._names.get((key.namespace, sub.name)) == key:
            del self._names[key.namespace, sub.name]

    # ---- invariants ----------------------------------------------------------------------------

    def check_invariants(self) -> None:
        subs = list(self.subscriptions)
        for (namespace, name), key in self._names.items():
            sub = self.subscriptions.get(key)
            assert sub is not None and sub.name == name and key.namespace == namespace
        named = [(s.key.namespace, s.name) for s in subs if s.name is not None]
        assert len(named) == len(set(named)) == len(self._names), "a name, one subscription"
        assert len(self._index) == len(subs) == len(self._live) == len(self._seq_of)
        for sub in subs:
            assert self._index.subscription(self._seq_of[sub.key]) == (
                sub.key.namespace,
                sub.key.topic,
            )
            assert sub.key in self._subs_of[sub.key.identity]
            assert sub.exclusive is None or sub.exclusive in sub.identities
        assert sum(len(keys) for keys in self._subs_of.values()) == len(subs)
        owners: dict[Identity, dict[Owner, int]] = {}
        for sub in subs:
            counts = owners.setdefault(sub.key.identity, {})
            counts[sub.owner] = counts.get(sub.owner, 0) + 1
        assert owners == self._owners_of, "the owner index counts each identity's owners"


_K = TypeVar("_K")
_V = TypeVar("_V")


def _discard(index: dict[_K, set[_V]], key: _K, value: _V) -> None:
    values = index.get(key)
    if values is not None:
        values.discard(value)
        if not values:
            del index[key]


__all__ = ["EngineState", "Live"]
