"""Publication topics and subscription filters are validated apart (mosquitto's model):
reference §7.1-§7.3 and the §10.6 choice. Grouped as empty input / valid / invalid."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mq.topics import (
    DEFAULT_STREAM,
    DEFAULT_STREAM_NAME,
    DEFAULT_SUBPOINT,
    MQ_TOPIC_STR_LENGTH,
    CharToken,
    Namespace,
    NamespaceKind,
    Scheme,
    TopicFilter,
    TopicString,
    escape_char_literal,
    matches,
    parse_char_pattern,
    validate_filter,
    validate_publish_topic,
)

TOPIC, CHAR = Scheme.TOPIC, Scheme.CHAR


def reason_of(call: object) -> int:
    assert callable(call)
    with pytest.raises(MQError) as caught:
        call()
    return caught.value.reason


# ---- empty input -------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", [TOPIC, CHAR])
def test_empty_publication_topic_is_a_topic_error(scheme: Scheme) -> None:
    assert reason_of(lambda: validate_publish_topic("", scheme)) == RC.CF_TOPIC_ERROR


@pytest.mark.parametrize("scheme", [TOPIC, CHAR])
def test_empty_filter_is_a_topic_error(scheme: Scheme) -> None:
    assert reason_of(lambda: validate_filter("", scheme)) == RC.CF_TOPIC_ERROR


def test_empty_topic_string_value_is_refused() -> None:
    assert reason_of(lambda: TopicString("")) == RC.CF_TOPIC_ERROR


# ---- valid publication topics ------------------------------------------------------------

VALID_PUBLICATIONS = [
    # (wire text, scheme, canonical literal, why)
    ("Sport/Soccer/Results", TOPIC, "Sport/Soccer/Results", "plain levels"),
    ("/Sport", TOPIC, "/Sport", "leading / is kept: a different topic (§7.1)"),
    ("Sport/", TOPIC, "Sport/", "trailing empty level is legal (§7.1)"),
    ("a//b", TOPIC, "a//b", "empty middle level is legal (§7.1)"),
    ("USA#", TOPIC, "USA#", "embedded # is a literal (§7.2, §10.6)"),
    ("Sport+/x+y", TOPIC, "Sport+/x+y", "embedded + is a literal (§7.2, §10.6)"),
    ("#a/b+", TOPIC, "#a/b+", "# or + beside other text stays literal"),
    ("IBM/*/Results", TOPIC, "IBM/*/Results", "* and ? mean nothing in the topic scheme"),
    ("100%", TOPIC, "100%", "% means nothing in the topic scheme"),
    ("Blank level/ x ", TOPIC, "Blank level/ x ", "blanks are ordinary characters (§7.1)"),
    ("Ünïcode/日本", TOPIC, "Ünïcode/日本", "any Unicode (§7.1)"),
    ("ABC%*D", CHAR, "ABC*D", "%* is a literal * (§7.3)"),
    ("A%?B", CHAR, "A?B", "%? is a literal ? (§7.3)"),
    ("100%%", CHAR, "100%", "%% is a literal % (§7.3)"),
    ("a/#/+", CHAR, "a/#/+", "# and + mean nothing in the character scheme"),
    ("x" * MQ_TOPIC_STR_LENGTH, TOPIC, "x" * MQ_TOPIC_STR_LENGTH, "exactly the maximum length"),
]


@pytest.mark.parametrize(("text", "scheme", "literal", "why"), VALID_PUBLICATIONS)
def test_valid_publication_topic(text: str, scheme: Scheme, literal: str, why: str) -> None:
    assert validate_publish_topic(text, scheme) == TopicString(literal), why


def test_character_escaped_and_topic_scheme_spellings_are_one_topic() -> None:
    """Retained publications are keyed by topic: `ABC%*D` (RFH1) is `ABC*D` (RFH2)."""
    assert validate_publish_topic("ABC%*D", CHAR) == validate_publish_topic("ABC*D", TOPIC)


@pytest.mark.parametrize(
    ("literal", "scheme", "spelled"),
    [("ABC*D", CHAR, "ABC%*D"), ("a?%", CHAR, "a%?%%"), ("ABC*D", TOPIC, "ABC*D")],
)
def test_topic_is_spelled_for_each_scheme(literal: str, scheme: Scheme, spelled: str) -> None:
    assert TopicString(literal).spelled_for(scheme) == spelled


# ---- invalid publication topics ----------------------------------------------------------

INVALID_PUBLICATIONS = [
    ("#", TOPIC, RC.CF_TOPIC_ERROR, "a whole-level # is a wildcard (§10.6)"),
    ("+", TOPIC, RC.CF_TOPIC_ERROR, "a whole-level + is a wildcard (§10.6)"),
    ("USA/#", TOPIC, RC.CF_TOPIC_ERROR, "trailing # level"),
    ("#/Results", TOPIC, RC.CF_TOPIC_ERROR, "leading # level"),
    ("IBM/+/Results", TOPIC, RC.CF_TOPIC_ERROR, "middle + level"),
    ("a//+", TOPIC, RC.CF_TOPIC_ERROR, "+ after an empty level"),
    ("ABC*D", CHAR, RC.CF_TOPIC_ERROR, "unescaped * in an RFH1 publication (§7.3)"),
    ("ABC?D", CHAR, RC.CF_TOPIC_ERROR, "unescaped ? in an RFH1 publication (§7.3)"),
    ("*", CHAR, RC.CF_TOPIC_ERROR, "a lone *"),
    ("100%", CHAR, RC.CF_TOPIC_ERROR, "% at the end escapes nothing (§7.3)"),
    ("A%B", CHAR, RC.CF_TOPIC_ERROR, "% may escape only * ? % (§7.3)"),
    ("A%/B", CHAR, RC.CF_TOPIC_ERROR, "% may not escape /"),
    ("a\0b", TOPIC, RC.CF_TOPIC_ERROR, "NUL (§7.1)"),
    ("a\0b", CHAR, RC.CF_TOPIC_ERROR, "NUL (§7.1)"),
    ("x" * (MQ_TOPIC_STR_LENGTH + 1), TOPIC, RC.CF_TOPIC_ERROR, "over MQ_TOPIC_STR_LENGTH"),
    ("é" * (MQ_TOPIC_STR_LENGTH // 2 + 1), TOPIC, RC.CF_TOPIC_ERROR, "over 10240 UTF-8 bytes"),
    ("$SYS/MQ/INFO/QMGR", TOPIC, RC.ADMIN_TOPIC_STRING_ERROR, "admin topics (§7.1, 2598)"),
    ("$SYS/MQ/x", CHAR, RC.ADMIN_TOPIC_STRING_ERROR, "admin topics in either scheme"),
]


@pytest.mark.parametrize(("text", "scheme", "reason", "why"), INVALID_PUBLICATIONS)
def test_invalid_publication_topic(text: str, scheme: Scheme, reason: RC, why: str) -> None:
    assert reason_of(lambda: validate_publish_topic(text, scheme)) == reason, why


def test_topic_error_names_the_topic_property() -> None:
    with pytest.raises(MQError) as caught:
        validate_publish_topic("a/#", TOPIC)
    assert caught.value.parm == "Topic"


# ---- subscription filters ----------------------------------------------------------------

VALID_FILTERS = [
    ("#", TOPIC, True),
    ("+", TOPIC, True),
    ("USA/#", TOPIC, True),
    ("a/#/b", TOPIC, True),
    ("#/Results", TOPIC, True),
    ("USA#", TOPIC, False),
    ("Sport+", TOPIC, False),
    ("IBM/*/Results", TOPIC, False),
    ("a%b", TOPIC, False),
    ("*", CHAR, True),
    ("IBM/*/Results", CHAR, True),
    ("ABC?D", CHAR, True),
    ("ABC%*D", CHAR, False),
    ("%%%?%*", CHAR, False),
    ("a/#/+", CHAR, False),
    ("Sport/Soccer/State/LatestScore/*", CHAR, True),
]


@pytest.mark.parametrize(("text", "scheme", "wild"), VALID_FILTERS)
def test_valid_filter(text: str, scheme: Scheme, wild: bool) -> None:
    flt = validate_filter(text, scheme)
    assert (flt.text, flt.scheme, flt.has_wildcards) == (text, scheme, wild)


INVALID_FILTERS = [
    ("A%B", CHAR, "% may escape only * ? % (§7.3)"),
    ("A%", CHAR, "% at the end"),
    ("%/", CHAR, "% may not escape /"),
    ("a\0", TOPIC, "NUL"),
    ("a\0", CHAR, "NUL"),
    ("#" * (MQ_TOPIC_STR_LENGTH + 1), TOPIC, "too long"),
]


@pytest.mark.parametrize(("text", "scheme", "why"), INVALID_FILTERS)
def test_invalid_filter(text: str, scheme: Scheme, why: str) -> None:
    assert reason_of(lambda: validate_filter(text, scheme)) == RC.CF_TOPIC_ERROR, why


def test_same_text_in_two_schemes_is_two_filters() -> None:
    """The scheme is part of the filter: never inferred from the text (§7, §10.16)."""
    assert TopicFilter("a/*", TOPIC) != TopicFilter("a/*", CHAR)


def test_char_pattern_tokens() -> None:
    assert parse_char_pattern("A%*B*C?%%") == (
        CharToken("A*B", wildcard=False),
        CharToken("*", wildcard=True),
        CharToken("C", wildcard=False),
        CharToken("?", wildcard=True),
        CharToken("%", wildcard=False),
    )


# ---- namespaces --------------------------------------------------------------------------


def test_default_namespaces() -> None:
    assert Namespace(NamespaceKind.STREAM, DEFAULT_STREAM_NAME) == DEFAULT_STREAM
    assert Namespace(NamespaceKind.SUBPOINT, "") == DEFAULT_SUBPOINT
    assert DEFAULT_STREAM.is_default and DEFAULT_SUBPOINT.is_default
    assert not Namespace.stream("Sport").is_default


def test_stream_and_subpoint_of_one_name_are_different_namespaces() -> None:
    assert Namespace.stream("Sport") != Namespace.subpoint("Sport")


def test_stream_name_padding_is_dropped() -> None:
    assert Namespace.stream("Sport   ") == Namespace.stream("Sport")


@pytest.mark.parametrize(
    ("build", "reason"),
    [
        (lambda: Namespace.stream(""), RC.CF_STREAM_ERROR),
        (lambda: Namespace.stream("A" * 49), RC.CF_STREAM_ERROR),
        (lambda: Namespace.stream("BAD NAME"), RC.CF_STREAM_ERROR),
        (lambda: Namespace.stream("BAD-NAME"), RC.CF_STREAM_ERROR),
        (lambda: Namespace.subpoint("x" * 129), RC.CF_SUBSCRIPTION_POINT_ERR),
        (lambda: Namespace.subpoint("a\0"), RC.CF_SUBSCRIPTION_POINT_ERR),
    ],
)
def test_invalid_namespace(build: object, reason: RC) -> None:
    assert reason_of(build) == reason


@pytest.mark.parametrize("name", ["A" * 48, "APP/REPLY%1", "Sport.Results_2"])
def test_valid_stream_names(name: str) -> None:
    assert Namespace.stream(name).name == name


# ---- properties --------------------------------------------------------------------------

ANY_TEXT = st.text(
    st.sampled_from(["a", "/", "#", "+", "*", "?", "%", " ", "é", "日", "\0"]), max_size=12
)


@given(st.text(st.characters(blacklist_characters="\0"), min_size=1, max_size=40))
def test_escaped_literal_round_trips_through_a_char_publication(literal: str) -> None:
    if literal.startswith("$SYS/MQ/"):
        return
    escaped = escape_char_literal(literal)
    assert validate_publish_topic(escaped, CHAR) == TopicString(literal)


@given(ANY_TEXT, st.sampled_from([TOPIC, CHAR]))
def test_validation_raises_only_mq_errors(text: str, scheme: Scheme) -> None:
    for validate in (validate_publish_topic, validate_filter):
        try:
            validate(text, scheme)
        except MQError as error:
            assert error.reason in (RC.CF_TOPIC_ERROR, RC.ADMIN_TOPIC_STRING_ERROR)


@given(ANY_TEXT)
def test_every_valid_publication_is_a_valid_filter_matching_itself(text: str) -> None:
    """A publication topic, spelled for either scheme, is a filter selecting itself."""
    for scheme in (TOPIC, CHAR):
        try:
            topic = validate_publish_topic(text, scheme)
        except MQError:
            continue
        flt = validate_filter(topic.spelled_for(scheme), scheme)
        assert matches(flt, topic)
