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
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from mqkafka.mq.topics import (
    ANY_CHARS,
    LEVEL_SEPARATOR,
    MULTI_LEVEL,
    ONE_CHAR,
    SINGLE_LEVEL,
    CharToken,
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


def _level_child(node: _LevelNode, level: str, create: bool) -> _LevelNode | None:
    if level == MULTI_LEVEL:
        if node.hash is None and create:
            node.hash = _LevelNode()
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
    """Advance the active nodes one topic level at a time (reference §7.2 rules): a literal
    child on an equal level, ``+`` on any level (an empty one too).

    A ``#`` node matches whatever follows, so its keys are collected as soon as it is
    entered, which happens together with its parent (``#`` matches zero levels); it then
    stays active for good in ``loopers`` (it consumes any level) if filter levels follow
    it. Each trie node has one parent, so ``states`` never holds a node twice."""
    states = [root]
    loopers: list[_LevelNode] = []
    if root.hash is not None:
        _enter_hashes(root, loopers, out)
    for level in levels:
        advanced: list[_LevelNode] = []
        for node in states + loopers if loopers else states:
            children = node.children
            if children is not None:
                child = children.get(level)
                if child is not None:
                    advanced.append(child)
                    if child.hash is not None:
                        _enter_hashes(child, loopers, out)
            plus = node.plus
            if plus is not None:
                advanced.append(plus)
                if plus.hash is not None:
                    _enter_hashes(plus, loopers, out)
        if not advanced and not loopers:
            return
        states = advanced
    for node in states:
        keys = node.keys
        if keys is not _NO_KEY:
            if type(keys) is _KeyBag:
                out.update(keys)
            else:
                out.add(keys)


def _enter_hashes(node: _LevelNode, loopers: list[_LevelNode], out: set[object]) -> None:
    """Enter ``node``'s chain of ``#`` children (``a/#/#``): collect their keys, and keep
    those with levels after them active. A chain already active is active to its end."""
    hash_node = node.hash
    while hash_node is not None and hash_node not in loopers:
        _collect(hash_node.keys, out)
        if hash_node.children is not None or hash_node.plus is not None:
            loopers.append(hash_node)
        hash_node = hash_node.hash


# --------------------------------------------------------------------------------------
# CHAR scheme: literal prefix levels → head → tail → anchor → middle check
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _CharShape:
    """Where a wildcard character-scheme filter sits in the index, and what is left to check.

    ``A/B/hd*mid?x/T1/T2`` has prefix levels ``A``, ``B``, head ``hd``, tail ``T1/T2`` (the
    complete levels after the last wildcard) and middle ``*mid?x`` (everything between).
    """

    prefix_levels: tuple[str, ...]  # complete literal levels before the first wildcard
    head: str  # the rest of the literal prefix: the start of the next level
    tail: str | None  # complete literal levels at the end, joined; None if there are none
    anchor: str | None  # a complete literal level the wildcards enclose (`*/team-5/*`)
    middle_regex: str | None  # None when the middle holds wildcards only
    middle_length: int  # how many `?` the middle holds
    open_ended: bool  # whether the middle holds a `*`

    @classmethod
    def of(cls, flt: TopicFilter) -> _CharShape:
        tokens = flt.char_tokens()
        first = next(i for i, token in enumerate(tokens) if token.wildcard)
        last = max(i for i, token in enumerate(tokens) if token.wildcard)
        prefix = tokens[0].text if first == 1 else ""
        suffix = tokens[-1].text if last == len(tokens) - 2 else ""
        *prefix_levels, head = prefix.split(LEVEL_SEPARATOR)
        middle = list(tokens[first : last + 1])
        tail = None
        if LEVEL_SEPARATOR in suffix:
            piece, tail = suffix.split(LEVEL_SEPARATOR, 1)
            suffix = piece  # the end of the level before the tail belongs to the middle
        if suffix:
            middle.append(CharToken(suffix, wildcard=False))
        wildcards = [token.text for token in middle if token.wildcard]
        literal_runs = [token.text for token in middle if not token.wildcard]
        regex = "".join(
            (".*" if token.text == ANY_CHARS else ".") if token.wildcard else re.escape(token.text)
            for token in middle
        )
        return cls(
            prefix_levels=tuple(prefix_levels),
            head=head,
            tail=tail,
            anchor=_pick_anchor(literal_runs),
            middle_regex=regex if literal_runs else None,
            middle_length=wildcards.count(ONE_CHAR),
            open_ended=ANY_CHARS in wildcards,
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
        regex = shape.middle_regex
        self.regex = re.compile(regex, re.DOTALL) if regex is not None else None
        self.length = shape.middle_length
        self.open_ended = shape.open_ended


class _Group:
    """Entries with one prefix, head and tail; those with an anchor are keyed by it."""

    __slots__ = ("anchored", "plain")

    def __init__(self) -> None:
        self.plain: list[_CharEntry] | None = None
        self.anchored: dict[str, list[_CharEntry]] | None = None

    def add(self, anchor: str | None, entry: _CharEntry) -> None:
        if anchor is None:
            if self.plain is None:
                self.plain = []
            self.plain.append(entry)
        else:
            if self.anchored is None:
                self.anchored = {}
            self.anchored.setdefault(sys.intern(anchor), []).append(entry)

    def discard(self, anchor: str | None, entry: _CharEntry) -> bool:
        """Remove the entry; True when the group is left empty."""
        if anchor is None:
            assert self.plain is not None
            self.plain.remove(entry)
            self.plain = self.plain or None
        else:
            assert self.anchored is not None
            entries = self.anchored[anchor]
            entries.remove(entry)
            if not entries:
                del self.anchored[anchor]
            self.anchored = self.anchored or None
        return self.plain is None and self.anchored is None

    def collect(self, text: str, start: int, end: int, levels: list[str], out: set[object]) -> None:
        """``text[start:end]`` is what each entry's middle must match."""
        if self.plain is not None:
            _check_entries(self.plain, text, start, end, out)
        if self.anchored is not None:
            for level in set(levels):
                entries = self.anchored.get(level)
                if entries is not None:
                    _check_entries(entries, text, start, end, out)


class _Bucket:
    """Entries at one prefix node with the same head: one group without a tail, and groups
    keyed by their tail, looked up once per distinct number of tail levels."""

    __slots__ = ("open", "tail_counts", "tails")

    def __init__(self) -> None:
        self.open: _Group | None = None
        self.tails: dict[str, _Group] | None = None
        self.tail_counts: tuple[int, ...] = ()

    def group(self, tail: str | None) -> _Group:
        if tail is None:
            if self.open is None:
                self.open = _Group()
            return self.open
        if self.tails is None:
            self.tails = {}
        group = self.tails.get(tail)
        if group is None:
            group = self.tails[sys.intern(tail)] = _Group()
            self.tail_counts = _sizes_with(self.tail_counts, _tail_size(tail))
        return group

    def drop(self, tail: str | None) -> bool:
        """Forget an empty group; True when the bucket is left empty."""
        if tail is None:
            self.open = None
        else:
            assert self.tails is not None
            del self.tails[tail]
            self.tail_counts = _sizes_after_removal(self.tail_counts, self.tails, _tail_size)
            self.tails = self.tails or None
        return self.open is None and self.tails is None


class _CharNode:
    __slots__ = ("buckets", "children", "head_lengths")

    def __init__(self) -> None:
        self.children: dict[str, _CharNode] | None = None
        self.buckets: dict[str, _Bucket] | None = None
        self.head_lengths: tuple[int, ...] = ()

    def is_empty(self) -> bool:
        return self.children is None and self.buckets is None


def _head_size(head: str) -> int:
    return len(head)


def _tail_size(tail: str) -> int:
    return tail.count(LEVEL_SEPARATOR) + 1


def _sizes_with(sizes: tuple[int, ...], size: int) -> tuple[int, ...]:
    return sizes if size in sizes else tuple(sorted((*sizes, size)))


def _sizes_after_removal(
    sizes: tuple[int, ...], keys: dict[str, Any], size_of: Callable[[str], int]
) -> tuple[int, ...]:
    """The sorted distinct sizes of the keys, for lookups by size. Recounting is O(keys), so
    big dicts keep their sizes: one no key has any more only costs a lookup that misses."""
    if len(keys) <= 32:
        return tuple(sorted({size_of(key) for key in keys}))
    return sizes


def _check_entries(
    entries: list[_CharEntry], text: str, start: int, end: int, out: set[object]
) -> None:
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
    """Walk the prefix levels of the topic; at each node look up the heads that start the
    next level, then in each bucket the tails that end the topic."""
    size = len(text)
    tail_starts = [size]  # tail_starts[k]: where the last k levels start
    position = size
    for level in reversed(levels):
        position -= len(level)
        tail_starts.append(position)
        position -= 1
    last_count = len(levels) - 1  # a tail needs a level before it
    node = root
    offset = 0  # where `level` starts in text
    for level in levels:
        buckets = node.buckets
        if buckets is not None:
            for head_length in node.head_lengths:
                if head_length > len(level):
                    break
                bucket = buckets.get(level[:head_length])
                if bucket is None:
                    continue
                start = offset + head_length
                if bucket.open is not None:
                    bucket.open.collect(text, start, size, levels, out)
                tails = bucket.tails
                if tails is not None:
                    for count in bucket.tail_counts:
                        if count > last_count:
                            break
                        tail_start = tail_starts[count]
                        if tail_start - 1 < start:
                            break
                        group = tails.get(text[tail_start:])
                        if group is not None:
                            group.collect(text, start, tail_start - 1, levels, out)
        children = node.children
        if children is None:
            return
        child = children.get(level)
        if child is None:
            return
        node = child
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
                node.head_lengths = _sizes_with(node.head_lengths, len(shape.head))
            bucket.group(shape.tail).add(shape.anchor, entry)
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
        if entry.keys is not _NO_KEY:
            return
        del self.entries[flt.text]
        shape = _CharShape.of(flt)
        path: list[tuple[_CharNode, str]] = []
        node = self.root
        for level in shape.prefix_levels:
            assert node.children is not None
            path.append((node, level))
            node = node.children[level]
        assert node.buckets is not None
        bucket = node.buckets[shape.head]
        if bucket.group(shape.tail).discard(shape.anchor, entry) and bucket.drop(shape.tail):
            del node.buckets[shape.head]
            node.head_lengths = _sizes_after_removal(node.head_lengths, node.buckets, _head_size)
            node.buckets = node.buckets or None
        while path and node.is_empty():
            parent, level = path.pop()
            assert parent.children is not None
            del parent.children[level]
            parent.children = parent.children or None
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
