"""Adding a subscription's filter to a namespace's trie and taking it out again.

A TOPIC filter is a path of whole levels (``+`` and ``#`` as wildcard edges); a filter
without wildcards is a key of the namespace's ``exact`` dict; a CHAR wildcard filter is
placed by its shape (``CharShape``): under the node of its complete literal levels, in the
bucket of its head, the group of its tail, under its anchor. Removing one prunes whatever
it leaves empty, so an index that had filters added and removed is the index of those left
(bounds of spans only widen: still true, maybe loose).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from mqkafka.engine.matchtrie import (
    NO_KEY,
    CharBucket,
    CharBuckets,
    CharEntries,
    CharEntry,
    CharGroup,
    KeyBag,
    NamespaceTrie,
    SharedSizes,
    TrieNode,
    level_dict,
)
from mqkafka.mq.topics import (
    ANY_CHARS,
    LEVEL_SEPARATOR,
    MULTI_LEVEL,
    ONE_CHAR,
    SINGLE_LEVEL,
    CharToken,
    Scheme,
    TopicFilter,
)

# --------------------------------------------------------------------------------------
# Adding and removing a filter
# --------------------------------------------------------------------------------------


def add_filter(space: NamespaceTrie, flt: TopicFilter, key: object) -> None:
    """Hold ``key`` under ``flt`` in ``space``."""
    topic = flt.exact_topic
    if topic is not None:
        space.exact[topic] = _hold(space.exact.get(topic, NO_KEY), key)
    elif flt.scheme is Scheme.TOPIC:
        node = space.root
        for level in flt.levels:
            child = _child(node, level, create=True)
            assert child is not None
            node = child
        node.keys = _hold(node.keys, key)
    else:
        entry = space.char_entries.get(flt.text)
        if entry is None:
            entry = space.char_entries[flt.text] = _place(space, CharShape.of(flt))
        entry.keys = _hold(entry.keys, key)


def remove_filter(space: NamespaceTrie, flt: TopicFilter, key: object) -> None:
    """Let go of ``key`` under ``flt`` (held there), pruning what is left empty."""
    topic = flt.exact_topic
    if topic is not None:
        remaining = _release(space.exact[topic], key)
        if remaining is NO_KEY:
            del space.exact[topic]
        else:
            space.exact[topic] = remaining
    elif flt.scheme is Scheme.TOPIC:
        node, path = _path(space, flt.levels, literal=False)
        node.keys = _release(node.keys, key)
        _prune(node, path, literal=False)
    else:
        entry = space.char_entries[flt.text]
        entry.keys = _release(entry.keys, key)
        if entry.keys is NO_KEY:
            del space.char_entries[flt.text]
            _unplace(space, CharShape.of(flt), entry)


def _hold(current: object, key: object) -> object:
    if current is NO_KEY:
        return key
    if type(current) is KeyBag:
        current.add(key)
        return current
    return KeyBag((current, key))


def _release(current: object, key: object) -> object:
    if type(current) is KeyBag:
        current.discard(key)
        return next(iter(current)) if len(current) == 1 else current
    return NO_KEY


def _place(space: NamespaceTrie, shape: CharShape) -> CharEntry:
    node = space.root
    for level in shape.prefix_levels:
        child = _literal_child(node, level, create=True)
        assert child is not None
        node = child
    chars = node.buckets
    if chars is None:
        bucket = node.buckets = CharBucket(shape.head)
    elif type(chars) is CharBucket:
        if chars.head == shape.head:
            bucket = chars
        else:
            bucket = CharBucket(shape.head)
            chars = node.buckets = _buckets_of((chars, bucket), space.sizes)
    else:
        assert type(chars) is CharBuckets
        found = chars.by_head.get(shape.head)
        bucket = found if found is not None else CharBucket(shape.head)
        chars.by_head[bucket.head] = bucket
    bucket.spans = _spans_with(
        bucket.spans, (shape.tail_count,), shape.span_min, shape.span_max, space.sizes
    )
    if type(chars) is CharBuckets:
        _widen_heads(chars, bucket, space.sizes)
    entry = CharEntry(shape.middle_regex, shape.middle_length, shape.open_ended)
    _group_add(_group_of(bucket, shape.tail, space.sizes), shape.anchor, entry)
    return entry


def _unplace(space: NamespaceTrie, shape: CharShape, entry: CharEntry) -> None:
    node, path = _path(space, shape.prefix_levels, literal=True)
    chars = node.buckets
    if type(chars) is CharBucket:
        if _bucket_discard(chars, shape.tail, shape.anchor, entry, space.sizes):
            node.buckets = None
    else:
        assert type(chars) is CharBuckets
        buckets = chars.by_head
        if _bucket_discard(buckets[shape.head], shape.tail, shape.anchor, entry, space.sizes):
            del buckets[shape.head]
            if len(buckets) == 1:
                node.buckets = next(iter(buckets.values()))
            else:
                lengths = _sizes_after_removal(tuple(head[0] for head in chars.heads), buckets, len)
                chars.heads = tuple(head for head in chars.heads if head[0] in lengths)
    _prune(node, path, literal=True)


def _path(
    space: NamespaceTrie, levels: Iterable[str], literal: bool
) -> tuple[TrieNode, list[tuple[TrieNode, str]]]:
    """The node of a filter's levels (read literally for a CHAR prefix) and its parents."""
    path: list[tuple[TrieNode, str]] = []
    node = space.root
    for level in levels:
        child = _literal_child(node, level, False) if literal else _child(node, level, False)
        assert child is not None
        path.append((node, level))
        node = child
    return node, path


def _prune(node: TrieNode, path: list[tuple[TrieNode, str]], literal: bool) -> None:
    while path and node.is_empty():
        parent, level = path.pop()
        _detach(parent, level, literal)
        node = parent


# --------------------------------------------------------------------------------------
# Trie nodes
# --------------------------------------------------------------------------------------


def _child(node: TrieNode, level: str, create: bool) -> TrieNode | None:
    """The node one filter level down; ``#`` and ``+`` are the wildcard edges."""
    if level == MULTI_LEVEL:
        if node.hash is None and create:
            node.hash = TrieNode()
        return node.hash
    if level == SINGLE_LEVEL:
        if node.plus is None and create:
            node.plus = TrieNode()
        return node.plus
    return _literal_child(node, level, create)


def _literal_child(node: TrieNode, level: str, create: bool) -> TrieNode | None:
    children = node.children
    if children is None:
        child = None
    elif type(children) is TrieNode:
        child = children if children.level == level else None
    else:
        child = children.get(level)
    if child is None and create:
        child = TrieNode(sys.intern(level))
        if children is None:
            node.children = child
        elif type(children) is TrieNode:
            node.children = level_dict((children.level, children), (child.level, child))
        else:
            children[child.level] = child
    return child


def _detach(node: TrieNode, level: str, literal: bool) -> None:
    if not literal and level == MULTI_LEVEL:
        node.hash = None
    elif not literal and level == SINGLE_LEVEL:
        node.plus = None
    elif type(node.children) is TrieNode:
        assert node.children.level == level
        node.children = None
    else:
        assert node.children is not None
        del node.children[level]
        if len(node.children) == 1:
            node.children = next(iter(node.children.values()))


# --------------------------------------------------------------------------------------
# CHAR filters: shape, buckets, groups, entries
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CharShape:
    """Where a wildcard character-scheme filter sits in the index and what is left to check.

    ``A/B/hd*mid?x/T1/T2`` has prefix levels ``A``, ``B``, head ``hd``, tail ``T1/T2`` (the
    complete levels after the last wildcard) and middle ``*mid?x`` (everything between).
    """

    prefix_levels: tuple[str, ...]  # complete literal levels before the first wildcard
    head: str  # the rest of the literal prefix: the start of the next level
    tail: str | None  # complete literal levels at the end, joined; None if there are none
    anchor: str | None  # a complete literal level the wildcards enclose
    middle_regex: str | None  # None when the middle holds wildcards only
    middle_length: int  # how many `?` the middle holds
    open_ended: bool  # whether the middle holds a `*`
    tail_count: int  # how many levels the tail has (0 without one)
    span_min: int  # the fewest characters a matching topic has between head and tail
    span_max: int  # the most (sys.maxsize when the middle holds a `*`)

    @classmethod
    def of(cls, flt: TopicFilter) -> CharShape:
        tokens = flt.char_tokens()
        first = next(i for i, token in enumerate(tokens) if token.wildcard)
        last = max(i for i, token in enumerate(tokens) if token.wildcard)
        prefix = tokens[0].text if first == 1 else ""
        suffix = tokens[-1].text if last == len(tokens) - 2 else ""
        *prefix_levels, head = prefix.split(LEVEL_SEPARATOR)
        middle = list(tokens[first : last + 1])
        tail = None
        if LEVEL_SEPARATOR in suffix:
            # the end of the level before the tail belongs to the middle
            suffix, tail = suffix.split(LEVEL_SEPARATOR, 1)
        if suffix:
            middle.append(CharToken(suffix, wildcard=False))
        wildcards = [token.text for token in middle if token.wildcard]
        literal_runs = [token.text for token in middle if not token.wildcard]
        regex = "".join(
            (".*" if token.text == ANY_CHARS else ".") if token.wildcard else re.escape(token.text)
            for token in middle
        )
        # every character after the head is the middle's (one per `?` or literal character,
        # any number per `*`), then `/` and the tail
        span_min = sum(map(len, literal_runs)) + wildcards.count(ONE_CHAR)
        open_ended = ANY_CHARS in wildcards
        return cls(
            prefix_levels=tuple(prefix_levels),
            head=head,
            tail=tail,
            anchor=_pick_anchor(literal_runs),
            middle_regex=regex if literal_runs else None,
            middle_length=wildcards.count(ONE_CHAR),
            open_ended=open_ended,
            tail_count=0 if tail is None else _tail_size(tail),
            span_min=span_min,
            span_max=sys.maxsize if open_ended else span_min,
        )


def _pick_anchor(literal_runs: list[str]) -> str | None:
    """The longest non-empty level a middle literal run holds whole (``/x/``): any topic
    the filter matches has it as one of its levels."""
    candidates = [
        level for run in literal_runs for level in run.split(LEVEL_SEPARATOR)[1:-1] if level
    ]
    return max(candidates, key=len) if candidates else None


_SMALL = 16  # up to this many entries are a tuple (one object to fetch, not two)


def _with_entry(entries: CharEntries | None, entry: CharEntry) -> CharEntries:
    if entries is None:
        return (entry,)
    if type(entries) is list:
        entries.append(entry)
        return entries
    return (*entries, entry) if len(entries) < _SMALL else [*entries, entry]


def _without_entry(entries: CharEntries, entry: CharEntry) -> CharEntries | None:
    left = [other for other in entries if other is not entry]
    assert len(left) == len(entries) - 1
    if not left:
        return None
    return tuple(left) if len(left) <= _SMALL else left


def _group_add(group: CharGroup, anchor: str | None, entry: CharEntry) -> None:
    if anchor is None:
        group.plain = _with_entry(group.plain, entry)
    else:
        if group.anchored is None:
            group.anchored = level_dict()
        anchor = sys.intern(anchor)
        group.anchored[anchor] = _with_entry(group.anchored.get(anchor), entry)


def _group_discard(group: CharGroup, anchor: str | None, entry: CharEntry) -> None:
    if anchor is None:
        assert group.plain is not None
        group.plain = _without_entry(group.plain, entry)
    else:
        assert group.anchored is not None
        entries = _without_entry(group.anchored[anchor], entry)
        if entries is None:
            del group.anchored[anchor]
        else:
            group.anchored[anchor] = entries
        group.anchored = group.anchored or None


def _group_of(bucket: CharBucket, tail: str | None, shared: SharedSizes) -> CharGroup:
    """The bucket's group of filters with ``tail`` (the bucket itself without one)."""
    if tail is None:
        return bucket
    tails = bucket.tails
    if tails is None:
        group = None
    elif isinstance(tails, CharGroup):
        group = tails if tails.tail == tail else None
    else:
        group = tails.get(tail)
    if group is None:
        group = CharGroup(sys.intern(tail))
        if tails is None:
            bucket.tails = group
        elif isinstance(tails, CharGroup):
            assert tails.tail is not None
            bucket.tails = level_dict((tails.tail, tails), (tail, group))
        else:
            tails[tail] = group
        bucket.tail_counts = _shared(_sizes_with(bucket.tail_counts, _tail_size(tail)), shared)
    return group


def _bucket_discard(
    bucket: CharBucket,
    tail: str | None,
    anchor: str | None,
    entry: CharEntry,
    shared: SharedSizes,
) -> bool:
    """Remove the entry; True when the bucket is left empty."""
    group = _group_of(bucket, tail, shared)
    _group_discard(group, anchor, entry)
    if tail is not None and group.is_empty():
        tails = bucket.tails
        assert tails is not None
        if isinstance(tails, CharGroup):
            bucket.tails = None
            bucket.tail_counts = ()
        else:
            del tails[tail]
            bucket.tail_counts = _shared(
                _sizes_after_removal(bucket.tail_counts, tails, _tail_size), shared
            )
            if len(tails) == 1:
                bucket.tails = next(iter(tails.values()))
    return bucket.is_empty() and bucket.tails is None


def _buckets_of(buckets: Iterable[CharBucket], shared: SharedSizes) -> CharBuckets:
    chars = CharBuckets()
    for bucket in buckets:
        chars.by_head[bucket.head] = bucket
        _widen_heads(chars, bucket, shared)
    return chars


def _widen_heads(chars: CharBuckets, bucket: CharBucket, shared: SharedSizes) -> None:
    for tail_count, low, high in bucket.spans:
        chars.heads = _spans_with(chars.heads, (len(bucket.head), tail_count), low, high, shared)


def _tail_size(tail: str) -> int:
    return tail.count(LEVEL_SEPARATOR) + 1


def _sizes_with(sizes: tuple[int, ...], size: int) -> tuple[int, ...]:
    return sizes if size in sizes else tuple(sorted((*sizes, size)))


def _spans_with(
    spans: tuple[tuple[int, ...], ...],
    where: tuple[int, ...],
    low: int,
    high: int,
    shared: SharedSizes,
) -> tuple[tuple[int, ...], ...]:
    """``spans`` (sorted tuples of ``where`` then the bounds of a span) with the bounds at
    ``where`` widened to take in another filter's."""
    width = len(where)
    others = [span for span in spans if span[:width] != where]
    for span in spans:
        if span[:width] == where:
            low, high = min(span[width], low), max(span[width + 1], high)
    return tuple(sorted((*others, _shared((*where, low, high), shared))))


def _shared(sizes: tuple[int, ...], shared: SharedSizes) -> tuple[int, ...]:
    """One object per distinct tuple of small numbers (tail sizes, head bounds): many nodes
    hold the same, and a shared one stays in the CPU caches where one per node would not."""
    return shared.setdefault(sizes, sizes)


def _sizes_after_removal(
    sizes: tuple[int, ...], keys: dict[str, Any], size_of: Callable[[str], int]
) -> tuple[int, ...]:
    """The sorted distinct sizes of the keys, for lookups by size. Recounting is O(keys), so
    big dicts keep their sizes: one no key has any more only costs a lookup that misses."""
    if len(keys) <= 32:
        return tuple(sorted({size_of(key) for key in keys}))
    return sizes


__all__ = ["CharShape", "add_filter", "remove_filter"]
