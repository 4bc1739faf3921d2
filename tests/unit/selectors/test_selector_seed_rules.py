"""One test per seed/reference rule about filters, each citing the sentence it checks.

Seed 000 is "Request Update message" (reference tag S0); §8 is the reference's Filters section.
What the engine does with a compiled filter (RegSub storage, ReqUpdate matching) is tested
with the engine; here each rule is checked at the selector port the engine calls.
"""

from __future__ import annotations

import pytest

from mqkafka.engine.ports import CompiledFilter, FilterPort, MessageView
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.selectors import DictMessageView, SelectorFilterPort, cached_view

PORT: FilterPort = SelectorFilterPort()

# Retained publications of the S0 sample: latest soccer scores, one per match.
SCORES = [
    DictMessageView(body=b"<Score><Home>3</Home><Away>1</Away><Team>Reds</Team></Score>"),
    DictMessageView(body=b'{"Score": {"Home": 0, "Away": 0, "Team": "Blues"}}', msd="json"),
    DictMessageView(body=b"<Score><Home>2</Home><Away>2</Away><Team>Greens</Team></Score>"),
]


def _selected(text: str, publications: list[DictMessageView]) -> list[int]:
    compiled: CompiledFilter = PORT.compile(text)
    return [i for i, p in enumerate(publications) if compiled.matches(cached_view(p))]


def test_s0_request_update_returns_retained_publications_that_match_the_filter() -> None:
    """S0: "to request the current retained publications for the specified topic and
    subscription point that match the given (optional) filter"."""
    assert _selected("Body.Score.Home > Body.Score.Away", SCORES) == [0]
    assert _selected("Body.Score.Home = Body.Score.Away", SCORES) == [1, 2]


def test_s0_filter_is_an_expression_on_the_contents_of_publication_messages() -> None:
    """S0: "The value is an ESQL expression that is used as a filter on the contents of
    publication messages" — ESQL-style Body paths read the XML and JSON contents."""
    assert _selected("Body.Score.Team LIKE 'B%' OR Body.Score.Team LIKE 'G%'", SCORES) == [1, 2]
    assert _selected("Body.Score.Home + Body.Score.Away >= 4", SCORES) == [0, 2]


def test_s0_a_publication_that_matches_the_filter_is_sent() -> None:
    """S0: "If a publication on the specified topic matches the filter, it is sent to the
    subscriber" — and one that does not match (FALSE or UNKNOWN) is not."""
    compiled = PORT.compile("Body.Score.Home > 2")
    assert compiled.matches(SCORES[0]) is True
    assert compiled.matches(SCORES[2]) is False
    unparsable: MessageView = DictMessageView(body=b"3-1")
    assert compiled.matches(unparsable) is False  # UNKNOWN: no Score in a plain-text body


def test_s0_omitted_filter_means_no_content_filtering() -> None:
    """S0: "If this property is omitted, no content filtering takes place." An empty
    <Filter/> is treated the same way (§8: "Empty selector = no selection")."""
    for text in ("", "   "):
        compiled = PORT.compile(text)
        assert all(compiled.matches(p) for p in SCORES)


def test_s0_filter_has_the_same_value_as_on_the_subscription() -> None:
    """S0: "The <Filter> property should have the same value as that specified on the original
    subscription" — a compiled filter keeps its text, and equal texts give equal filters."""
    text = "Body.Score.Home > 2"
    assert PORT.compile(text).text == text
    assert PORT.compile(text) == PORT.compile(text)
    assert PORT.compile(text) != PORT.compile("Body.Score.Home > 3")


def test_ref8_invalid_syntax_is_mqrccf_filter_error() -> None:
    """§8: "Invalid syntax → MQRCCF_FILTER_ERROR 3150"."""
    try:
        PORT.compile("Body.Score.Home >")
    except MQError as error:
        assert error.reason == RC.CF_FILTER_ERROR
        assert int(RC.CF_FILTER_ERROR) == 3150
        assert error.position == len("Body.Score.Home >")
    else:
        raise AssertionError("an invalid filter was accepted")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("1 = 2", RC.SELECTOR_ALWAYS_FALSE),
        ("NOT TRUE", RC.SELECTOR_ALWAYS_FALSE),
        ("'a' = 'b' AND x > 1", RC.SELECTOR_ALWAYS_FALSE),
        ("x > 1 AND 1 = 2", RC.SELECTOR_ALWAYS_FALSE),
        ("1 = 2 OR x > 1", None),  # FALSE OR x: depends on x
        ("x >", RC.CF_FILTER_ERROR),  # a syntax error stays 3150
        ("1 = 2 AND", RC.CF_FILTER_ERROR),  # even when what parses is constant
    ],
)
def test_ref8_constant_false_is_selector_always_false(text: str, reason: int | None) -> None:
    """§8: "A selector that is constant-FALSE is rejected with MQRC_SELECTOR_ALWAYS_FALSE
    2504" - found by constant folding; "Invalid syntax → MQRCCF_FILTER_ERROR 3150"."""
    try:
        PORT.compile(text)
    except MQError as error:
        assert error.reason == reason
    else:
        assert reason is None


def test_ref8_missing_property_is_null_and_only_true_selects() -> None:
    """§8: "a missing property is NULL (unknown); comparisons/arithmetic with NULL give
    unknown; ... only TRUE selects"."""
    compiled = PORT.compile("Colour = 'red' OR Colour <> 'red'")
    assert not compiled.matches(DictMessageView())
    assert compiled.matches(DictMessageView({"Colour": "blue"}))


def test_ref8_identifiers_name_usr_properties_jms_headers_and_mqmd_fields() -> None:
    """§8: identifiers "name message properties (the usr folder's properties by bare name);
    JMS header names ... and Root.MQMD.<field> style references to MQMD fields"."""
    view = DictMessageView({"Colour": "red"}, {"Priority": 7, "Persistence": 1})
    text = "Colour = 'red' AND JMSPriority = 7 AND JMSDeliveryMode = 'PERSISTENT'"
    assert PORT.compile(text + " AND Root.MQMD.Persistence = 1").matches(view)


def test_mq8_color_is_null_matches_a_message_without_properties() -> None:
    """MQ8 Selection behavior: "a message might still satisfy a selection string like
    'Color IS NULL', where 'Color' does not exist as a message property"."""
    assert PORT.compile("Color IS NULL").matches(DictMessageView())
