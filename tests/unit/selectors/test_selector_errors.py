"""Invalid filters fail at compile time with MQRCCF_FILTER_ERROR (3150), saying where.

Each row gives the filter, the 1-based column the error must point at, and a fragment the
detail must contain. ``MQError.position`` is the 0-based offset of the same place.
"""

from __future__ import annotations

import pytest

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.selectors import DictMessageView, SelectorFilterPort, compile_selector
from mqkafka.selectors.parser import MAX_HEIGHT, MAX_NESTING


def _error(text: str) -> MQError:
    with pytest.raises(MQError) as caught:
        compile_selector(text)
    assert caught.value.reason == RC.CF_FILTER_ERROR
    assert caught.value.parm == "Filter"
    return caught.value


SYNTAX_ERRORS = [
    # (filter, column, detail fragment)
    ("a = ", 5, "the filter ends"),
    ("a = 1 AND", 10, "the filter ends"),
    ("a = 'x", 5, "string literal is not closed"),
    ("a == 1", 3, "use a single ="),
    ("a != 1", 3, "use <>"),
    ("a = 1 && b = 2", 7, "use AND"),
    ("a = 1 || b = 2", 7, "use OR"),
    ("20 < b < 30", 8, "cannot be chained"),
    ("a = 1 b", 7, "expected AND, OR or the end"),
    ("(a = 1", 7, "')' to close the '(' at column 1"),
    ("a = 1)", 6, "expected AND, OR or the end"),
    ("a.b = 1", 1, "'.' is only allowed in Body.<path> and Root.<path>"),
    ("NULL = a", 1, "NULL is only allowed in IS [NOT] NULL"),
    ("a = NULL", 5, "NULL is only allowed in IS [NOT] NULL"),
    ("and = 1", 1, "AND is a reserved word"),
    ("a = 1 AND between = 2", 11, "BETWEEN is a reserved word"),
    ("escape = 1", 1, "ESCAPE is a reserved word"),
    ("a IN ()", 7, "a literal in the IN list"),
    ("a IN (b)", 7, "a literal in the IN list"),
    ("a IN (NULL)", 7, "a literal in the IN list"),
    ("a IN 'x'", 6, "'(' after IN"),
    ("a IN ('x' 'y')", 11, "',' or ')' in the IN list"),
    ("a LIKE b", 8, "a string literal pattern after LIKE"),
    ("a LIKE 'x' ESCAPE 'ab'", 19, "one-character string literal"),
    ("a LIKE 'x' ESCAPE ''", 19, "one-character string literal"),
    ("a LIKE 'x!' ESCAPE '!'", 8, "must precede %, _ or itself"),
    ("a LIKE '!a' ESCAPE '!'", 8, "must precede %, _ or itself"),
    ("a BETWEEN 1 2", 13, "AND between the two BETWEEN bounds"),
    ("a IS 1", 6, "NULL after IS"),
    ("a IS NOT 1", 10, "NULL after IS NOT"),
    ("a NOT = 1", 3, "expected AND, OR or the end"),
    ("a = 09", 5, "invalid octal"),
    ("a = 0x", 5, "needs digits after 0x"),
    ("a = 0xG1", 5, "needs digits after 0x"),
    ('a = 0x"ABC"', 5, "even number of hex digits"),  # MQ: 0xAFC23 is a syntax error
    ('a = 0x""', 5, "needs hex digits"),
    ('a = 0x"GG"', 5, "needs hex digits"),
    ('a = 0x"AB', 5, "byte string is not closed"),
    ("a = 12abc", 5, "malformed number"),
    ("a = 1.2.3", 5, "malformed number"),
    ("a = 1.5L", 5, "cannot end in L"),
    ("a = 9223372036854775808", 5, "out of the range of a long"),
    ("a = -9223372036854775809", 6, "out of the range of a long"),
    ("a = 1e999", 5, "out of the range of a double"),
    ("#a = 1", 1, "unexpected character"),
    ("a = 1;", 6, "unexpected character"),
    ('"a" = 1', 1, "expected a value"),  # double quotes are not strings
    ('Body."a = 1', 6, "quoted name is not closed"),
    ('Body."" = 1', 6, "cannot be empty"),
    ("Body. = 1", 7, "a name after '.'"),
    ("Body.a[0] = 1", 8, "an index is a whole number from 1"),
    ("Body.a[x] = 1", 8, "an index is a whole number from 1"),
    ("Body.a[1 = 1", 10, "']' after the index"),
    ("Root.Foo.x = 1", 1, "unsupported Root reference"),
    ("Root.MQMD = 1", 1, "unsupported Root reference"),
    ("Root.MQMD.Priority.x = 1", 1, "unsupported Root reference"),
    ("Root.JSON.a = 1", 1, "unsupported Root reference"),
    ("Root.MQMD.Nope = 1", 1, "the MQMD has no field 'Nope'"),
    ("Root.MQMD.priority = 1", 1, "the MQMD has no field 'priority'"),  # case-sensitive
]

STATIC_TYPE_ERRORS = [
    ("'a' = 1", 5, "a number cannot be compared with a string"),
    ("a = 1 AND 'a' <> TRUE", 15, "a boolean cannot be compared with a string"),
    ("a + 'x' = 1", 5, "'+' needs numbers, not a string"),
    ("a * TRUE = 1", 5, "'*' needs numbers, not a boolean"),
    ("-'x' = a", 1, "unary '-' needs a number"),
    ("'a' < 'b'", 5, "orders numbers only"),
    ("s < 'b'", 3, "orders numbers only"),
    ("TRUE >= b", 6, "orders numbers only"),
    ('k < 0x"FF"', 3, "orders numbers only"),
    ("a BETWEEN 'x' AND 'y'", 11, "BETWEEN compares numbers only"),
    ("TRUE BETWEEN 1 AND 2", 1, "BETWEEN compares numbers only"),
    ("5 LIKE 'x'", 1, "LIKE needs a string"),
    ("a", None, None),  # a bare property is a valid condition (a boolean property)
    ("5", 1, "a filter must be a condition"),
    ("a + 1", 3, "a filter must be a condition"),
    ("'x'", 1, "a filter must be a condition"),
    ("NOT 5", 1, "NOT needs a condition"),
    ("a AND 5", 7, "AND needs conditions"),
    ("a OR 'x'", 6, "OR needs conditions"),
    ("JMSPriority = 'high'", 13, "a number cannot be compared with a string"),
    ("JMSDeliveryMode = 1", 17, "a number cannot be compared with a string"),
    ("JMSPriority IN ('a')", 17, "a number cannot be compared with a string"),
    ("Root.MQMD.Priority = 'x'", 20, "a number cannot be compared with a string"),
    ("Root.MQMD.CorrelId = 'x'", 20, "a byte string cannot be compared with a string"),
    ("Root.MQMD.Format < 'x'", 18, "orders numbers only"),
]


@pytest.mark.parametrize(("text", "column", "fragment"), SYNTAX_ERRORS)
def test_syntax_errors_say_where(text: str, column: int, fragment: str) -> None:
    error = _error(text)
    assert fragment in error.detail
    assert f"column {column}" in error.detail
    assert error.position == column - 1


@pytest.mark.parametrize(("text", "column", "fragment"), STATIC_TYPE_ERRORS)
def test_static_type_errors_fail_at_registration(
    text: str, column: int | None, fragment: str | None
) -> None:
    """Combinations that can never be valid fail the RegSub rather than every publication."""
    if column is None:
        assert compile_selector(text).text == text
        return
    error = _error(text)
    assert fragment is not None and fragment in error.detail
    assert error.position == column - 1


def test_error_detail_names_the_offending_token() -> None:
    error = _error("colour = 'red' AND size >> 3")
    assert error.detail == (
        "invalid filter at column 26 near '>': expected a value, an identifier or '(', "
        "found operator"
    )
    assert str(error).startswith("MQRCCF_FILTER_ERROR (3150): invalid filter at column 26")


@pytest.mark.parametrize(
    "text",
    [
        "1 = 2",
        "FALSE",
        "NOT TRUE",
        "1 / 0 = 1",  # constant UNKNOWN never selects either
        "'a' LIKE 'b'",
        "a = 1 AND 1 = 2",  # FALSE AND anything
        "(a = 1 OR b = 2) AND FALSE",
        "NOT (a = 1 OR TRUE)",
        "2 BETWEEN 3 AND 4",
        "'x' IN ('y')",
        "1 IS NULL",
        "'a' = 'b' AND x > 1",
        "x > 1 AND NOT (2 > 1)",
        "1 + 1 = 3 OR 'a' <> 'a'",
    ],
)
def test_always_false_filter_is_rejected(text: str) -> None:
    """Reference §8: "A selector that is constant-FALSE is rejected with
    MQRC_SELECTOR_ALWAYS_FALSE 2504" - decided by constant folding, not by a message."""
    with pytest.raises(MQError) as caught:
        compile_selector(text)
    assert (caught.value.reason, caught.value.parm) == (RC.SELECTOR_ALWAYS_FALSE, "Filter")
    assert "always false" in caught.value.detail


@pytest.mark.parametrize(
    "text", ["TRUE", "1 = 1", "a = 1 OR TRUE", "NOT FALSE", "'a' LIKE 'a%'", "1 IS NOT NULL"]
)
def test_constant_true_filter_selects_everything(text: str) -> None:
    """MQ8 "Selection behavior": a selection string that resolves to TRUE before any property
    is considered delivers every publication."""
    selector = compile_selector(text)
    assert selector.selects_all
    assert selector.matches(DictMessageView())
    assert selector.matches(DictMessageView({"a": 2}))


@pytest.mark.parametrize("text", ["", " ", "\t\n  "])
def test_blank_filter_is_no_selection(text: str) -> None:
    """Reference §8: "Empty selector = no selection"."""
    selector = compile_selector(text)
    assert selector.selects_all
    assert selector.evaluate(DictMessageView({"x": 1})) is True


def test_filter_must_be_text() -> None:
    with pytest.raises(MQError) as caught:
        compile_selector(b"a = 1")  # type: ignore[arg-type]
    assert caught.value.reason == RC.CF_FILTER_ERROR


def test_nesting_limit_is_a_filter_error_not_a_crash() -> None:
    deep = "(" * (MAX_NESTING + 1) + "a = 1" + ")" * (MAX_NESTING + 1)
    assert "nested more than" in _error(deep).detail
    ok = "(" * MAX_NESTING + "a = 1" + ")" * MAX_NESTING
    assert compile_selector(ok).matches(DictMessageView({"a": 1}))
    assert "nested more than" in _error("NOT " * (MAX_NESTING + 1) + "a").detail
    assert "nested more than" in _error("- " * (MAX_NESTING + 1) + "a = 1").detail


def test_height_limit_covers_long_operator_chains() -> None:
    too_tall = " + ".join(["a"] * (MAX_HEIGHT + 1)) + " = 1"
    assert "nested more than" in _error(too_tall).detail
    fine = " + ".join(["a"] * 50) + " = 50"
    assert compile_selector(fine).matches(DictMessageView({"a": 1}))


def test_long_flat_or_chains_are_fine() -> None:
    """OR/AND chains are flattened, so a long list of alternatives is not "deep"."""
    text = " OR ".join(f"a = {i}" for i in range(2000))
    selector = compile_selector(text)
    assert selector.matches(DictMessageView({"a": 1999}))
    assert not selector.matches(DictMessageView({"a": 2000}))


def test_filter_port_raises_the_same_error() -> None:
    with pytest.raises(MQError) as caught:
        SelectorFilterPort().compile("a = ")
    assert caught.value.reason == RC.CF_FILTER_ERROR
