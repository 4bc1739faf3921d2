"""The indexed matcher agrees with the naive oracle (``matches()`` against every
subscription), keeps namespaces apart and forgets removed subscriptions."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqkafka.engine.matcher import NaiveIndex, SubscriptionIndex
from mqkafka.engine.matchtrie import level_dict
from mqkafka.mq.topics import (
    DEFAULT_STREAM,
    DEFAULT_SUBPOINT,
    Namespace,
    Scheme,
    TopicFilter,
    TopicString,
)

TOPIC, CHAR = Scheme.TOPIC, Scheme.CHAR
INDEXES = [SubscriptionIndex, NaiveIndex]
SPORT_STREAM = Namespace.stream("Sport")
SPORT_SUBPOINT = Namespace.subpoint("Sport")

FILTERS: list[tuple[str, Scheme]] = [
    ("USA/#", TOPIC),
    ("USA/Alaska/#", TOPIC),
    ("IBM/+/Results", TOPIC),
    ("Sport/+", TOPIC),
    ("USA#", TOPIC),
    ("a/#/b", TOPIC),
    ("#/Results", TOPIC),
    ("/Sport", TOPIC),
    ("a/+", TOPIC),
    ("#", TOPIC),
    ("ABC?D", CHAR),
    ("ABC%*D", CHAR),
    ("IBM/*/Results", CHAR),
    ("Sport/*", CHAR),
    ("*", CHAR),
    ("Sport/*/team-5/*", CHAR),
    ("Sport/*/team-5/Score", CHAR),
    ("Sp?rt/Soc*", CHAR),
]

TOPICS = [
    "USA",
    "USA/Alaska",
    "USA/Alaska/Juneau",
    "USA#",
    "IBM/Software/Results",
    "IBM/Patents/Software/Results",
    "IBM/Results",
    "Sport",
    "Sport/Soccer",
    "Sport/Soccer/team-5/Score",
    "Sport/Soccer/team-5/Fouls",
    "Sport/Soccer/team-55/Score",
    "a/b",
    "a/x/y/b",
    "a/",
    "Results",
    "/Sport",
    "ABC*D",
    "ABCxD",
]


def loaded(index_type: type[Any]) -> Any:
    """An index of ``FILTERS`` in the default stream, keyed by position."""
    index = index_type()
    for key, (text, scheme) in enumerate(FILTERS):
        index.add(key, DEFAULT_STREAM, TopicFilter(text, scheme))
    return index


def expected(topic: str) -> frozenset[int]:
    """What the oracle says for ``FILTERS``."""
    found: frozenset[int] = loaded(NaiveIndex).match(DEFAULT_STREAM, TopicString(topic))
    return found


# ---- empty input -------------------------------------------------------------------------


@pytest.mark.parametrize("index_type", INDEXES)
def test_empty_index_matches_nothing(index_type: type[Any]) -> None:
    index = index_type()
    assert len(index) == 0
    assert index.match(DEFAULT_STREAM, TopicString("a")) == set()


# ---- valid match / no-match, compared with the table of expectations ---------------------

EXPECTED = {
    "USA": {0, 9, 14},
    "USA/Alaska/Juneau": {0, 1, 9, 14},
    "IBM/Software/Results": {2, 6, 9, 12, 14},
    "IBM/Patents/Software/Results": {6, 9, 12, 14},
    "Sport/Soccer": {3, 9, 13, 14, 17},
    "Sport/Soccer/team-5/Score": {9, 13, 14, 15, 16, 17},
    "Sport/Soccer/team-55/Score": {9, 13, 14, 17},
    "ABC*D": {9, 10, 11, 14},
    "ABCxD": {9, 10, 14},
    "a/": {8, 9, 14},
}


@pytest.mark.parametrize("index_type", INDEXES)
@pytest.mark.parametrize(("topic", "keys"), sorted(EXPECTED.items()))
def test_index_matches_the_reference_examples(
    index_type: type[Any], topic: str, keys: set[int]
) -> None:
    assert loaded(index_type).match(DEFAULT_STREAM, TopicString(topic)) == keys


@pytest.mark.parametrize("topic", TOPICS)
def test_index_agrees_with_oracle_on_fixed_topics(topic: str) -> None:
    assert loaded(SubscriptionIndex).match(DEFAULT_STREAM, TopicString(topic)) == expected(topic)


# Cases the property tests found or that guard a subtle step of the walk.
WALK_CASES = [
    ("a/#/a", TOPIC, "a", False),  # a `#` entered on a level starts consuming at the next
    ("a/#/a", TOPIC, "a/a", True),
    ("a/#/+", TOPIC, "a/x", True),  # a `#` followed by `+` only must stay active
    ("a/#/+", TOPIC, "a/x/y", True),
    ("#/#/b", TOPIC, "b", True),
    ("+/#", TOPIC, "/", True),
    ("a/*/b", CHAR, "a/b", False),  # the `/` before a tail comes after the head
    ("a*/b", CHAR, "a/b", True),
    ("*/", CHAR, "/", True),
    # what a topic has left after the head must fit the filter's middle and tail
    ("team-12?/Score", CHAR, "team-123/Score", True),
    ("team-12?/Score", CHAR, "team-1234/Score", False),
    ("team-12?/Score", CHAR, "team-12/Score", False),
    ("team-12%?x", CHAR, "team-12?x", True),  # an escaped `?` is one literal character
    ("team-12%?x", CHAR, "team-12?xy", False),
    ("team-12*x", CHAR, "team-12x", True),  # a `*` may be empty ...
    ("team-12*x", CHAR, "team-12/a/b/x", True),  # ... or cross levels
]


def test_bounds_of_a_head_length_stay_true_as_filters_come_and_go() -> None:
    index: SubscriptionIndex[str] = SubscriptionIndex(cache_size=0)
    index.add("fixed", DEFAULT_STREAM, TopicFilter("Sport/team-1?", CHAR))
    index.add("open", DEFAULT_STREAM, TopicFilter("Sport/team-2*", CHAR))  # same head length
    assert index.match(DEFAULT_STREAM, TopicString("Sport/team-2/x/y")) == {"open"}
    index.remove("open")
    index.add("longer", DEFAULT_STREAM, TopicFilter("Sport/team-3??", CHAR))
    assert index.match(DEFAULT_STREAM, TopicString("Sport/team-1x")) == {"fixed"}
    assert index.match(DEFAULT_STREAM, TopicString("Sport/team-3xy")) == {"longer"}
    assert index.match(DEFAULT_STREAM, TopicString("Sport/team-2/x/y")) == set()


@pytest.mark.parametrize(("flt", "scheme", "topic", "selected"), WALK_CASES)
def test_walk_cases(flt: str, scheme: Scheme, topic: str, selected: bool) -> None:
    index: SubscriptionIndex[str] = SubscriptionIndex(cache_size=0)
    index.add("k", DEFAULT_STREAM, TopicFilter(flt, scheme))
    index.add("exact", DEFAULT_STREAM, TopicFilter(topic, TOPIC))
    expected = {"k", "exact"} if selected else {"exact"}
    assert index.match(DEFAULT_STREAM, TopicString(topic)) == expected


# ---- namespaces --------------------------------------------------------------------------


@pytest.mark.parametrize("index_type", INDEXES)
def test_wildcards_never_match_across_namespaces(index_type: type[Any]) -> None:
    """Reference §1.4: "A stream is a separate topic space; wildcards never match across
    streams"; a stream and a subpoint of the same name are separate too."""
    index = index_type()
    index.add("stream", SPORT_STREAM, TopicFilter("#", TOPIC))
    index.add("subpoint", SPORT_SUBPOINT, TopicFilter("*", CHAR))
    index.add("default", DEFAULT_SUBPOINT, TopicFilter("#", TOPIC))
    topic = TopicString("Soccer/Results")
    assert index.match(SPORT_STREAM, topic) == {"stream"}
    assert index.match(SPORT_SUBPOINT, topic) == {"subpoint"}
    assert index.match(DEFAULT_SUBPOINT, topic) == {"default"}
    assert index.match(DEFAULT_STREAM, topic) == set()


# ---- add / remove ------------------------------------------------------------------------


@pytest.mark.parametrize("index_type", INDEXES)
def test_subscriptions_sharing_a_filter_are_all_matched(index_type: type[Any]) -> None:
    index = index_type()
    for key in ("a", "b", None):
        index.add(key, DEFAULT_STREAM, TopicFilter("x/+", TOPIC))
        index.add((key, 1), DEFAULT_STREAM, TopicFilter("x/*", CHAR))
        index.add((key, 2), DEFAULT_STREAM, TopicFilter("x/y", CHAR))
    topic = TopicString("x/y")
    assert index.match(DEFAULT_STREAM, topic) == {
        "a", "b", None, ("a", 1), ("b", 1), (None, 1), ("a", 2), ("b", 2), (None, 2)
    }  # fmt: skip
    index.remove("b")
    index.remove((None, 1))
    index.remove(("a", 2))
    assert index.match(DEFAULT_STREAM, topic) == {
        "a",
        None,
        ("a", 1),
        ("b", 1),
        ("b", 2),
        (None, 2),
    }
    assert len(index) == 6


@pytest.mark.parametrize("index_type", INDEXES)
def test_adding_a_known_key_replaces_its_subscription(index_type: type[Any]) -> None:
    index = index_type()
    index.add("k", DEFAULT_STREAM, TopicFilter("old/#", TOPIC))
    index.add("k", SPORT_STREAM, TopicFilter("new/*", CHAR))
    assert len(index) == 1
    assert index.match(DEFAULT_STREAM, TopicString("old/x")) == set()
    assert index.match(SPORT_STREAM, TopicString("new/x")) == {"k"}
    assert index.subscription("k") == (SPORT_STREAM, TopicFilter("new/*", CHAR))


@pytest.mark.parametrize("index_type", INDEXES)
def test_removing_every_subscription_leaves_an_index_that_still_works(
    index_type: type[Any],
) -> None:
    index = loaded(index_type)
    for key in range(len(FILTERS)):
        index.remove(key)
    assert len(index) == 0
    assert all(index.match(DEFAULT_STREAM, TopicString(topic)) == set() for topic in TOPICS)
    index.add("again", DEFAULT_STREAM, TopicFilter("a/#/b", TOPIC))
    assert index.match(DEFAULT_STREAM, TopicString("a/b")) == {"again"}


@pytest.mark.parametrize("index_type", INDEXES)
def test_removing_an_unknown_key_is_a_key_error(index_type: type[Any]) -> None:
    with pytest.raises(KeyError):
        index_type().remove("missing")


# ---- the result cache --------------------------------------------------------------------


@pytest.mark.parametrize("cache_size", [0, 1, 65_536])
def test_a_change_in_a_namespace_is_seen_by_the_next_match(cache_size: int) -> None:
    index: SubscriptionIndex[str] = SubscriptionIndex(cache_size)
    topic = TopicString("Sport/Soccer")
    assert index.match(DEFAULT_STREAM, topic) == set()
    index.add("a", DEFAULT_STREAM, TopicFilter("Sport/#", TOPIC))
    assert index.match(DEFAULT_STREAM, topic) == {"a"}
    index.add("b", DEFAULT_STREAM, TopicFilter("Sport/*", CHAR))
    assert index.match(DEFAULT_STREAM, topic) == {"a", "b"}
    index.remove("a")
    assert index.match(DEFAULT_STREAM, topic) == {"b"}
    index.add("b", DEFAULT_STREAM, TopicFilter("Other", TOPIC))  # replaced
    assert index.match(DEFAULT_STREAM, topic) == set()


def test_a_full_result_cache_starts_again_and_still_answers_right() -> None:
    index: SubscriptionIndex[str] = SubscriptionIndex(cache_size=2)
    index.add("a", DEFAULT_STREAM, TopicFilter("Sport/+/Score", TOPIC))
    index.add("b", DEFAULT_STREAM, TopicFilter("Sport/Soccer/*", CHAR))
    expected = {"Soccer": {"a", "b"}, "Rugby": {"a"}, "Golf": {"a"}, "Chess": {"a"}}
    for _ in range(3):  # more topics than the cache holds, in turn
        for sport, keys in expected.items():
            assert index.match(DEFAULT_STREAM, TopicString(f"Sport/{sport}/Score")) == keys


def testlevel_dicts_keep_each_keys_hash_in_their_table_as_they_grow() -> None:
    """Why the index's dicts are made by ``level_dict``: one of str keys alone holds no
    hashes (16 bytes an entry, not 24), so every probe reads a key object."""
    plain: dict[str, int] = {}
    level = level_dict(("team-0", 0))
    for n in range(1, 5000):
        plain[f"team-{n}"] = level[f"team-{n}"] = n
    plain["team-0"] = 0
    assert level == plain
    assert sys.getsizeof(level) > sys.getsizeof(plain) * 1.3
    del level["team-0"]
    assert "team-0" not in level and level["team-4999"] == 4999


def test_results_are_immutable_so_a_cached_one_cannot_be_spoiled() -> None:
    index: SubscriptionIndex[str] = SubscriptionIndex()
    index.add("a", DEFAULT_STREAM, TopicFilter("#", TOPIC))
    assert isinstance(index.match(DEFAULT_STREAM, TopicString("x")), frozenset)


def test_many_heads_and_tails_then_most_removed_still_agree_with_the_oracle() -> None:
    """Past 32 heads (or tails) at one node a removal keeps the table of their sizes rather
    than recount it; a size no filter has any more must only cost a lookup that misses."""
    index: SubscriptionIndex[int] = SubscriptionIndex(cache_size=0)
    oracle: NaiveIndex[int] = NaiveIndex()
    texts = [f"s/{'h' * (i % 40)}{i}?" for i in range(80)]
    texts += [f"s/*/{'/'.join(['t'] * (1 + i % 5))}{i}" for i in range(80)]
    for key, text in enumerate(texts):
        index.add(key, DEFAULT_STREAM, TopicFilter(text, CHAR))
        oracle.add(key, DEFAULT_STREAM, TopicFilter(text, CHAR))
    probes = [TopicString(f"s/{'h' * (i % 40)}{i}x") for i in range(80)]
    probes += [TopicString(f"s/a/{'/'.join(['t'] * (1 + i % 5))}{i}") for i in range(80)]
    for key in range(0, len(texts), 3):
        if key % 7:
            index.remove(key)
            oracle.remove(key)
    for topic in probes:
        assert index.match(DEFAULT_STREAM, topic) == oracle.match(DEFAULT_STREAM, topic)
    assert sum(len(index.match(DEFAULT_STREAM, topic)) for topic in probes) > 80


def test_lone_children_buckets_and_tails_grow_and_shrink_agreeing_with_the_oracle() -> None:
    """A node holds a lone child, bucket or tail group as itself and a dict only from the
    second on, and goes back to the lone form when removals leave one: every step of that,
    in each order of removal, must match as the oracle does."""
    texts = [
        ("a/b/x/#", TOPIC),
        ("a/b/y/+", TOPIC),
        ("a/b/x?/T", CHAR),
        ("a/b/x?/U", CHAR),
        ("a/b/y*/T/V", CHAR),
        ("a/b/*/T", CHAR),
        ("a/#/x/#", TOPIC),
        ("a/#/y", TOPIC),
    ]
    probes = [
        TopicString(topic)
        for topic in ("a/b/x/T", "a/b/x1/T", "a/b/x1/U", "a/b/y/T/V", "a/b/yy/T/V", "a/b/y/q")
    ]
    for order in (range(len(texts)), reversed(range(len(texts))), [3, 0, 5, 1, 7, 2, 6, 4]):
        index: SubscriptionIndex[int] = SubscriptionIndex(cache_size=0)
        oracle: NaiveIndex[int] = NaiveIndex()
        for key, (text, scheme) in enumerate(texts):
            index.add(key, DEFAULT_STREAM, TopicFilter(text, scheme))
            oracle.add(key, DEFAULT_STREAM, TopicFilter(text, scheme))
        for key in order:
            for topic in probes:
                assert index.match(DEFAULT_STREAM, topic) == oracle.match(DEFAULT_STREAM, topic)
            index.remove(key)
            oracle.remove(key)
        assert all(not index.match(DEFAULT_STREAM, topic) for topic in probes)


# ---- property: the index and the oracle always agree -------------------------------------

# Small alphabets, so that filters and topics collide often; blank and multi-byte included.
TOPIC_PIECES = ["a", "b", "/", "/", "#", "+", "*", "?", " ", "é", "日"]
CHAR_PIECES = ["a", "b", "/", "/", "*", "*", "?", "%*", "%?", "%%", "#", "+", " ", "日"]
NAMESPACES = [DEFAULT_STREAM, SPORT_STREAM, DEFAULT_SUBPOINT, SPORT_SUBPOINT]


def _joined(pieces: list[str], max_size: int) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces), min_size=1, max_size=max_size).map("".join)


# Whole levels too, so that `#` and `+` levels (`a/#/+`, `#/#`, `+//#`) come up often.
LEVEL_CHOICES = ["a", "b", "", "#", "+", "a#", "+b", "*", "日"]
_levels = st.lists(st.sampled_from(LEVEL_CHOICES), min_size=1, max_size=5).map("/".join)

filters = st.one_of(
    _joined(TOPIC_PIECES, 9).map(lambda text: TopicFilter(text, TOPIC)),
    _levels.filter(bool).map(lambda text: TopicFilter(text, TOPIC)),
    _joined(CHAR_PIECES, 9).map(lambda text: TopicFilter(text, CHAR)),
)
topics = st.one_of(_joined([*TOPIC_PIECES, "%"], 9), _levels.filter(bool)).map(TopicString)
namespaces = st.sampled_from(NAMESPACES)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.integers(0, 12), namespaces, filters),
        st.tuples(st.just("remove"), st.integers(0, 12)),
        st.tuples(st.just("match"), namespaces, topics),
    ),
    max_size=40,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(operations, st.lists(topics, min_size=1, max_size=10), st.sampled_from([0, 1, 65_536]))
def test_index_agrees_with_naive_oracle(
    operations: list[tuple[Any, ...]], probes: list[TopicString], cache_size: int
) -> None:
    """Random add/remove/match sequences in several namespaces; the result cache (off, one
    entry, the default) must never return a result a change made stale."""
    index: SubscriptionIndex[int] = SubscriptionIndex(cache_size)
    oracle: NaiveIndex[int] = NaiveIndex()
    for operation in operations:
        if operation[0] == "add":
            _, key, namespace, flt = operation
            index.add(key, namespace, flt)
            oracle.add(key, namespace, flt)
        elif operation[0] == "remove":
            key = operation[1]
            if key in oracle:
                index.remove(key)
                oracle.remove(key)
        else:
            _, namespace, topic = operation
            assert index.match(namespace, topic) == oracle.match(namespace, topic)
    assert len(index) == len(oracle)
    for namespace in NAMESPACES:
        for topic in probes:
            assert index.match(namespace, topic) == oracle.match(namespace, topic)


@settings(max_examples=150)
@given(st.lists(filters, min_size=1, max_size=30), st.lists(topics, min_size=1, max_size=20))
def test_index_agrees_with_oracle_on_many_filters_in_one_namespace(
    flts: list[TopicFilter], probes: list[TopicString]
) -> None:
    index: SubscriptionIndex[int] = SubscriptionIndex()
    oracle: NaiveIndex[int] = NaiveIndex()
    for key, flt in enumerate(flts):
        index.add(key, DEFAULT_STREAM, flt)
        oracle.add(key, DEFAULT_STREAM, flt)
    for topic in probes:
        assert index.match(DEFAULT_STREAM, topic) == oracle.match(DEFAULT_STREAM, topic)


@settings(max_examples=150)
@given(
    st.lists(
        st.lists(st.sampled_from(["team", "a", "", "x/y"]), min_size=1, max_size=5),
        min_size=1,
        max_size=6,
    ),
    st.lists(st.lists(st.sampled_from(["team", "a", "", "b"]), min_size=1, max_size=6)),
)
def test_index_agrees_with_oracle_on_anchored_character_filters(
    middles: list[list[str]], topic_levels: list[list[str]]
) -> None:
    """Filters such as `*/team/*` are indexed by the literal level the wildcards enclose."""
    index: SubscriptionIndex[int] = SubscriptionIndex()
    oracle: NaiveIndex[int] = NaiveIndex()
    for key, levels in enumerate(middles):
        flt = TopicFilter("*/" + "/".join(levels) + "/*", CHAR)
        index.add(key, DEFAULT_STREAM, flt)
        oracle.add(key, DEFAULT_STREAM, flt)
    for levels in topic_levels:
        topic = TopicString("s/" + "/".join(levels))
        assert index.match(DEFAULT_STREAM, topic) == oracle.match(DEFAULT_STREAM, topic)


def _instance_of(flt: TopicFilter, data: st.DataObject) -> TopicString:
    """A topic built to (nearly) match ``flt``: each wildcard replaced by a random stretch,
    then sometimes one character dropped or added, so that boundaries get exercised."""
    fill = st.text(st.sampled_from(["a", "b", "/", "é"]), max_size=3)
    out: list[str] = []
    if flt.scheme is Scheme.TOPIC:
        for level in flt.levels:
            if level == "#":
                out.extend(data.draw(st.lists(st.sampled_from(["a", "", "b"]), max_size=2)))
            elif level == "+":
                out.append(data.draw(st.sampled_from(["a", "", "b/"])))
            else:
                out.append(level)
        text = "/".join(out)
    else:
        for token in flt.char_tokens():
            if not token.wildcard:
                out.append(token.text)
            else:
                out.append(data.draw(fill if token.text == "*" else st.sampled_from("ab/日")))
        text = "".join(out)
    edit = data.draw(st.sampled_from(["keep", "keep", "drop", "add"]))
    if edit == "drop" and len(text) > 1:
        at = data.draw(st.integers(0, len(text) - 1))
        text = text[:at] + text[at + 1 :]
    elif edit == "add":
        at = data.draw(st.integers(0, len(text)))
        text = text[:at] + data.draw(st.sampled_from("a/?*")) + text[at:]
    return TopicString(text or "/")


@settings(max_examples=250)
@given(st.lists(filters, min_size=1, max_size=12), st.data())
def test_index_agrees_with_oracle_on_topics_built_from_the_filters(
    flts: list[TopicFilter], data: st.DataObject
) -> None:
    index: SubscriptionIndex[int] = SubscriptionIndex()
    oracle: NaiveIndex[int] = NaiveIndex()
    for key, flt in enumerate(flts):
        index.add(key, DEFAULT_STREAM, flt)
        oracle.add(key, DEFAULT_STREAM, flt)
    for flt in flts:
        topic = _instance_of(flt, data)
        assert index.match(DEFAULT_STREAM, topic) == oracle.match(DEFAULT_STREAM, topic)


# ---- many filters under one level ------------------------------------------------------


def test_many_filters_under_one_level_added_twice_then_removed_agree_with_the_oracle() -> None:
    """Both schemes under one level (nodes, buckets, tails, anchors at one place), each
    filter subscribed twice, then every subscription removed; checked after each step."""
    index: SubscriptionIndex[int] = SubscriptionIndex(cache_size=0)
    oracle: NaiveIndex[int] = NaiveIndex()
    texts = [
        ("t/5/#", TOPIC),
        ("t/5/+/a", TOPIC),
        ("t/5/a/+", TOPIC),
        ("t/5/a", TOPIC),
        ("t/5/+", TOPIC),
        ("t/#/5/a", TOPIC),
        ("t/5/a*", CHAR),
        ("t/5/?/a", CHAR),
        ("t/5/*/a/b", CHAR),
        ("t/5/a/*", CHAR),
        ("t/5?", CHAR),
        ("t/5*/a", CHAR),
        ("t/*/5/*", CHAR),
        ("t/5/a/b/#", TOPIC),
        ("t/5/a/b/+", TOPIC),
        ("t/5/a/b*", CHAR),
    ]
    flts = [TopicFilter(text, scheme) for text, scheme in texts]
    probes = [
        TopicString(t)
        for t in [
            "t/5",
            "t/5/a",
            "t/5/b/a",
            "t/5/a/b",
            "t/5/a/b/c",
            "t/55",
            "t/5/",
            "t/x/5/a",
            "t/5/a/b/a/b",
            "t/5x/a",
        ]
    ]
    for key, flt in enumerate(flts * 2):
        index.add(key, DEFAULT_STREAM, flt)
        oracle.add(key, DEFAULT_STREAM, flt)
        for topic in probes:
            assert index.match(DEFAULT_STREAM, topic) == oracle.match(DEFAULT_STREAM, topic)
    for key in range(len(flts) * 2):
        index.remove(key)
        oracle.remove(key)
        for topic in probes:
            assert index.match(DEFAULT_STREAM, topic) == oracle.match(DEFAULT_STREAM, topic)
    assert len(index) == 0
