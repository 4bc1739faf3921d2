"""Which subscriptions does a publication reach? An index whose cost per publication depends
on the topic and on the subscriptions that match it, not on the number of unrelated ones.

``SubscriptionIndex[K]`` keeps, per namespace (stream or subpoint; wildcards never cross
them, reference §1.4):

* TOPIC scheme (``#``, ``+`` by level, reference §7.2): a trie keyed by whole levels, with a
  ``+`` edge and a ``#`` edge beside the literal children. A publication is run through it
  as a set of active nodes, one step per level (an NFA without backtracking): a ``#`` node
  is entered without consuming a level and stays active while consuming any level. Literal
  levels that merely contain ``#``/``+`` (``USA#``) are ordinary children.
* CHAR scheme (``*``, ``?``, ``%``; reference §7.3): filters without wildcards are one dict
  lookup on the literal. A wildcard filter is indexed by its literal text:
    - the complete levels of its literal prefix (before the first wildcard) are a path in
      a level trie, so a publication visits only filters whose prefix levels it has;
    - the rest of the prefix (the *head*, inside the next level) keys a bucket, looked up
      by slicing the topic's next level to each head length present;
    - the literal suffix after the last wildcard (the *tail*) keys a group in the bucket,
      looked up by slicing the topic's end to each tail length present;
    - when the wildcards enclose a complete literal level (``Sport/*/team-5/*``) that level
      (*anchor*) keys the filter inside its group, looked up with each topic level.
  What remains (the middle between head and tail) is checked by length alone when it has
  no literal characters (``*``, ``?``, ``??*``) or else by a regex compiled for the middle
  only, applied between the head and tail positions.

Subscriptions with the same namespace and filter share one node or entry; a node holds one
key directly and a set only from the second key on, because most filters are distinct.
``NaiveIndex`` is the oracle: the same API, ``matches()`` against every subscription.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from mqkafka.mq.topics import (
    ANY_CHARS,
    LEVEL_SEPARATOR,
    MULTI_LEVEL,
    SINGLE_LEVEL,
    Namespace,
    Scheme,
    TopicFilter,
    TopicString,
    matches,
)

K = TypeVar("K", bound=Hashable)


# --------------------------------------------------------------------------------------
# Key holders: nothing, one key, or a _KeyBag of several
# --------------------------------------------------------------------------------------


class _NoKey:
    """Marks an empty holder (a key may itself be None, so None cannot mean "no key")."""

    __slots__ = ()


_NO_KEY = _NoKey()


class _KeyBag(set[object]):
    """Two or more keys of subscriptions sharing one filter (a private type, so it is never
    mistaken for a user's key)."""

    __slots__ = ()


def _hold(current: object, key: object) -> object:
    if current is _NO_KEY:
        return key
    if type(current) is _KeyBag:
        current.add(key)
        return current
    return _KeyBag((current, key))


def _release(current: object, key: object) -> object:
    if type(current) is _KeyBag:
        current.discard(key)
        return next(iter(current)) if len(current) == 1 else current
    return _NO_KEY


def _collect(current: object, out: set[object]) -> None:
    if type(current) is _KeyBag:
        out.update(current)
    elif current is not _NO_KEY:
        out.add(current)


# --------------------------------------------------------------------------------------
# TOPIC scheme: a trie by level
# --------------------------------------------------------------------------------------


class _LevelNode:
    """A filter prefix. ``children`` holds literal levels; ``plus``/``hash`` the wildcard
    levels; ``keys`` the subscriptions whose filter ends here."""

    __slots__ = ("children", "hash", "keys", "plus")
    loops = False  # a `#` node consumes any level and stays active (class attribute)

    def __init__(self) -> None:
        self.children: dict[str, _LevelNode] | None = None
        self.plus: _LevelNode | None = None
        self.hash: _LevelNode | None = None
        self.keys: object = _NO_KEY

    def is_empty(self) -> bool:
        return (
            self.keys is _NO_KEY
            and self.children is None
            and self.plus is None
            and self.hash is None
        )


class _HashNode(_LevelNode):
    __slots__ = ()
    loops = True


def _level_child(node: _LevelNode, level: str, create: bool) -> _LevelNode | None:
    if level == MULTI_LEVEL:
        if node.hash is None and create:
            node.hash = _HashNode()
        return node.hash
    if level == SINGLE_LEVEL:
        if node.plus is None and create:
            node.plus = _LevelNode()
        return node.plus
    child = node.children.get(level) if node.children is not None else None
    if child is None and create:
        if node.children is None:
            node.children = {}
        child = node.children[sys.intern(level)] = _LevelNode()
    return child


def _detach_level(parent: _LevelNode, level: str) -> None:
    if level == MULTI_LEVEL:
        parent.hash = None
    elif level == SINGLE_LEVEL:
        parent.plus = None
    elif parent.children is not None:
        del parent.children[level]
        if not parent.children:
            parent.children = None


def _match_levels(root: _LevelNode, levels: list[str], out: set[object]) -> None:
    """Advance the set of active nodes one topic level at a time (reference §7.2 rules):
    a literal child on an equal level, ``+`` on any level (an empty one too), a ``#`` node
    on any level while staying put; entering a node also enters its ``#`` child (``#``
    matches zero levels). Nodes are deduplicated only when a ``#`` node was active, the
    only way one node can be reached twice."""
    states = [root]
    hash_node = root.hash
    while hash_node is not None:
        states.append(hash_node)
        hash_node = hash_node.hash
    for level in levels:
        advanced: list[_LevelNode] = []
        looped = False
        for node in states:
            children = node.children
            if children is not None:
                child = children.get(level)
                if child is not None:
                    advanced.append(child)
            if node.plus is not None:
                advanced.append(node.plus)
            if node.loops:
                advanced.append(node)
                looped = True
        if not advanced:
            return
        states = []
        for node in advanced:
            states.append(node)
            hash_node = node.hash
            while hash_node is not None:
                states.append(hash_node)
                hash_node = hash_node.hash
                looped = True
        if looped:
            states = list(dict.fromkeys(states))
    for node in states:
        keys = node.keys
        if keys is not _NO_KEY:
            if type(keys) is _KeyBag:
                out.update(keys)
            else:
                out.add(keys)


# --------------------------------------------------------------------------------------
# CHAR scheme: literal prefix levels → head → tail → anchor → middle check
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _CharShape:
    """How a wildcard character-scheme filter is indexed (derived from its tokens)."""

    prefix_levels: tuple[str, ...]  # complete literal levels before the first wildcard
    head: str  # rest of the literal prefix, inside the next level
    tail: str  # literal suffix after the last wildcard
    anchor: str | None  # a complete literal level enclosed by wildcards, if any
    middle_regex: str | None  # None when the middle has no literal characters
    middle_length: int  # number of `?` in the middle
    open_ended: bool  # the middle has a `*`

    @classmethod
    def of(cls, flt: TopicFilter) -> _CharShape:
        tokens = flt.char_tokens()
        first = next(i for i, token in enumerate(tokens) if token.wildcard)
        last = max(i for i, token in enumerate(tokens) if token.wildcard)
        prefix = tokens[0].text if first == 1 else ""
        tail = tokens[-1].text if last == len(tokens) - 2 else ""
        *prefix_levels, head = prefix.split(LEVEL_SEPARATOR)
        middle = tokens[first : last + 1]
        literal_runs = [token.text for token in middle if not token.wildcard]
        return cls(
            prefix_levels=tuple(prefix_levels),
            head=head,
            tail=tail,
            anchor=_pick_anchor(literal_runs),
            middle_regex="".join(
                (".*" if token.text == ANY_CHARS else ".")
                if token.wildcard
                else re.escape(token.text)
                for token in middle
            )
            if literal_runs
            else None,
            middle_length=sum(1 for token in middle if token.wildcard and token.text != "*"),
            open_ended=any(token.text == ANY_CHARS for token in middle if token.wildcard),
        )


def _pick_anchor(literal_runs: list[str]) -> str | None:
    """The longest non-empty level that a middle literal run holds whole (``/x/``): a topic
    the filter matches must contain it as one of its levels."""
    candidates = [
        level for run in literal_runs for level in run.split(LEVEL_SEPARATOR)[1:-1] if level
    ]
    return max(candidates, key=len) if candidates else None


class _CharEntry:
    """One distinct wildcard filter text and its subscriptions."""

    __slots__ = ("keys", "length", "open_ended", "regex")

    def __init__(self, shape: _CharShape) -> None:
        self.keys: object = _NO_KEY
        self.regex = (
            re.compile(shape.middle_regex, re.DOTALL) if shape.middle_regex is not None else None
        )
        self.length = shape.middle_length
        self.open_ended = shape.open_ended


class _TailGroup:
    """Entries with the same prefix and tail; those with an anchor are keyed by it."""

    __slots__ = ("anchored", "plain")

    def __init__(self) -> None:
        self.plain: list[_CharEntry] | None = None
        self.anchored: dict[str, list[_CharEntry]] | None = None


class _Bucket:
    """Entries at one prefix node with the same head, grouped by tail."""

    __slots__ = ("tail_lengths", "tails")

    def __init__(self) -> None:
        self.tails: dict[str, _TailGroup] = {}
        self.tail_lengths: tuple[int, ...] = ()


class _CharNode:
    __slots__ = ("buckets", "children", "head_lengths")

    def __init__(self) -> None:
        self.children: dict[str, _CharNode] | None = None
        self.buckets: dict[str, _Bucket] | None = None
        self.head_lengths: tuple[int, ...] = ()

    def is_empty(self) -> bool:
        return self.children is None and self.buckets is None


def _lengths(keys: Iterable[str]) -> tuple[int, ...]:
    return tuple(sorted({len(key) for key in keys}))


def _check_entries(
    entries: list[_CharEntry], text: str, start: int, end: int, out: set[object]
) -> None:
    """``text[start:end]`` is what the middle of each entry must match."""
    span = end - start
    for entry in entries:
        regex = entry.regex
        if regex is None:
            if span != entry.length and not (entry.open_ended and span > entry.length):
                continue
        elif regex.fullmatch(text, start, end) is None:
            continue
        keys = entry.keys
        if type(keys) is _KeyBag:
            out.update(keys)
        else:
            out.add(keys)


def _match_chars(root: _CharNode, text: str, levels: list[str], out: set[object]) -> None:
    node: _CharNode | None = root
    offset = 0  # where levels[index] starts in text
    size = len(text)
    for level in levels:
        assert node is not None
        buckets = node.buckets
        if buckets is not None:
            for head_length in node.head_lengths:
                if head_length > len(level):
                    break
                bucket = buckets.get(level[:head_length])
                if bucket is None:
                    continue
                start = offset + head_length
                for tail_length in bucket.tail_lengths:
                    end = size - tail_length
                    if end < start:
                        break
                    group = bucket.tails.get(text[end:])
                    if group is None:
                        continue
                    if group.plain is not None:
                        _check_entries(group.plain, text, start, end, out)
                    anchored = group.anchored
                    if anchored is not None:
                        for topic_level in set(levels):
                            entries = anchored.get(topic_level)
                            if entries is not None:
                                _check_entries(entries, text, start, end, out)
        children = node.children
        if children is None:
            return
        node = children.get(level)
        if node is None:
            return
        offset += len(level) + 1


class _CharIndex:
    """All character-scheme filters of one namespace."""

    __slots__ = ("entries", "exact", "root")

    def __init__(self) -> None:
        self.exact: dict[str, object] = {}  # literal topic → keys
        self.entries: dict[str, _CharEntry] = {}  # wildcard filter text → entry
        self.root = _CharNode()

    def is_empty(self) -> bool:
        return not self.exact and not self.entries

    def add(self, flt: TopicFilter, key: object) -> None:
        if not flt.has_wildcards:
            literal = "".join(token.text for token in flt.char_tokens())
            self.exact[literal] = _hold(self.exact.get(literal, _NO_KEY), key)
            return
        entry = self.entries.get(flt.text)
        if entry is None:
            shape = _CharShape.of(flt)
            entry = self.entries[flt.text] = _CharEntry(shape)
            self._place(shape, entry)
        entry.keys = _hold(entry.keys, key)

    def remove(self, flt: TopicFilter, key: object) -> None:
        if not flt.has_wildcards:
            literal = "".join(token.text for token in flt.char_tokens())
            remaining = _release(self.exact[literal], key)
            if remaining is _NO_KEY:
                del self.exact[literal]
            else:
                self.exact[literal] = remaining
            return
        entry = self.entries[flt.text]
        entry.keys = _release(entry.keys, key)
        if entry.keys is _NO_KEY:
            del self.entries[flt.text]
            self._unplace(_CharShape.of(flt), entry)

    def _place(self, shape: _CharShape, entry: _CharEntry) -> None:
        node = self.root
        for level in shape.prefix_levels:
            if node.children is None:
                node.children = {}
            child = node.children.get(level)
            if child is None:
                child = node.children[sys.intern(level)] = _CharNode()
            node = child
        if node.buckets is None:
            node.buckets = {}
        bucket = node.buckets.get(shape.head)
        if bucket is None:
            bucket = node.buckets[shape.head] = _Bucket()
            node.head_lengths = _lengths(node.buckets)
        group = bucket.tails.get(shape.tail)
        if group is None:
            group = bucket.tails[shape.tail] = _TailGroup()
            bucket.tail_lengths = _lengths(bucket.tails)
        if shape.anchor is None:
            if group.plain is None:
                group.plain = []
            group.plain.append(entry)
        else:
            if group.anchored is None:
                group.anchored = {}
            group.anchored.setdefault(sys.intern(shape.anchor), []).append(entry)

    def _unplace(self, shape: _CharShape, entry: _CharEntry) -> None:
        path: list[tuple[_CharNode, str]] = []
        node = self.root
        for level in shape.prefix_levels:
            assert node.children is not None
            path.append((node, level))
            node = node.children[level]
        assert node.buckets is not None
        bucket = node.buckets[shape.head]
        group = bucket.tails[shape.tail]
        if shape.anchor is None:
            assert group.plain is not None
            group.plain.remove(entry)
            if not group.plain:
                group.plain = None
        else:
            assert group.anchored is not None
            entries = group.anchored[shape.anchor]
            entries.remove(entry)
            if not entries:
                del group.anchored[shape.anchor]
                if not group.anchored:
                    group.anchored = None
        if group.plain is None and group.anchored is None:
            del bucket.tails[shape.tail]
            bucket.tail_lengths = _lengths(bucket.tails)
            if not bucket.tails:
                del node.buckets[shape.head]
                node.head_lengths = _lengths(node.buckets)
                if not node.buckets:
                    node.buckets = None
        while path and node.is_empty():
            parent, level = path.pop()
            assert parent.children is not None
            del parent.children[level]
            if not parent.children:
                parent.children = None
            node = parent

    def match(self, text: str, levels: list[str], out: set[object]) -> None:
        _collect(self.exact.get(text, _NO_KEY), out)
        if self.entries:
            _match_chars(self.root, text, levels, out)


# --------------------------------------------------------------------------------------
# The index
# --------------------------------------------------------------------------------------


class _Space:
    """Everything subscribed in one namespace."""

    __slots__ = ("chars", "levels")

    def __init__(self) -> None:
        self.levels = _LevelNode()
        self.chars = _CharIndex()

    def is_empty(self) -> bool:
        return self.levels.is_empty() and self.chars.is_empty()


class SubscriptionIndex(Generic[K]):
    """Subscriptions by key (chosen by the engine), matched per publication.

    ``add`` with a key that is already present replaces its subscription (a re-registration
    that changed the topic); ``remove`` of an unknown key raises KeyError, as ``set.remove``.
    """

    __slots__ = ("_spaces", "_subscriptions")

    def __init__(self) -> None:
        self._subscriptions: dict[K, tuple[Namespace, TopicFilter]] = {}
        self._spaces: dict[Namespace, _Space] = {}

    def __len__(self) -> int:
        return len(self._subscriptions)

    def __contains__(self, key: object) -> bool:
        return key in self._subscriptions

    def __iter__(self) -> Iterator[K]:
        return iter(self._subscriptions)

    def subscription(self, key: K) -> tuple[Namespace, TopicFilter]:
        return self._subscriptions[key]

    def add(self, key: K, namespace: Namespace, flt: TopicFilter) -> None:
        if key in self._subscriptions:
            self.remove(key)
        space = self._spaces.get(namespace)
        if space is None:
            space = self._spaces[namespace] = _Space()
        if flt.scheme is Scheme.TOPIC:
            node = space.levels
            for level in flt.levels:
                child = _level_child(node, level, create=True)
                assert child is not None
                node = child
            node.keys = _hold(node.keys, key)
        else:
            space.chars.add(flt, key)
        self._subscriptions[key] = (namespace, flt)

    def remove(self, key: K) -> None:
        namespace, flt = self._subscriptions.pop(key)
        space = self._spaces[namespace]
        if flt.scheme is Scheme.TOPIC:
            path: list[tuple[_LevelNode, str]] = []
            node = space.levels
            for level in flt.levels:
                child = _level_child(node, level, create=False)
                assert child is not None
                path.append((node, level))
                node = child
            node.keys = _release(node.keys, key)
            while path and node.is_empty():
                parent, level = path.pop()
                _detach_level(parent, level)
                node = parent
        else:
            space.chars.remove(flt, key)
        if space.is_empty():
            del self._spaces[namespace]

    def match(self, namespace: Namespace, topic: TopicString) -> set[K]:
        """The keys of every subscription in ``namespace`` whose filter selects ``topic``."""
        out: set[object] = set()
        space = self._spaces.get(namespace)
        if space is not None:
            text = topic.text
            levels = text.split(LEVEL_SEPARATOR)
            _match_levels(space.levels, levels, out)
            space.chars.match(text, levels, out)
        return cast("set[K]", out)


class NaiveIndex(Generic[K]):
    """The oracle: same API as SubscriptionIndex, ``matches()`` against every subscription."""

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

    def add(self, key: K, namespace: Namespace, flt: TopicFilter) -> None:
        self._subscriptions[key] = (namespace, flt)

    def remove(self, key: K) -> None:
        del self._subscriptions[key]

    def match(self, namespace: Namespace, topic: TopicString) -> set[K]:
        return {
            key
            for key, (space, flt) in self._subscriptions.items()
            if space == namespace and matches(flt, topic)
        }


__all__ = ["NaiveIndex", "SubscriptionIndex"]
