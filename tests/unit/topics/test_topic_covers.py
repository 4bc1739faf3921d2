"""``covers``: one topic filter selects everything another selects (issue 35 point 2: ACL
rules are filters, a subscription is judged by what it could receive)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqkafka.mq.topics import Scheme, TopicFilter, TopicString, covers, matches


@pytest.mark.parametrize(
    ("outer", "inner", "expected"),
    [
        ("#", "#", True),
        ("#", "a/+/b", True),
        ("Secret/#", "Secret", True),  # `#` is zero levels too
        ("Secret/#", "Secret/Plans/x", True),
        ("Secret/#", "Secret/+", True),
        ("Secret/#", "#", False),
        ("Secret/#", "+/Plans", False),  # overlaps (Secret/Plans) but does not cover
        ("+/Plans", "Secret/Plans", True),
        ("+/Plans", "#", False),
        ("+", "#", False),  # `#` may be no level or several
        ("+/#", "#", False),  # `#` may be no level
        ("#/x", "#/x", True),
        ("a/+", "a/#", False),
        ("a/#", "a/+/#", True),
        ("Sport", "Sport", True),
        ("Sport", "Sport#", False),  # `#` inside a level is a character
    ],
)
def test_covers(outer: str, inner: str, expected: bool) -> None:
    assert covers(outer, inner) is expected


LEVELS = st.sampled_from(["a", "b", "", "#", "+"])
FILTERS = st.lists(LEVELS, min_size=1, max_size=4).map("/".join).filter(bool)
TOPICS = st.lists(st.sampled_from(["a", "b", ""]), min_size=1, max_size=5).map("/".join)


def _matches(flt: str, topic: str) -> bool:
    return matches(TopicFilter(flt, Scheme.TOPIC), TopicString(topic)) if flt else False


@settings(max_examples=300, deadline=None)
@given(FILTERS, TOPICS)
def test_a_topic_is_covered_exactly_when_it_matches(flt: str, topic: str) -> None:
    if not topic:
        return
    assert covers(flt, topic) is _matches(flt, topic)


# every topic of up to 6 levels over the alphabet: enough to refute a wrong "covers"
_ALL = [
    "/".join(levels)
    for n in range(1, 7)
    for levels in itertools.product(["a", "b", ""], repeat=n)
    if "/".join(levels)
]


@settings(max_examples=200, deadline=None)  # ~1,000 topics each: no deadline on a busy machine
@given(FILTERS, FILTERS)
def test_covers_means_every_topic_the_inner_filter_selects_the_outer_one_does(
    outer: str, inner: str
) -> None:
    if covers(outer, inner):
        assert all(_matches(outer, t) for t in _ALL if _matches(inner, t))
    elif "#" not in inner:  # a finite inner filter: a witness lies within 6 levels
        assert any(_matches(inner, t) and not _matches(outer, t) for t in _ALL)
