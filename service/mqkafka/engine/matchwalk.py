"""Matching a topic against a namespace's trie: the keys of every filter that selects it.

The exact filters are one dict lookup. Then the topic runs through the trie as a set of
active nodes, one step per level (an NFA, no backtracking); at the node its levels reach read
literally, the CHAR buckets whose head the next level starts with are checked, first by the
bounds of what a topic has between head and tail, then group by tail, anchor, entry.

This is the code every publication runs: checks a helper function would hold are written
out in place where a call costs more than the work (collecting a holder's keys, finding a
lone child or a lone tail group held as itself or in a dict).
"""

from __future__ import annotations

import sys

from mqkafka.engine.matchtrie import (
    NO_KEY,
    CharBucket,
    CharBuckets,
    CharEntries,
    CharGroup,
    KeyBag,
    NamespaceTrie,
    TrieNode,
)
from mqkafka.mq.topics import LEVEL_SEPARATOR


def match_topic(space: NamespaceTrie, text: str, out: set[object]) -> None:
    """Add to ``out`` the keys of every filter in ``space`` that selects the topic ``text``."""
    keys = space.exact.get(text, NO_KEY)
    if keys is not NO_KEY:
        if type(keys) is KeyBag:
            out.update(keys)
        else:
            out.add(keys)
    _walk(space.root, text, text.split(LEVEL_SEPARATOR), out)


def _walk(root: TrieNode, text: str, levels: list[str], out: set[object]) -> None:
    """Run the topic through the trie, one level at a time (reference §7.2 rules for TOPIC
    filters: a literal child on an equal level, ``+`` on any level, an empty one too).

    ``literal`` is the node the topic's levels reach read literally, the only one that can
    hold CHAR buckets; ``others`` are the nodes reached through a ``+`` or a ``#``. Each
    node has one parent, so no node is ever active twice."""
    literal: TrieNode | None = root
    others: list[TrieNode] = []
    loopers: list[TrieNode] = []  # active `#` nodes with filter levels after them
    if root.hash is not None:
        _enter_hashes(root, loopers, out)
    offset = 0  # where `level` starts in text
    tail_lengths: tuple[int, ...] | None = None  # once a bucket needs them
    for level in levels:
        advanced: list[TrieNode] = []
        # `#` nodes entered while reading this level start consuming at the next one
        active = others + loopers if loopers else others
        if literal is not None:
            chars = literal.buckets
            if chars is not None:
                if tail_lengths is None:
                    tail_lengths = _tail_lengths(levels)
                if type(chars) is CharBucket:  # one head: checked here, a call less
                    if level.startswith(chars.head):
                        start = offset + len(chars.head)
                        span = len(text) - start  # after the head, tail included
                        for tail_count, low, high in chars.spans:
                            if tail_count < 3:
                                tail = tail_lengths[tail_count]
                            else:
                                tail = _tail_length(levels, tail_count)
                            if low <= span - tail <= high:
                                _collect_bucket(chars, start, text, levels, tail_lengths, out)
                                break
                else:
                    _collect_buckets(chars, level, offset, text, levels, tail_lengths, out)
            offset += len(level) + 1
            plus = literal.plus
            if plus is not None:
                advanced.append(plus)
                if plus.hash is not None:
                    _enter_hashes(plus, loopers, out)
            children = literal.children
            if children is None:
                literal = None
            elif type(children) is TrieNode:
                literal = children if children.level == level else None
            else:
                literal = children.get(level)
            if literal is not None and literal.hash is not None:
                _enter_hashes(literal, loopers, out)
        for node in active:
            children = node.children
            if children is not None:
                if type(children) is TrieNode:
                    child = children if children.level == level else None
                else:
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
        if literal is None and not advanced and not loopers:
            return
        others = advanced
    if literal is not None:
        others.append(literal)
    for node in others:
        keys = node.keys
        if keys is not NO_KEY:
            if type(keys) is KeyBag:
                out.update(keys)
            else:
                out.add(keys)


def _enter_hashes(node: TrieNode, loopers: list[TrieNode], out: set[object]) -> None:
    """Enter ``node``'s chain of ``#`` children (``a/#/#``): collect their keys, and keep
    active those with filter levels after them. A chain already active is so to its end."""
    hash_node = node.hash
    while hash_node is not None and hash_node not in loopers:
        keys = hash_node.keys
        if keys is not NO_KEY:
            if type(keys) is KeyBag:
                out.update(keys)
            else:
                out.add(keys)
        if hash_node.children is not None or hash_node.plus is not None:
            loopers.append(hash_node)
        hash_node = hash_node.hash


def _collect_buckets(
    chars: CharBuckets,
    level: str,
    offset: int,
    text: str,
    levels: list[str],
    tail_lengths: tuple[int, ...],
    out: set[object],
) -> None:
    """The CHAR filters of a node with several heads, for a topic whose next level is
    ``level`` (starting at ``offset``): by head, then without a tail or by tail. A bucket is
    only visited when what the topic has between head and tail, for some number of tail
    levels of its filters, fits their bounds. (A node with one head is checked in
    ``_walk``.)"""
    rest = len(text) - offset  # what the topic has left from this level on
    level_length = len(level)
    buckets = chars.by_head
    looked = -1
    for head_length, tail_count, low, high in chars.heads:
        if head_length > level_length:
            break
        if head_length == looked:
            continue
        tail = tail_lengths[tail_count] if tail_count < 3 else _tail_length(levels, tail_count)
        if not low <= rest - head_length - tail <= high:
            continue
        looked = head_length
        bucket = buckets.get(level[:head_length])
        if bucket is not None:
            _collect_bucket(bucket, offset + head_length, text, levels, tail_lengths, out)


def _tail_lengths(levels: list[str]) -> tuple[int, int, int]:
    """``_tail_length`` of 0, 1 and 2 levels, the usual numbers of tail levels."""
    count = len(levels)
    if count <= 1:
        return (0, sys.maxsize, sys.maxsize)
    last = len(levels[-1]) + 1
    return (0, last, last + len(levels[-2]) + 1 if count > 2 else sys.maxsize)


def _tail_length(levels: list[str], count: int) -> int:
    """The characters the last ``count`` levels take with the `/` before them; more than
    the whole topic when it has no level before them (a tail needs one)."""
    if count == 0:
        return 0
    if count == 1:
        return len(levels[-1]) + 1 if len(levels) > 1 else sys.maxsize
    if count >= len(levels):
        return sys.maxsize
    return sum(map(len, levels[-count:])) + count


def _collect_bucket(
    bucket: CharBucket,
    start: int,
    text: str,
    levels: list[str],
    tail_lengths: tuple[int, ...],
    out: set[object],
) -> None:
    """A bucket whose head the topic has, up to ``start``."""
    size = len(text)
    if bucket.anchored is not None:
        _collect_group(bucket, text, start, size, levels, out)  # its plain entries too
    elif bucket.plain is not None:
        _check_entries(bucket.plain, text, start, size, out)
    tails = bucket.tails
    if tails is None:
        return
    for count in bucket.tail_counts:
        # where the last `count` levels start (far before the topic without a level before)
        tail_start = size + 1 - (tail_lengths[count] if count < 3 else _tail_length(levels, count))
        if tail_start <= start:  # the `/` before the tail must come after the head
            break
        tail = levels[-1] if count == 1 else text[tail_start:]
        if isinstance(tails, CharGroup):
            group = tails if tails.tail == tail else None
        else:
            group = tails.get(tail)
        if group is not None:
            _collect_group(group, text, start, tail_start - 1, levels, out)


def _collect_group(
    group: CharGroup, text: str, start: int, end: int, levels: list[str], out: set[object]
) -> None:
    """``text[start:end]`` is what each entry's middle must match."""
    if group.plain is not None:
        _check_entries(group.plain, text, start, end, out)
    anchored = group.anchored
    if anchored is not None:
        # an anchor has a `/` on each side: never the topic's first or last level; a
        # level met twice only checks its entries twice
        for level in levels[1:-1]:
            entries = anchored.get(level)
            if entries is not None:
                _check_entries(entries, text, start, end, out)


def _check_entries(entries: CharEntries, text: str, start: int, end: int, out: set[object]) -> None:
    span = end - start
    for entry in entries:
        regex = entry.regex
        if regex is None:
            if span != entry.length and not (entry.open_ended and span > entry.length):
                continue
        elif regex.fullmatch(text, start, end) is None:
            continue
        keys = entry.keys
        if type(keys) is KeyBag:
            out.update(keys)
        else:
            out.add(keys)


__all__ = ["match_topic"]
