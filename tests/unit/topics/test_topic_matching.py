"""The exact matching rule ``matches(filter, topic)``: every example of reference §7 and the
seed sentences that name topics. Grouped as valid match / valid no-match."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from mqkafka.mq.topics import Scheme, TopicFilter, TopicString, matches

TOPIC, CHAR = Scheme.TOPIC, Scheme.CHAR

MATCH = [
    # (filter, scheme, topic, the rule or example of the reference)
    ("USA/Alaska/#", TOPIC, "USA/Alaska", "§7.2: # matches zero levels"),
    ("USA/Alaska/#", TOPIC, "USA/Alaska/Juneau", "§7.2: # matches one level"),
    ("USA/#", TOPIC, "USA", "§7.2: `USA/#` matches `USA`"),
    ("USA/#", TOPIC, "USA/Alaska/Juneau/x", "§7.2: # matches several levels"),
    ("#", TOPIC, "anything/at/all", "§7.2: # alone matches every topic"),
    ("#", TOPIC, "/", "§7.2: # matches empty levels"),
    ("IBM/+/Results", TOPIC, "IBM/Software/Results", "§7.2: + is exactly one level"),
    ("Sport/+", TOPIC, "Sport/Soccer", "§7.2: + matches the last level"),
    ("#/Results", TOPIC, "IBM/Software/Results", "§7.2: # at the start"),
    ("#/Results", TOPIC, "Results", "§7.2: # at the start matches zero levels"),
    ("a/#/b", TOPIC, "a/b", "§7.2: # in the middle, zero levels"),
    ("a/#/b", TOPIC, "a/x/y/b", "§7.2: # in the middle, two levels"),
    ("a/#/b/#", TOPIC, "a/b/b/b", "§7.2: two #"),
    ("#/#", TOPIC, "a", "§7.2: stacked #"),
    ("USA#", TOPIC, "USA#", "§7.2: `USA#` is literal text"),
    ("Sport+", TOPIC, "Sport+", "§7.2: `Sport+` is literal text"),
    ("/Sport", TOPIC, "/Sport", "§7.1: leading / is an empty first level"),
    ("+/Sport", TOPIC, "/Sport", "UNCERTAIN §7.2: + matches an empty level"),
    ("a/+", TOPIC, "a/", "UNCERTAIN §7.2: + matches an empty trailing level"),
    ("a//b", TOPIC, "a//b", "§7.1: empty levels are kept"),
    ("+/+", TOPIC, "/", "§7.1: `/` is two empty levels"),
    ("IBM/*/Results", TOPIC, "IBM/*/Results", "§7.2: * is literal in the topic scheme"),
    ("a/#", TOPIC, "a/#", "a filter # matches a literal # level of a CHAR publication"),
    ("ABC?D", CHAR, "ABC*D", "§7.3: `ABC%*D` is matched by `ABC?D`"),
    ("ABC%*D", CHAR, "ABC*D", "§7.3: %* is a literal *"),
    ("100%%", CHAR, "100%", "§7.3: %% is a literal %"),
    ("IBM/*/Results", CHAR, "IBM/Patents/Software/Results", "§7.3: * crosses /"),
    ("IBM/*/Results", CHAR, "IBM/Software/Results", "§7.3: * within one level"),
    ("Sport/*", CHAR, "Sport/Soccer/Results", "§7.3: `Sport/*` matches every Sport subtopic"),
    ("Sport/*", CHAR, "Sport/", "§7.3: * matches zero characters"),
    ("*", CHAR, "anything/at/all", "§7.3: `*` matches everything in the stream"),
    ("?", CHAR, "/", "§7.3: ? matches one character, / included"),
    ("Sport?Soccer", CHAR, "Sport/Soccer", "§7.3: / is not special"),
    ("a*b*c", CHAR, "abc", "§7.3: two * both empty"),
    ("日?", CHAR, "日本", "§7.1: any Unicode, ? is one character"),
    ("a*", CHAR, "a\nb", "§7.1: any Unicode, newline included"),
    ("USA/#", CHAR, "USA/#", "# is literal in the character scheme"),
]

NO_MATCH = [
    ("IBM/+/Results", TOPIC, "IBM/Results", "§7.2: + needs exactly one level"),
    ("IBM/+/Results", TOPIC, "IBM/A/B/Results", "§7.2: + is not two levels"),
    ("Sport/+", TOPIC, "Sport", "§7.2: `Sport/+` does not match `Sport`"),
    ("USA/Alaska/#", TOPIC, "USA", "§7.2: # cannot drop a literal level"),
    ("USA/#", TOPIC, "USAX", "§7.2: levels are compared whole"),
    ("USA#", TOPIC, "USA/x", "§7.2: `USA#` is literal, not a wildcard"),
    ("USA#", TOPIC, "USA", "§7.2: `USA#` is literal, not a wildcard"),
    ("Sport+", TOPIC, "Sport/x", "§7.2: `Sport+` is literal"),
    ("/Sport", TOPIC, "Sport", "§7.1: `/Sport` differs from `Sport`"),
    ("Sport", TOPIC, "/Sport", "§7.1: `Sport` differs from `/Sport`"),
    ("a/#/b", TOPIC, "a/b/c", "§7.2: # in the middle still needs the last level"),
    ("#/Results", TOPIC, "Results/x", "§7.2: # at the start, literal end"),
    ("sport", TOPIC, "Sport", "§7.1: case-sensitive"),
    ("IBM/*/Results", TOPIC, "IBM/Software/Results", "§7.2: * is not a wildcard here"),
    ("ABC%*D", CHAR, "ABCxD", "§7.3: %* is only a literal *"),
    ("ABC?D", CHAR, "ABCD", "§7.3: ? needs exactly one character"),
    ("ABC?D", CHAR, "ABCxyD", "§7.3: ? is not two characters"),
    ("Sport/*", CHAR, "Sport", "§7.3: the / before * is literal"),
    ("Sport/*", CHAR, "Sports/x", "§7.3: literal prefix"),
    ("IBM/*/Results", CHAR, "IBM/Software/Results/x", "§7.3: anchored at the end"),
    ("USA/#", CHAR, "USA/x", "# is no wildcard in the character scheme"),
    ("a+", CHAR, "aa", "+ is no wildcard in the character scheme"),
]


@pytest.mark.parametrize(("flt", "scheme", "topic", "rule"), MATCH)
def test_valid_match(flt: str, scheme: Scheme, topic: str, rule: str) -> None:
    assert matches(TopicFilter(flt, scheme), TopicString(topic)), rule


@pytest.mark.parametrize(("flt", "scheme", "topic", "rule"), NO_MATCH)
def test_valid_no_match(flt: str, scheme: Scheme, topic: str, rule: str) -> None:
    assert not matches(TopicFilter(flt, scheme), TopicString(topic)), rule


# ---- seed sentences ----------------------------------------------------------------------


def test_seed_s0_request_update_topic_may_use_wildcards() -> None:
    """S0: "The value is the topic that the subscriber is requesting; wildcard characters
    are allowed." Example: <Topic>Sport/Soccer/State/LatestScore/#</Topic>."""
    flt = TopicFilter("Sport/Soccer/State/LatestScore/#", TOPIC)
    assert matches(flt, TopicString("Sport/Soccer/State/LatestScore/Team1"))
    assert not matches(flt, TopicString("Sport/Soccer/Event/Goal"))


def test_seed_s1_results_service_subscribes_to_latest_scores() -> None:
    """S1: "it subscribes to the topic... Sport/Soccer/State/LatestScore/*" (the MQ v6
    character scheme)."""
    flt = TopicFilter("Sport/Soccer/State/LatestScore/*", CHAR)
    assert matches(flt, TopicString("Sport/Soccer/State/LatestScore/Team1 Team2"))
    assert not matches(flt, TopicString("Sport/Soccer/Event/Goal"))


def test_seed_s1_event_publications_are_a_separate_subscription() -> None:
    """S1: "It uses a different CorrelId from that used to subscribe to the publications...
    Sport/Soccer/Event/*": the two filters select disjoint topics."""
    events = TopicFilter("Sport/Soccer/Event/*", CHAR)
    scores = TopicFilter("Sport/Soccer/State/LatestScore/*", CHAR)
    goal = TopicString("Sport/Soccer/Event/Goal")
    assert matches(events, goal)
    assert not matches(scores, goal)


# ---- properties --------------------------------------------------------------------------

LEVELS = st.lists(st.sampled_from(["a", "b", "", "#", "+", "日"]), min_size=1, max_size=6)


@given(LEVELS)
def test_multi_level_hash_matches_every_topic(levels: list[str]) -> None:
    assert matches(TopicFilter("#", TOPIC), TopicString("/".join(levels) or "/"))


@given(LEVELS, st.integers(0, 6))
def test_hash_at_any_position_matches_the_topic_with_levels_inserted(
    levels: list[str], at: int
) -> None:
    """`p/#/q` matches `p/q` and `p/x/y/q` (§7.2: zero or more levels, anywhere)."""
    literal = [level if level not in ("#", "+") else "x" for level in levels]
    assume(literal != [""])  # "" is no topic (§7.1)
    at = min(at, len(literal))
    flt = TopicFilter("/".join([*literal[:at], "#", *literal[at:]]), TOPIC)
    assert matches(flt, TopicString("/".join(literal)))
    assert matches(flt, TopicString("/".join([*literal[:at], "u", "v", *literal[at:]])))


@given(st.text(st.sampled_from(["a", "b", "/", "*", "?", "%", " "]), min_size=1, max_size=10))
def test_star_matches_everything_in_the_character_scheme(text: str) -> None:
    assert matches(TopicFilter("*", CHAR), TopicString(text))


@given(
    st.text(st.sampled_from(["a", "b", "/", "*", "?"]), min_size=1, max_size=8),
    st.text(st.sampled_from(["a", "b", "/", "x"]), min_size=1, max_size=8),
)
def test_character_scheme_agrees_with_fnmatch_style_regex(pattern: str, topic: str) -> None:
    """An independent translation: the pattern's `*`/`?` as regex, everything else escaped."""
    regex = "".join({"*": ".*", "?": "."}.get(ch, re.escape(ch)) for ch in pattern)
    expected = re.fullmatch(regex, topic, re.DOTALL) is not None
    assert matches(TopicFilter(pattern, CHAR), TopicString(topic)) == expected
