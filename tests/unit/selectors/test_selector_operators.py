"""Every operator of the selector language, table by table (reference §8, JMS 3.8.1).

Each row is (filter, usr properties, expected) where expected is True, False or None
(UNKNOWN). A property missing from the dict is NULL.
"""

from __future__ import annotations

import pytest

from tests.unit.selectors.helpers import evaluate

T, F, U = True, False, None
Row = tuple[str, dict[str, object], bool | None]


def _check(text: str, properties: dict[str, object], expected: bool | None) -> None:
    assert evaluate(text, properties) is expected


LITERALS: list[Row] = [
    ("a = 57", {"a": 57}, T),
    ("a = -957", {"a": -957}, T),
    ("a = +62", {"a": 62}, T),
    ("a = 57L", {"a": 57}, T),  # optional L suffix "does not affect how the number is stored"
    ("a = 57l", {"a": 57}, T),
    ("a = 7E3", {"a": 7000}, T),
    ("a = -57.9E2", {"a": -5790.0}, T),
    ("a = 7.", {"a": 7}, T),
    ("a = 95.7", {"a": 95.7}, T),
    ("a = .5", {"a": 0.5}, T),
    ("a = 1.5e-3", {"a": 0.0015}, T),
    ("a = 2D", {"a": 2.0}, T),
    ("a = 0xA0", {"a": 160}, T),  # MQ: hex numbers
    ("a = 0X2020", {"a": 0x2020}, T),
    ("a = 0177", {"a": 127}, T),  # MQ: a leading zero means octal
    ("a = 0", {"a": 0}, T),
    ("a = -9223372036854775808", {"a": -(2**63)}, T),
    ("a = 9223372036854775807", {"a": 2**63 - 1}, T),
    ("s = 'literal'", {"s": "literal"}, T),
    ("s = 'literal''s'", {"s": "literal's"}, T),  # '' is one quote
    ("s = ''", {"s": ""}, T),
    ("s = 'a\"b'", {"s": 'a"b'}, T),
    ("s = 'ünï ☃'", {"s": "ünï ☃"}, T),
    ("b = TRUE", {"b": True}, T),
    ("b = FALSE", {"b": False}, T),
]

# MQ "Message selector syntax" byte-string examples, with myBytes = 0AFC23.
BYTE_STRINGS: list[Row] = [
    ('myBytes = 0x"0AFC23"', {"myBytes": bytes.fromhex("0AFC23")}, T),
    ('myBytes = 0x"0AFC2300"', {"myBytes": bytes.fromhex("0AFC23")}, F),  # trailing zeros count
    ('myBytes = 0x"000AFC23"', {"myBytes": bytes.fromhex("0AFC23")}, F),  # leading zeros count
    ('myBytes = 0x"23FC0A"', {"myBytes": bytes.fromhex("0AFC23")}, F),  # no byte swapping
    ('myBytes <> 0x"23FC0A"', {"myBytes": bytes.fromhex("0AFC23")}, T),
    ('myBytes = 0x"0afc23"', {"myBytes": bytes.fromhex("0AFC23")}, T),
    ('myBytes = 0x"0AFC23"', {"myBytes": "0AFC23"}, U),  # a string is not a byte string
    ('myBytes = 0x"0AFC23"', {}, U),
]

COMPARISONS: list[Row] = [
    # numbers, exact and approximate, compare numerically
    ("a = 1", {"a": 1}, T),
    ("a = 1", {"a": 1.0}, T),
    ("a = 1.0", {"a": 1}, T),
    ("a = 1", {"a": 2}, F),
    ("a <> 1", {"a": 2}, T),
    ("a <> 1", {"a": 1}, F),
    ("a < 2", {"a": 1}, T),
    ("a < 2", {"a": 2}, F),
    ("a > 2", {"a": 3}, T),
    ("a > 2", {"a": 2.0}, F),
    ("a <= 2", {"a": 2}, T),
    ("a <= 2", {"a": 2.5}, F),
    ("a >= 2.5", {"a": 2.5}, T),
    ("a >= 2.5", {"a": 2}, F),
    ("2 > a", {"a": 1}, T),  # literal on the left
    ("2 <= a", {"a": 1}, F),
    ("a = b", {"a": 1, "b": 1.0}, T),
    ("a < b", {"a": 1, "b": 2.5}, T),
    ("a > b", {"a": 1, "b": 2.5}, F),
    # strings: = and <> only, case-sensitive
    ("s = 'x'", {"s": "x"}, T),
    ("s = 'X'", {"s": "x"}, F),
    ("s <> 'x'", {"s": "y"}, T),
    ("s <> 'x'", {"s": "x"}, F),
    ("s = t", {"s": "a", "t": "a"}, T),
    ("s <> t", {"s": "a", "t": "b"}, T),
    ("s < t", {"s": "a", "t": "b"}, U),  # "String comparison is restricted to = and <>"
    ("s >= t", {"s": "b", "t": "a"}, U),
    # booleans: = and <> only
    ("b = TRUE", {"b": False}, F),
    ("b <> FALSE", {"b": True}, T),
    ("b = c", {"b": True, "c": True}, T),
    ("b < c", {"b": False, "c": True}, U),
    # different types are UNKNOWN, including Python's bool/int kinship
    ("b = 1", {"b": True}, U),
    ("a = TRUE", {"a": 1}, U),
    ("s = 1", {"s": "1"}, U),
    ("a = '1'", {"a": 1}, U),
    ("a > 0", {"a": "5"}, U),
    ("a = b", {"a": 1, "b": "1"}, U),
    # NULL on either side is UNKNOWN
    ("a = 1", {}, U),
    ("a <> 1", {}, U),
    ("a = 1", {"a": None}, U),
    ("1 < a", {}, U),
    ("a = b", {"a": 1}, U),
    ("s = 'x'", {}, U),
]

ARITHMETIC: list[Row] = [
    ("a + 1 = 3", {"a": 2}, T),
    ("a - 1 = 1", {"a": 2}, T),
    ("a * 2 = 6", {"a": 3}, T),
    ("a + b = 3.5", {"a": 1, "b": 2.5}, T),  # exact + approximate → approximate
    ("a / 2 = 3", {"a": 7}, T),  # exact division truncates, as Java long division
    ("a / 2 = -3", {"a": -7}, T),  # ... toward zero
    ("a / -2 = -3", {"a": 7}, T),
    ("a / 2 = 3.5", {"a": 7.0}, T),
    ("a / 2.0 = 3.5", {"a": 7}, T),
    ("a / 0 = 1", {"a": 1}, U),  # division by zero is NULL (choice)
    ("a / 0 IS NULL", {"a": 1}, T),
    ("a / 0.0 IS NULL", {"a": 1.5}, T),
    ("-a = -2", {"a": 2}, T),
    ("- -a = 2", {"a": 2}, T),
    ("+a = 2", {"a": 2}, T),
    ("-a = 1.5", {"a": -1.5}, T),
    ("a + 1 = 2", {}, U),
    ("a + 1 IS NULL", {}, T),
    ("a + 1 = 2", {"a": "1"}, U),  # arithmetic on a string is NULL
    ("a + 1 = 2", {"a": True}, U),
    ("-a IS NULL", {"a": "x"}, T),
    ("a * b > 0", {"a": 2}, U),
    ("a + 9223372036854775807 > 9223372036854775807", {"a": 1}, T),  # no 64-bit wrap
]

PRECEDENCE: list[Row] = [
    ("a + b * c = 7", {"a": 1, "b": 2, "c": 3}, T),  # * before +
    ("(a + b) * c = 9", {"a": 1, "b": 2, "c": 3}, T),
    ("a - b - c = -4", {"a": 1, "b": 2, "c": 3}, T),  # left to right
    ("a - (b - c) = 2", {"a": 1, "b": 2, "c": 3}, T),
    ("a / b / c = 1", {"a": 12, "b": 3, "c": 4}, T),  # (12/3)/4, not 12/(3/4) = NULL
    ("-a * b = -6", {"a": 2, "b": 3}, T),
    ("- a + 1 = 0", {"a": 1}, T),  # unary minus binds tighter than +
    ("a = 1 OR b = 1 AND c = 1", {"a": 1, "b": 0, "c": 0}, T),  # AND before OR
    ("(a = 1 OR b = 1) AND c = 1", {"a": 1, "b": 0, "c": 0}, F),
    ("NOT a = 1 AND b = 1", {"a": 1, "b": 0}, F),  # (NOT a = 1) AND ..., NOT before AND
    ("NOT (a = 1 AND b = 1)", {"a": 1, "b": 0}, T),
    ("NOT a = 1 OR b = 1", {"a": 1, "b": 1}, T),  # (NOT a = 1) OR b = 1
    ("NOT (a = 1 OR b = 1)", {"a": 1, "b": 1}, F),
    ("NOT NOT a = 1", {"a": 1}, T),
    ("a + 1 BETWEEN 2 AND 3", {"a": 1}, T),  # arithmetic before BETWEEN
    ("a = 1 AND b BETWEEN 1 AND 3 AND c = 1", {"a": 1, "b": 2, "c": 1}, T),  # BETWEEN's AND
    ("((((a = 1))))", {"a": 1}, T),
]

KEYWORD_CASE: list[Row] = [
    ("a between 1 and 3", {"a": 2}, T),
    ("a BeTwEeN 1 AnD 3", {"a": 2}, T),
    ("s like 'x%' escape '!'", {"s": "xy"}, T),
    ("a is not null", {"a": 1}, T),
    ("a Is Null", {}, T),
    ("a = 1 oR b = 2", {"a": 0, "b": 2}, T),
    ("nOt a = 1", {"a": 2}, T),
    ("b = true", {"b": True}, T),
    ("b = False", {"b": False}, T),
    ("s in ('x')", {"s": "x"}, T),
    ("s not in ('x')", {"s": "y"}, T),
    ("a not between 1 and 2", {"a": 3}, T),
    ("s not like 'x%'", {"s": "y"}, T),
    # identifiers, unlike keywords, are case-sensitive
    ("Colour = 'red'", {"colour": "red"}, U),
    ("colour = 'red'", {"colour": "red"}, T),
    ("$a_1 = 1", {"$a_1": 1}, T),  # Java identifier characters
    ("ünï = 1", {"ünï": 1}, T),
    ("Body = 1", {"Body": 1}, T),  # a bare Body/Root is an ordinary property
    ("Root = 1", {"Root": 1}, T),
]


@pytest.mark.parametrize(("text", "properties", "expected"), LITERALS)
def test_literals(text: str, properties: dict[str, object], expected: bool | None) -> None:
    _check(text, properties, expected)


@pytest.mark.parametrize(("text", "properties", "expected"), BYTE_STRINGS)
def test_byte_strings(text: str, properties: dict[str, object], expected: bool | None) -> None:
    _check(text, properties, expected)


@pytest.mark.parametrize(("text", "properties", "expected"), COMPARISONS)
def test_comparisons(text: str, properties: dict[str, object], expected: bool | None) -> None:
    _check(text, properties, expected)


@pytest.mark.parametrize(("text", "properties", "expected"), ARITHMETIC)
def test_arithmetic(text: str, properties: dict[str, object], expected: bool | None) -> None:
    _check(text, properties, expected)


@pytest.mark.parametrize(("text", "properties", "expected"), PRECEDENCE)
def test_precedence(text: str, properties: dict[str, object], expected: bool | None) -> None:
    _check(text, properties, expected)


@pytest.mark.parametrize(("text", "properties", "expected"), KEYWORD_CASE)
def test_keywords_are_case_insensitive(
    text: str, properties: dict[str, object], expected: bool | None
) -> None:
    _check(text, properties, expected)


# --- three-valued logic: SQL's truth tables -------------------------------------------------

TRUTH = {"T": True, "F": False, "U": None}
# (x, y) → x AND y, x OR y
AND_TABLE = {
    ("T", "T"): T, ("T", "F"): F, ("T", "U"): U,
    ("F", "T"): F, ("F", "F"): F, ("F", "U"): F,
    ("U", "T"): U, ("U", "F"): F, ("U", "U"): U,
}  # fmt: skip
OR_TABLE = {
    ("T", "T"): T, ("T", "F"): T, ("T", "U"): T,
    ("F", "T"): T, ("F", "F"): F, ("F", "U"): U,
    ("U", "T"): T, ("U", "F"): U, ("U", "U"): U,
}  # fmt: skip
NOT_TABLE = {"T": F, "F": T, "U": U}


def _props(**truths: str) -> dict[str, object]:
    """Boolean properties; UNKNOWN is a missing property."""
    return {name: TRUTH[t] for name, t in truths.items() if TRUTH[t] is not None}


@pytest.mark.parametrize(("x", "y"), sorted(AND_TABLE))
def test_and_truth_table(x: str, y: str) -> None:
    assert evaluate("x AND y", _props(x=x, y=y)) is AND_TABLE[x, y]
    assert evaluate("x = TRUE AND y = TRUE", _props(x=x, y=y)) is AND_TABLE[x, y]


@pytest.mark.parametrize(("x", "y"), sorted(OR_TABLE))
def test_or_truth_table(x: str, y: str) -> None:
    assert evaluate("x OR y", _props(x=x, y=y)) is OR_TABLE[x, y]
    assert evaluate("x = TRUE OR y = TRUE", _props(x=x, y=y)) is OR_TABLE[x, y]


@pytest.mark.parametrize("x", sorted(NOT_TABLE))
def test_not_truth_table(x: str) -> None:
    assert evaluate("NOT x", _props(x=x)) is NOT_TABLE[x]
    assert evaluate("NOT (x = TRUE)", _props(x=x)) is NOT_TABLE[x]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x AND z", U),  # z missing
        ("x AND y AND z", F),  # FALSE dominates UNKNOWN
        ("x AND y AND NOT y", F),
        ("x OR y OR z", T),
        ("z OR NOT x", U),
        ("n AND x", U),  # a number used as a condition is UNKNOWN
        ("s OR y", U),
        ("x AND s = 'a'", T),
    ],
)
def test_longer_chains_and_non_boolean_conditions(text: str, expected: bool | None) -> None:
    assert evaluate(text, {"x": True, "y": False, "n": 1, "s": "a"}) is expected


# --- BETWEEN, IN, LIKE, IS NULL -------------------------------------------------------------

BETWEEN: list[Row] = [
    ("a BETWEEN 1 AND 3", {"a": 1}, T),  # inclusive
    ("a BETWEEN 1 AND 3", {"a": 3}, T),
    ("a BETWEEN 1 AND 3", {"a": 2.5}, T),
    ("a BETWEEN 1 AND 3", {"a": 0}, F),
    ("a BETWEEN 1 AND 3", {"a": 4}, F),
    ("a BETWEEN 3 AND 1", {"a": 2}, F),
    ("a BETWEEN 1 AND 3", {}, U),
    ("a NOT BETWEEN 1 AND 3", {"a": 4}, T),
    ("a NOT BETWEEN 1 AND 3", {"a": 2}, F),
    ("a NOT BETWEEN 1 AND 3", {}, U),
    ("a BETWEEN 1.5 AND 2.5", {"a": 2}, T),
    ("a BETWEEN b AND 3", {"a": 5}, F),  # 5 >= NULL is UNKNOWN, 5 <= 3 is FALSE
    ("a BETWEEN b AND 3", {"a": 2}, U),
    ("a NOT BETWEEN b AND 3", {"a": 5}, T),
    ("a BETWEEN b AND c", {"a": 2, "b": 1, "c": 3}, T),
    ("a BETWEEN 1 AND 3", {"a": "2"}, U),  # BETWEEN orders numbers only
    ("a NOT BETWEEN 1 AND 3", {"a": "2"}, U),
    ("a BETWEEN 1 AND 3", {"a": True}, U),
]

IN_LISTS: list[Row] = [
    ("s IN ('a', 'b')", {"s": "a"}, T),
    ("s IN ('a', 'b')", {"s": "b"}, T),
    ("s IN ('a', 'b')", {"s": "c"}, F),
    ("s IN ('a', 'b')", {}, U),
    ("s NOT IN ('a', 'b')", {"s": "c"}, T),
    ("s NOT IN ('a', 'b')", {"s": "a"}, F),
    ("s NOT IN ('a', 'b')", {}, U),
    ("s IN ('A')", {"s": "a"}, F),
    ("s IN ('it''s')", {"s": "it's"}, T),
    ("a IN (1, 2.5)", {"a": 2.5}, T),  # numbers are accepted too (JMS: strings only)
    ("a IN (1, 2.5)", {"a": 1.0}, T),
    ("a IN (-1, +2)", {"a": -1}, T),
    ("a IN (1, 2)", {"a": 3}, F),
    ("a IN (1, 2)", {"a": True}, U),  # a boolean is not the number 1
    ("s IN ('1')", {"s": 1}, U),
    ("a NOT IN (1, 2)", {"a": "1"}, U),
    ("b IN (TRUE)", {"b": True}, T),
    ("s IN ('a', 1)", {"s": "a"}, T),  # mixed list: each item compared as = would
    ("s IN ('a', 1)", {"s": "b"}, U),  # 'b' = 1 is UNKNOWN, so the whole IN is
    ('k IN (0x"01", 0x"02")', {"k": b"\x02"}, T),
]

LIKE: list[Row] = [
    ("s LIKE 'Smit%'", {"s": "Smith"}, T),
    ("s LIKE 'Smit%'", {"s": "Smit"}, T),
    ("s LIKE 'Smit%'", {"s": "smith"}, F),  # case-sensitive
    ("s LIKE 'Smit%'", {"s": "XSmith"}, F),
    ("s LIKE '_ob'", {"s": "Bob"}, T),  # _ is exactly one character
    ("s LIKE '_ob'", {"s": "ob"}, F),
    ("s LIKE '_ob'", {"s": "Boob"}, F),
    ("s LIKE '%'", {"s": ""}, T),
    ("s LIKE ''", {"s": ""}, T),
    ("s LIKE ''", {"s": "a"}, F),
    ("s LIKE 'abc'", {"s": "abc"}, T),
    ("s LIKE 'abc'", {"s": "abcd"}, F),
    ("s LIKE '%ab'", {"s": "xab"}, T),
    ("s LIKE '%ab'", {"s": "abx"}, F),
    ("s LIKE '%b%'", {"s": "abc"}, T),
    ("s LIKE '%b%'", {"s": "ac"}, F),
    ("s LIKE 'a%c'", {"s": "ac"}, T),
    ("s LIKE 'a%c'", {"s": "abbc"}, T),
    ("s LIKE 'a%c'", {"s": "ab"}, F),
    ("s LIKE 'ab%ba'", {"s": "aba"}, F),  # head and tail may not overlap
    ("s LIKE 'a%b%c'", {"s": "aXbYc"}, T),
    ("s LIKE 'a%b%c'", {"s": "acb"}, F),
    ("s LIKE '%%'", {"s": "x"}, T),
    ("s LIKE '_%_'", {"s": "ab"}, T),
    ("s LIKE '_%_'", {"s": "a"}, F),
    ("s LIKE 'a_c'", {"s": "a\nc"}, T),  # _ matches a newline too
    ("s LIKE 'a%'", {"s": "a\n\nb"}, T),
    ("s LIKE 'a.c'", {"s": "abc"}, F),  # regex characters are literal
    ("s LIKE 'a.c'", {"s": "a.c"}, T),
    ("s LIKE '(x)*[y]'", {"s": "(x)*[y]"}, T),
    ("s LIKE '\\d'", {"s": "\\d"}, T),
    ("s LIKE 'é_'", {"s": "éü"}, T),
    # ESCAPE makes % and _ literal
    ("s LIKE '100!%' ESCAPE '!'", {"s": "100%"}, T),
    ("s LIKE '100!%' ESCAPE '!'", {"s": "1000"}, F),
    ("s LIKE '!_%' ESCAPE '!'", {"s": "_x"}, T),
    ("s LIKE '!_%' ESCAPE '!'", {"s": "ax"}, F),
    ("s LIKE 'a!!b' ESCAPE '!'", {"s": "a!b"}, T),
    ("s LIKE 'a\\_b' ESCAPE '\\'", {"s": "a_b"}, T),
    ("s LIKE 'a\\_b' ESCAPE '\\'", {"s": "axb"}, F),
    ("s LIKE '%!%%' ESCAPE '!'", {"s": "50% off"}, T),
    ("s LIKE '%!%%' ESCAPE '!'", {"s": "50 off"}, F),
    ("s LIKE 'x%' ESCAPE 'x'", {"s": "%"}, T),  # the escape may be a letter
    ("s LIKE 'x%' ESCAPE 'x'", {"s": "x%"}, F),
    ("s LIKE 'a''b'", {"s": "a'b"}, T),
    # NOT LIKE, NULL and non-strings
    ("s NOT LIKE 'J%'", {"s": "Bob"}, T),
    ("s NOT LIKE 'J%'", {"s": "Jo"}, F),
    ("s NOT LIKE 'J%'", {}, U),
    ("s LIKE 'J%'", {}, U),
    ("n LIKE '1%'", {"n": 12}, U),  # a number is not matched as text
    ("n NOT LIKE '1%'", {"n": 12}, U),
]

IS_NULL: list[Row] = [
    ("a IS NULL", {}, T),
    ("a IS NULL", {"a": None}, T),  # present but empty is NULL
    ("a IS NULL", {"a": 0}, F),
    ("a IS NULL", {"a": ""}, F),
    ("a IS NULL", {"a": False}, F),
    ("a IS NOT NULL", {}, F),
    ("a IS NOT NULL", {"a": 0}, T),
    ("(a > 1) IS NULL", {}, T),
    ("(a > 1) IS NOT NULL", {"a": 2}, T),
    ("a + 1 IS NULL", {}, T),
    ("NOT a IS NULL", {}, F),
]


@pytest.mark.parametrize(("text", "properties", "expected"), BETWEEN)
def test_between(text: str, properties: dict[str, object], expected: bool | None) -> None:
    _check(text, properties, expected)


@pytest.mark.parametrize(("text", "properties", "expected"), IN_LISTS)
def test_in(text: str, properties: dict[str, object], expected: bool | None) -> None:
    _check(text, properties, expected)


@pytest.mark.parametrize(("text", "properties", "expected"), LIKE)
def test_like(text: str, properties: dict[str, object], expected: bool | None) -> None:
    _check(text, properties, expected)


@pytest.mark.parametrize(("text", "properties", "expected"), IS_NULL)
def test_is_null(text: str, properties: dict[str, object], expected: bool | None) -> None:
    _check(text, properties, expected)


@pytest.mark.parametrize(
    ("text", "properties"),
    [
        ("a = 1", {}),
        ("a > 0 AND b = 'x'", {"a": 1}),
        ("s LIKE 'x%'", {"s": 5}),
        ("a BETWEEN 1 AND 2", {"a": "1"}),
    ],
)
def test_unknown_does_not_match(text: str, properties: dict[str, object]) -> None:
    """Reference §8: "only TRUE selects" — UNKNOWN excludes just as FALSE does."""
    from mqkafka.selectors import DictMessageView, compile_selector

    selector = compile_selector(text)
    view = DictMessageView(properties)
    assert selector.evaluate(view) is None
    assert selector.matches(view) is False
