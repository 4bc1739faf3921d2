"""Which subscriptions does a publication reach? An index whose cost per publication depends
on the topic and on the subscriptions that can match it, not on the number of others.

``SubscriptionIndex[K]`` keeps, per namespace (stream or subpoint; wildcards never cross
them, reference §1.4):

* Filters without wildcards, of either scheme, in a dict by the one topic they select.
* One trie keyed by whole topic levels, shared by both schemes:
    - TOPIC filters (``#``, ``+`` as whole levels, reference §7.2) are paths with a ``+``
      edge and a ``#`` edge beside the literal children. A publication is run through the
      trie as a set of active nodes, one step per level (an NFA, no backtracking). A ``#``
      node is entered together with its parent (zero levels), its keys are collected at
      once (it matches whatever follows) and, if filter levels follow it, it stays active
      for the rest of the topic. ``USA#`` is an ordinary literal child.
    - CHAR filters (``*``, ``?``, ``%``, reference §7.3) hang from the node of the complete
      literal levels before their first wildcard, so the literal walk of the topic is done
      once for both schemes. At the node, a *bucket* per *head* (the rest of the literal
      prefix, inside the next level) is found by slicing the topic's next level to each
      head length present; in the bucket, filters are grouped by *tail* (the complete
      literal levels after the last wildcard), found with one lookup per distinct number
      of tail levels; a group keys by *anchor* the filters whose wildcards enclose a whole
      literal level (``Sport/*/team-5/*``). What is left between head and tail (the
      *middle*) is checked by length when it holds wildcards only (``*``, ``?``, ``??*``),
      otherwise by a regex compiled for the middle alone. A bucket is looked up only when
      the topic's span between head and tail fits the bounds of some filter of that head
      length and number of tail levels.

With a million subscriptions a publication's time goes to cache misses more than to
interpretation, which shapes the objects (``mqkafka.engine.matchtrie``).

Here: the index by key with its result cache. The trie's objects are in ``matchtrie``,
adding and removing filters in ``matchbuild``, matching a topic in ``matchwalk``.

Results are remembered per namespace and topic until that namespace's subscriptions change
(publishers repeat their topics). ``NaiveIndex`` is the oracle: the same API, ``matches()``
against every subscription.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Any, Generic, TypeVar

from mqkafka.engine.matchbuild import add_filter, remove_filter
from mqkafka.engine.matchtrie import NamespaceTrie, level_dict
from mqkafka.engine.matchwalk import match_topic
from mqkafka.mq.topics import Namespace, TopicFilter, TopicString, matches

K = TypeVar("K", bound=Hashable)


class _Subscriptions(Generic[K]):
    """What both indexes share: each key's namespace and filter."""

    __slots__ = ("_subscriptions",)

    def __init__(self) -> None:
        self._subscriptions: dict[K, tuple[Namespace, TopicFilter]] = {}

    def __len__(self) -> int:
        return len(self._subscriptions)

    def __contains__(self, key: object) -> bool:
        return key in self._subscriptions

    def __iter__(self) -> Iterator[K]:
        return iter(self._subscriptions)

    def subscription(self, key: K) -> tuple[Namespace, TopicFilter]:
        return self._subscriptions[key]


class SubscriptionIndex(_Subscriptions[K]):
    """Subscriptions by key (chosen by the engine), matched per publication.

    ``add`` with a key that is already present replaces its subscription (a re-registration
    that changed the topic); ``remove`` of an unknown key raises KeyError, as ``set.remove``.

    Publishers repeat their topics, so the last ``cache_size`` results of each namespace are
    kept (as frozensets, which is why ``match`` returns one) until a subscription of that
    namespace is added or removed; ``cache_size=0`` turns this off.
    """

    __slots__ = ("_cache_size", "_last", "_results", "_spaces")

    def __init__(self, cache_size: int = 65_536) -> None:
        super().__init__()
        self._spaces: dict[Namespace, NamespaceTrie] = {}
        self._results: dict[Namespace, dict[str, frozenset[K]]] = {}
        self._cache_size = cache_size
        self._last: tuple[Namespace | None, NamespaceTrie | None] = (None, None)  # last one matched

    @property
    def cache_size(self) -> int:
        return self._cache_size

    @cache_size.setter
    def cache_size(self, size: int) -> None:
        self._cache_size = size
        self._results.clear()

    def add(self, key: K, namespace: Namespace, flt: TopicFilter) -> None:
        if key in self._subscriptions:
            self.remove(key)
        space = self._spaces.get(namespace)
        if space is None:
            space = self._spaces[namespace] = NamespaceTrie()
        add_filter(space, flt, key)
        self._subscriptions[key] = (namespace, flt)
        self._results.pop(namespace, None)

    def remove(self, key: K) -> None:
        namespace, flt = self._subscriptions.pop(key)
        space = self._spaces[namespace]
        remove_filter(space, flt, key)
        if space.is_empty():
            del self._spaces[namespace]
            self._last = (None, None)
        self._results.pop(namespace, None)

    def match(self, namespace: Namespace, topic: TopicString) -> frozenset[K]:
        """The keys of every subscription in ``namespace`` whose filter selects ``topic``."""
        text = topic.text
        results = self._results.get(namespace) if self._cache_size else None
        if results is not None:
            hit = results.get(text)
            if hit is not None:
                return hit
        out: set[Any] = set()
        if namespace is self._last[0]:  # publishers keep to a namespace: spare its hash
            space: NamespaceTrie | None = self._last[1]
        else:
            space = self._spaces.get(namespace)
            if space is not None:
                self._last = (namespace, space)
        if space is not None:
            match_topic(space, text, out)
        found: frozenset[K] = frozenset(out)
        if self._cache_size:
            if results is None or len(results) >= self._cache_size:
                # a full one starts again: cheaper than LRU order, as good for repeating
                # topics; a new dict, as clear() would drop the hashes kept in its table
                results = self._results[namespace] = level_dict()
            results[text] = found
        return found


class NaiveIndex(_Subscriptions[K]):
    """The oracle: same API as SubscriptionIndex, ``matches()`` against every subscription."""

    __slots__ = ()

    def add(self, key: K, namespace: Namespace, flt: TopicFilter) -> None:
        self._subscriptions[key] = (namespace, flt)

    def remove(self, key: K) -> None:
        del self._subscriptions[key]

    def match(self, namespace: Namespace, topic: TopicString) -> frozenset[K]:
        return frozenset(
            key
            for key, (space, flt) in self._subscriptions.items()
            if space == namespace and matches(flt, topic)
        )


__all__ = ["NaiveIndex", "SubscriptionIndex"]
