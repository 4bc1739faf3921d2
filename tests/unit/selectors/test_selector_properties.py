"""Property-based tests of the lexer and of the promise that evaluation never raises."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.selectors import DictMessageView, compile_selector
from mqkafka.selectors.lexer import KEYWORDS, Kind, tokenize


def quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@given(st.text())
def test_any_string_literal_round_trips(text: str) -> None:
    """§8: strings in single quotes, ``''`` is one quote; any other character stands for itself."""
    assert compile_selector(f"p = {quote(text)}").matches(DictMessageView({"p": text}))


@given(st.integers(-(2**63), 2**63 - 1))
def test_any_long_literal_round_trips(number: int) -> None:
    view = DictMessageView({"p": number})
    assert compile_selector(f"p = {number}").matches(view)
    assert compile_selector(f"p = {number}L").matches(view)


@given(st.integers(0, 2**63 - 1))
def test_hex_and_octal_literals_round_trip(number: int) -> None:
    view = DictMessageView({"p": number})
    assert compile_selector(f"p = 0x{number:X}").matches(view)
    assert compile_selector(f"p = 0{number:o}").matches(view)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_any_double_literal_round_trips(number: float) -> None:
    text = repr(number)  # e.g. 1e+16, 5e-324, -0.0, 123.5
    assert compile_selector(f"p = {text}").matches(DictMessageView({"p": number}))


@given(st.binary(min_size=1, max_size=32))
def test_any_byte_string_round_trips(data: bytes) -> None:
    assert compile_selector(f'p = 0x"{data.hex()}"').matches(DictMessageView({"p": data}))


identifiers = st.from_regex(r"[A-Za-z_$][A-Za-z0-9_$]{0,12}", fullmatch=True).filter(
    lambda name: name.upper() not in KEYWORDS
)


@given(identifiers)
def test_identifiers_are_one_token_and_case_sensitive(name: str) -> None:
    (token, end) = tokenize(name)
    assert (token.kind, token.value, end.kind) == (Kind.IDENT, name, Kind.END)
    assert compile_selector(f"{name} IS NULL").matches(DictMessageView({name.swapcase(): 1})) is (
        name.swapcase() != name
    )


@given(st.sampled_from(sorted(KEYWORDS)), st.randoms())
def test_keywords_in_any_case_are_never_identifiers(word: str, rnd: random.Random) -> None:
    mixed = "".join(c.upper() if rnd.random() < 0.5 else c.lower() for c in word)
    (token, _) = tokenize(mixed)
    assert token.kind is Kind.KEYWORD and token.value == word


@settings(max_examples=300)
@given(st.text(alphabet="ab1'\"()=<>!+-*/., %_\\ANDORNOTINLIKEISNULLx0", max_size=30))
def test_compiling_arbitrary_text_raises_only_filter_errors(text: str) -> None:
    """Bad input is a reason code, never a crash: any text compiles or fails with 3150, or
    2504 when it is well formed but always false."""
    try:
        compile_selector(text)
    except MQError as error:
        assert error.reason in (RC.CF_FILTER_ERROR, RC.SELECTOR_ALWAYS_FALSE)
        assert error.position is not None and 0 <= error.position <= len(text)


# --- evaluation never raises ----------------------------------------------------------------

SELECTORS = [
    "a = 1",
    "a > b",
    "a + b * 2 >= 3",
    "a / b = 0",
    "-a < 0",
    "a BETWEEN b AND 10",
    "a IN (1, 'x', TRUE)",
    "a LIKE 'x%'",
    "a NOT LIKE '_!%' ESCAPE '!'",
    "a IS NULL OR b IS NOT NULL",
    "a AND NOT b",
    "a = 'x' OR b <> 0x\"00\"",
    "Body.a.b = 1 OR Body.a.b[2] > 2",
    "Body.a = 'x' AND Root.XMLNSC.a.b IS NULL",
    "JMSTimestamp > 0 AND JMSCorrelationID IS NOT NULL AND JMSExpiration >= 0",
    "Root.MQMD.Priority > 3 AND JMSPriority < 5 AND JMSRedelivered = FALSE",
]
any_value = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),  # NaN and infinities included
    st.text(max_size=10),
    st.binary(max_size=10),
)
mqmd_values = st.dictionaries(
    st.sampled_from(["Priority", "CorrelId", "PutDate", "PutTime", "Expiry", "BackoutCount"]),
    st.one_of(any_value, st.lists(st.integers(), max_size=2)),
)


@settings(max_examples=300)
@given(
    properties=st.dictionaries(st.sampled_from(["a", "b"]), any_value),
    mqmd=mqmd_values,
    body=st.one_of(
        st.binary(max_size=40), st.sampled_from([b'{"a":{"b":[1,2]}}', b"<a><b>2</b></a>"])
    ),
    msd=st.sampled_from([None, "json", "xml", "mrm"]),
)
def test_evaluation_never_raises(
    properties: dict[str, object], mqmd: dict[str, object], body: bytes, msd: str | None
) -> None:
    """Reference §8 / brief: errors come at RegSub, never at publish time."""
    view = DictMessageView(properties, mqmd, body, "", msd)
    for text in SELECTORS:
        result = compile_selector(text).evaluate(view)
        assert result is None or isinstance(result, bool)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_special_floats_compare_as_java_doubles(value: float) -> None:
    view = DictMessageView({"a": value})
    assert compile_selector("a = a").evaluate(view) is (value == value)  # NaN ≠ NaN
    assert compile_selector("a > 0").evaluate(view) is (value > 0)
