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
interpretation: each object it reads under a rare level (a team, a device) is one. So a
node's lone child and lone bucket are held as themselves rather than in a dict (two
objects), short entry lists are tuples (one object, not two) and small tuples of sizes
are shared between nodes.

Subscriptions with the same namespace and filter share one node or entry; a holder keeps
one key as it is and a set only from the second key on, because most filters are distinct.
Results are remembered per namespace and topic until that namespace's subscriptions change
(publishers repeat their topics). ``NaiveIndex`` is the oracle: the same API, ``matches()``
against every subscription.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeAlias, TypeVar, final

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
# Collecting a holder's keys (``out.update`` for a bag, ``out.add`` for one key), and finding
# a lone child or tail group held as itself or in a dict, are written out where a
# publication is matched: there a function call costs more than the work it would hold.


class _NoKey:
    """Marks an empty holder (a key may itself be None, so None cannot mean "no key")."""

    __slots__ = ()


_NO_KEY = _NoKey()


class _KeyBag(set[object]):
    """Two or more keys sharing one filter; a private type, never mistaken for a key."""

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


# --------------------------------------------------------------------------------------
# Dicts keyed by levels and topics
# --------------------------------------------------------------------------------------

_NOT_A_STR = object()


def _level_dict(*items: tuple[str, Any]) -> dict[Any, Any]:
    """A dict for str keys that keeps each key's hash beside it.

    CPython gives a dict whose keys are all exact str a compact table without hashes: each
    slot a lookup probes sends it to the key object for the hash, a cache miss of its own
    in a big index. A dict that has once held another key keeps the hashes in its table for
    good (through resizes), so probes compare hashes there and a key object is read only
    when its hash is the one looked for. Measured on the 200,000-subscription mix under
    cachegrind: L1 misses per publication 583 → 367, last-level 26.1 → 25.4, instructions
    +1.4%; 8 bytes more per entry."""
    table: dict[Any, Any] = {_NOT_A_STR: None}
    del table[_NOT_A_STR]
    for key, value in items:
        table[key] = value
    return table


# --------------------------------------------------------------------------------------
# The shared level trie
# --------------------------------------------------------------------------------------


@final
class _Node:
    """A filter prefix of whole levels. ``children``: literal levels; ``plus``/``hash``:
    TOPIC wildcard levels; ``keys``: TOPIC filters ending here; ``buckets``: CHAR filters
    whose literal prefix levels end here. Fields stay None until used: most nodes use one
    or two of them.

    Most nodes below a rare level (a team, a device) have one child and one CHAR bucket,
    and each of them is a cache miss of its own when the index is big: a lone child is
    held as itself (its ``level`` tells which it is) and a lone bucket as itself (it knows
    its head), a dict of either only from the second on; a dict is two objects to fetch
    (the dict and its table), a node that does not match costs one."""

    __slots__ = ("buckets", "children", "hash", "keys", "level", "plus")

    def __init__(self, level: str = "") -> None:
        self.level = level  # the literal level that leads here (for a lone child)
        self.children: _Node | dict[str, _Node] | None = None
        self.plus: _Node | None = None
        self.hash: _Node | None = None
        self.keys: object = _NO_KEY
        self.buckets: _Bucket | _Buckets | None = None

    def is_empty(self) -> bool:
        return (
            self.keys is _NO_KEY
            and self.children is None
            and self.plus is None
            and self.hash is None
            and self.buckets is None
        )

    def child(self, level: str, create: bool) -> _Node | None:
        """The node one filter level down; ``#`` and ``+`` are the wildcard edges."""
        if level == MULTI_LEVEL:
            if self.hash is None and create:
                self.hash = _Node()
            return self.hash
        if level == SINGLE_LEVEL:
            if self.plus is None and create:
                self.plus = _Node()
            return self.plus
        return self.literal_child(level, create)

    def literal_child(self, level: str, create: bool) -> _Node | None:
        children = self.children
        if children is None:
            child = None
        elif type(children) is _Node:
            child = children if children.level == level else None
        else:
            child = children.get(level)
        if child is None and create:
            child = _Node(sys.intern(level))
            if children is None:
                self.children = child
            elif type(children) is _Node:
                self.children = _level_dict((children.level, children), (child.level, child))
            else:
                children[child.level] = child
        return child

    def detach(self, level: str, literal: bool) -> None:
        if not literal and level == MULTI_LEVEL:
            self.hash = None
        elif not literal and level == SINGLE_LEVEL:
            self.plus = None
        elif type(self.children) is _Node:
            assert self.children.level == level
            self.children = None
        else:
            assert self.children is not None
            del self.children[level]
            if len(self.children) == 1:
                self.children = next(iter(self.children.values()))


def _walk(root: _Node, text: str, levels: list[str], out: set[object]) -> None:
    """Run the topic through the trie, one level at a time (reference §7.2 rules for TOPIC
    filters: a literal child on an equal level, ``+`` on any level, an empty one too).

    ``literal`` is the node the topic's levels reach read literally, the only one that can
    hold CHAR buckets; ``others`` are the nodes reached through a ``+`` or a ``#``. Each
    node has one parent, so no node is ever active twice."""
    literal: _Node | None = root
    others: list[_Node] = []
    loopers: list[_Node] = []  # active `#` nodes with filter levels after them
    if root.hash is not None:
        _enter_hashes(root, loopers, out)
    offset = 0  # where `level` starts in text
    tail_lengths: tuple[int, ...] | None = None  # once a bucket needs them
    for level in levels:
        advanced: list[_Node] = []
        # `#` nodes entered while reading this level start consuming at the next one
        active = others + loopers if loopers else others
        if literal is not None:
            chars = literal.buckets
            if chars is not None:
                if tail_lengths is None:
                    tail_lengths = _tail_lengths(levels)
                if type(chars) is _Bucket:  # one head: checked here, a call less
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
            elif type(children) is _Node:
                literal = children if children.level == level else None
            else:
                literal = children.get(level)
            if literal is not None and literal.hash is not None:
                _enter_hashes(literal, loopers, out)
        for node in active:
            children = node.children
            if children is not None:
                if type(children) is _Node:
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
        if keys is not _NO_KEY:
            if type(keys) is _KeyBag:
                out.update(keys)
            else:
                out.add(keys)


def _enter_hashes(node: _Node, loopers: list[_Node], out: set[object]) -> None:
    """Enter ``node``'s chain of ``#`` children (``a/#/#``): collect their keys, and keep
    active those with filter levels after them. A chain already active is so to its end."""
    hash_node = node.hash
    while hash_node is not None and hash_node not in loopers:
        keys = hash_node.keys
        if keys is not _NO_KEY:
            if type(keys) is _KeyBag:
                out.update(keys)
            else:
                out.add(keys)
        if hash_node.children is not None or hash_node.plus is not None:
            loopers.append(hash_node)
        hash_node = hash_node.hash


# --------------------------------------------------------------------------------------
# CHAR filters: head → tail → anchor → middle
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _CharShape:
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


class _CharEntry:
    """One distinct wildcard filter text and its subscriptions."""

    __slots__ = ("keys", "length", "open_ended", "regex")

    def __init__(self, shape: _CharShape) -> None:
        self.keys: object = _NO_KEY
        regex = shape.middle_regex
        self.regex = re.compile(regex, re.DOTALL) if regex is not None else None
        self.length = shape.middle_length
        self.open_ended = shape.open_ended


_Entries: TypeAlias = tuple["_CharEntry", ...] | list["_CharEntry"]

_SMALL = 16  # up to this many entries are a tuple (one object to fetch, not two)

_SHARED: dict[tuple[int, ...], tuple[int, ...]] = {}


def _shared(sizes: tuple[int, ...]) -> tuple[int, ...]:
    """One object per distinct tuple of small numbers (tail sizes, head bounds): many nodes
    hold the same, and a shared one stays in the CPU caches where one per node would not."""
    return _SHARED.setdefault(sizes, sizes)


def _with_entry(entries: _Entries | None, entry: _CharEntry) -> _Entries:
    if entries is None:
        return (entry,)
    if type(entries) is list:
        entries.append(entry)
        return entries
    return (*entries, entry) if len(entries) < _SMALL else [*entries, entry]


def _without_entry(entries: _Entries, entry: _CharEntry) -> _Entries | None:
    left = [other for other in entries if other is not entry]
    assert len(left) == len(entries) - 1
    if not left:
        return None
    return tuple(left) if len(left) <= _SMALL else left


class _Group:
    """Entries with one prefix, head and tail; those with an anchor are keyed by it.
    ``tail`` is the tail itself, for a bucket's lone group with one."""

    __slots__ = ("anchored", "plain", "tail")

    def __init__(self, tail: str | None = None) -> None:
        self.tail = tail
        self.plain: _Entries | None = None
        self.anchored: dict[str, _Entries] | None = None

    def add(self, anchor: str | None, entry: _CharEntry) -> None:
        if anchor is None:
            self.plain = _with_entry(self.plain, entry)
        else:
            if self.anchored is None:
                self.anchored = _level_dict()
            anchor = sys.intern(anchor)
            self.anchored[anchor] = _with_entry(self.anchored.get(anchor), entry)

    def discard(self, anchor: str | None, entry: _CharEntry) -> None:
        if anchor is None:
            assert self.plain is not None
            self.plain = _without_entry(self.plain, entry)
        else:
            assert self.anchored is not None
            entries = _without_entry(self.anchored[anchor], entry)
            if entries is None:
                del self.anchored[anchor]
            else:
                self.anchored[anchor] = entries
            self.anchored = self.anchored or None

    def is_empty(self) -> bool:
        return self.plain is None and self.anchored is None

    def collect(self, text: str, start: int, end: int, levels: list[str], out: set[object]) -> None:
        """``text[start:end]`` is what each entry's middle must match."""
        if self.plain is not None:
            _check_entries(self.plain, text, start, end, out)
        anchored = self.anchored
        if anchored is not None:
            # an anchor has a `/` on each side: never the topic's first or last level; a
            # level met twice only checks its entries twice
            for level in levels[1:-1]:
                entries = anchored.get(level)
                if entries is not None:
                    _check_entries(entries, text, start, end, out)


@final
class _Bucket(_Group):
    """Entries at one node with the same head: itself the group of those without a tail,
    with the groups of those with a tail keyed by it (a lone one held as itself) and looked
    up once per distinct number of tail levels. ``spans`` bound, per number of tail levels,
    what a matching topic has between the head and the tail, as (tail levels, fewest, most)
    (they only widen: still true, maybe loose)."""

    __slots__ = ("head", "spans", "tail_counts", "tails")

    def __init__(self, head: str) -> None:
        super().__init__()
        self.head = head
        self.spans: tuple[tuple[int, ...], ...] = ()
        self.tails: _Group | dict[str, _Group] | None = None
        self.tail_counts: tuple[int, ...] = ()

    def widen(self, tail_count: int, span_min: int, span_max: int) -> None:
        self.spans = _spans_with(self.spans, (tail_count,), span_min, span_max)

    def group(self, tail: str | None) -> _Group:
        if tail is None:
            return self
        tails = self.tails
        if tails is None:
            group = None
        elif isinstance(tails, _Group):
            group = tails if tails.tail == tail else None
        else:
            group = tails.get(tail)
        if group is None:
            group = _Group(sys.intern(tail))
            if tails is None:
                self.tails = group
            elif isinstance(tails, _Group):
                assert tails.tail is not None
                self.tails = _level_dict((tails.tail, tails), (tail, group))
            else:
                tails[tail] = group
            self.tail_counts = _shared(_sizes_with(self.tail_counts, _tail_size(tail)))
        return group

    def discard_in(self, tail: str | None, anchor: str | None, entry: _CharEntry) -> bool:
        """Remove the entry; True when the bucket is left empty."""
        group = self.group(tail)
        group.discard(anchor, entry)
        if tail is not None and group.is_empty():
            tails = self.tails
            assert tails is not None
            if isinstance(tails, _Group):
                self.tails = None
                self.tail_counts = ()
            else:
                del tails[tail]
                self.tail_counts = _shared(
                    _sizes_after_removal(self.tail_counts, tails, _tail_size)
                )
                if len(tails) == 1:
                    self.tails = next(iter(tails.values()))
        return self.is_empty() and self.tails is None


@final
class _Buckets:
    """Two or more buckets at one node, by head. ``heads`` holds, per head length and
    number of tail levels present, the bounds of what a matching topic has between head and
    tail: a topic outside them is not looked up at all (a dict of thousands of heads is a
    cache miss per lookup, and ``team-12?/Score`` can match ``team-123/Score`` but neither
    ``team-1234/Score`` nor ``team-12/Score``). Bounds only widen while the head length
    stays: still true, maybe loose."""

    __slots__ = ("by_head", "heads")

    def __init__(self, buckets: Iterable[_Bucket]) -> None:
        self.by_head: dict[str, _Bucket] = _level_dict()
        self.heads: tuple[tuple[int, ...], ...] = ()  # (head length, tail levels, min, max)
        for bucket in buckets:
            self.by_head[bucket.head] = bucket
            self.widen(bucket)

    def widen(self, bucket: _Bucket) -> None:
        for tail_count, low, high in bucket.spans:
            self.heads = _spans_with(self.heads, (len(bucket.head), tail_count), low, high)


def _tail_size(tail: str) -> int:
    return tail.count(LEVEL_SEPARATOR) + 1


def _sizes_with(sizes: tuple[int, ...], size: int) -> tuple[int, ...]:
    return sizes if size in sizes else tuple(sorted((*sizes, size)))


def _spans_with(
    spans: tuple[tuple[int, ...], ...], where: tuple[int, ...], low: int, high: int
) -> tuple[tuple[int, ...], ...]:
    """``spans`` (sorted tuples of ``where`` then the bounds of a span) with the bounds at
    ``where`` widened to take in another filter's."""
    width = len(where)
    others = [span for span in spans if span[:width] != where]
    for span in spans:
        if span[:width] == where:
            low, high = min(span[width], low), max(span[width + 1], high)
    return tuple(sorted((*others, _shared((*where, low, high)))))


def _sizes_after_removal(
    sizes: tuple[int, ...], keys: dict[str, Any], size_of: Callable[[str], int]
) -> tuple[int, ...]:
    """The sorted distinct sizes of the keys, for lookups by size. Recounting is O(keys), so
    big dicts keep their sizes: one no key has any more only costs a lookup that misses."""
    if len(keys) <= 32:
        return tuple(sorted({size_of(key) for key in keys}))
    return sizes


def _collect_buckets(
    chars: _Buckets,
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
    bucket: _Bucket,
    start: int,
    text: str,
    levels: list[str],
    tail_lengths: tuple[int, ...],
    out: set[object],
) -> None:
    """A bucket whose head the topic has, up to ``start``."""
    size = len(text)
    if bucket.anchored is not None:
        _Group.collect(bucket, text, start, size, levels, out)  # its plain entries too
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
        if isinstance(tails, _Group):
            group = tails if tails.tail == tail else None
        else:
            group = tails.get(tail)
        if group is not None:
            group.collect(text, start, tail_start - 1, levels, out)


def _check_entries(entries: _Entries, text: str, start: int, end: int, out: set[object]) -> None:
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


# --------------------------------------------------------------------------------------
# The index
# --------------------------------------------------------------------------------------


class _Space:
    """Everything subscribed in one namespace."""

    __slots__ = ("char_entries", "exact", "root")

    def __init__(self) -> None:
        self.exact: dict[str, object] = _level_dict()  # topic → keys of filters without wildcards
        self.root = _Node()
        self.char_entries: dict[str, _CharEntry] = {}  # CHAR wildcard filter text → entry

    def is_empty(self) -> bool:
        return not self.exact and self.root.is_empty()

    def add(self, flt: TopicFilter, key: object) -> None:
        topic = flt.exact_topic
        if topic is not None:
            self.exact[topic] = _hold(self.exact.get(topic, _NO_KEY), key)
        elif flt.scheme is Scheme.TOPIC:
            node = self.root
            for level in flt.levels:
                child = node.child(level, create=True)
                assert child is not None
                node = child
            node.keys = _hold(node.keys, key)
        else:
            entry = self.char_entries.get(flt.text)
            if entry is None:
                entry = self.char_entries[flt.text] = self._place(_CharShape.of(flt))
            entry.keys = _hold(entry.keys, key)

    def _place(self, shape: _CharShape) -> _CharEntry:
        node = self.root
        for level in shape.prefix_levels:
            child = node.literal_child(level, create=True)
            assert child is not None
            node = child
        chars = node.buckets
        if chars is None:
            bucket = node.buckets = _Bucket(shape.head)
        elif type(chars) is _Bucket:
            if chars.head == shape.head:
                bucket = chars
            else:
                bucket = _Bucket(shape.head)
                chars = node.buckets = _Buckets((chars, bucket))
        else:
            assert type(chars) is _Buckets
            found = chars.by_head.get(shape.head)
            bucket = found if found is not None else _Bucket(shape.head)
            chars.by_head[bucket.head] = bucket
        bucket.widen(shape.tail_count, shape.span_min, shape.span_max)
        if type(chars) is _Buckets:
            chars.widen(bucket)
        entry = _CharEntry(shape)
        bucket.group(shape.tail).add(shape.anchor, entry)
        return entry

    def remove(self, flt: TopicFilter, key: object) -> None:
        topic = flt.exact_topic
        if topic is not None:
            remaining = _release(self.exact[topic], key)
            if remaining is _NO_KEY:
                del self.exact[topic]
            else:
                self.exact[topic] = remaining
        elif flt.scheme is Scheme.TOPIC:
            node, path = self._path(flt.levels, literal=False)
            node.keys = _release(node.keys, key)
            self._prune(node, path, literal=False)
        else:
            entry = self.char_entries[flt.text]
            entry.keys = _release(entry.keys, key)
            if entry.keys is _NO_KEY:
                del self.char_entries[flt.text]
                self._unplace(_CharShape.of(flt), entry)

    def _unplace(self, shape: _CharShape, entry: _CharEntry) -> None:
        node, path = self._path(shape.prefix_levels, literal=True)
        chars = node.buckets
        if type(chars) is _Bucket:
            if chars.discard_in(shape.tail, shape.anchor, entry):
                node.buckets = None
        else:
            assert type(chars) is _Buckets
            buckets = chars.by_head
            if buckets[shape.head].discard_in(shape.tail, shape.anchor, entry):
                del buckets[shape.head]
                if len(buckets) == 1:
                    node.buckets = next(iter(buckets.values()))
                else:
                    lengths = _sizes_after_removal(
                        tuple(head[0] for head in chars.heads), buckets, len
                    )
                    chars.heads = tuple(head for head in chars.heads if head[0] in lengths)
        self._prune(node, path, literal=True)

    def _path(self, levels: Iterable[str], literal: bool) -> tuple[_Node, list[tuple[_Node, str]]]:
        """The node of a filter's levels (read literally for a CHAR prefix) and its parents."""
        path: list[tuple[_Node, str]] = []
        node = self.root
        for level in levels:
            child = node.literal_child(level, False) if literal else node.child(level, False)
            assert child is not None
            path.append((node, level))
            node = child
        return node, path

    @staticmethod
    def _prune(node: _Node, path: list[tuple[_Node, str]], literal: bool) -> None:
        while path and node.is_empty():
            parent, level = path.pop()
            parent.detach(level, literal)
            node = parent

    def match(self, text: str, out: set[object]) -> None:
        keys = self.exact.get(text, _NO_KEY)
        if keys is not _NO_KEY:
            if type(keys) is _KeyBag:
                out.update(keys)
            else:
                out.add(keys)
        _walk(self.root, text, text.split(LEVEL_SEPARATOR), out)


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
        self._spaces: dict[Namespace, _Space] = {}
        self._results: dict[Namespace, dict[str, frozenset[K]]] = {}
        self._cache_size = cache_size
        self._last: tuple[Namespace | None, _Space | None] = (None, None)  # last one matched

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
            space = self._spaces[namespace] = _Space()
        space.add(flt, key)
        self._subscriptions[key] = (namespace, flt)
        self._results.pop(namespace, None)

    def remove(self, key: K) -> None:
        namespace, flt = self._subscriptions.pop(key)
        space = self._spaces[namespace]
        space.remove(flt, key)
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
            space: _Space | None = self._last[1]
        else:
            space = self._spaces.get(namespace)
            if space is not None:
                self._last = (namespace, space)
        if space is not None:
            space.match(text, out)
        found: frozenset[K] = frozenset(out)
        if self._cache_size:
            if results is None or len(results) >= self._cache_size:
                # a full one starts again: cheaper than LRU order, as good for repeating
                # topics; a new dict, as clear() would drop the hashes kept in its table
                results = self._results[namespace] = _level_dict()
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
