"""Differential test: our selectors against SQLite evaluating the same expression.

Hypothesis builds expression trees over a few properties, renders each tree twice — as
selector text with the fewest parentheses our precedence rules allow (so the parser's
precedence is under test too) and with keywords in random case, and as fully parenthesised
SQL — and compares our three-valued result with
``SELECT CASE WHEN (e) THEN 1 WHEN NOT (e) THEN 0 ELSE NULL END`` over a one-row subquery
holding the same property values.

The generated fragment is the one where JMS selectors and SQLite agree:

* numbers are compared and combined only with numbers, strings only with strings, and
  strings only with ``=``/``<>`` (SQLite's type affinity orders 1 < 'a'; JMS makes that
  UNKNOWN or a filter error);
* numbers stay small (|x| ≤ 20, at most four operands per arithmetic) so neither side
  overflows 64 bits, and floats are multiples of 1/4 so their literals are exact in both;
* ``LIKE`` runs with ``PRAGMA case_sensitive_like = ON`` and an escape character only ever
  precedes ``%``, ``_`` or itself (SQLite accepts other uses, JMS/SQL do not);
* no booleans as values (SQLite has no boolean type; they are covered by the tables).

Division by zero is NULL in both; integer division truncates toward zero in both.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.selectors import DictMessageView, compile_selector

INT_PROPS = ("i1", "i2")
FLOAT_PROPS = ("f1",)
STR_PROPS = ("s1", "s2")
MISSING = "m"  # never has a value: NULL in both worlds
COLUMNS = (*INT_PROPS, *FLOAT_PROPS, *STR_PROPS, MISSING)
ALPHABET = "ab%_!é"

# --- expression trees -----------------------------------------------------------------------


@dataclass(frozen=True)
class Expr:
    """One node: ``kind`` plus its parts; rendered by ``to_selector`` and ``to_sql``."""

    kind: str
    parts: tuple[Any, ...]  # shapes vary by kind; see the two renderers


def node(kind: str, *parts: Any) -> Expr:
    return Expr(kind, parts)


small_ints = st.integers(-20, 20)
quarter_floats = st.integers(-80, 80).map(lambda k: k / 4)
texts = st.text(alphabet=ALPHABET, max_size=4)


def numeric_leaf() -> st.SearchStrategy[Expr]:
    return st.one_of(
        st.sampled_from((*INT_PROPS, *FLOAT_PROPS, MISSING)).map(lambda p: node("prop", p)),
        small_ints.map(lambda v: node("lit", v)),
        quarter_floats.map(lambda v: node("lit", v)),
    )


def numeric(depth: int) -> st.SearchStrategy[Expr]:
    if depth == 0:
        return numeric_leaf()
    inner = numeric(depth - 1)
    return st.one_of(
        numeric_leaf(),
        inner.map(lambda e: node("neg", e)),
        st.tuples(st.sampled_from("+-*/"), inner, inner).map(lambda t: node("arith", *t)),
    )


string_value = st.one_of(
    st.sampled_from((*STR_PROPS, MISSING)).map(lambda p: node("prop", p)),
    texts.map(lambda v: node("lit", v)),
)


@st.composite
def like_pattern(draw: st.DrawFn) -> tuple[str, str | None]:
    """A LIKE pattern, and an escape character that only precedes %, _ or itself."""
    escape = draw(st.sampled_from([None, "!"]))
    atoms = ["a", "b", "é", "%", "_"] + (["!%", "!_", "!!"] if escape else ["!"])
    return "".join(draw(st.lists(st.sampled_from(atoms), max_size=5))), escape


def predicate() -> st.SearchStrategy[Expr]:
    num = numeric(2)
    return st.one_of(
        st.tuples(st.sampled_from(["=", "<>", "<", ">", "<=", ">="]), num, num).map(
            lambda t: node("cmp", *t)
        ),
        st.tuples(st.sampled_from(["=", "<>"]), string_value, string_value).map(
            lambda t: node("cmp", *t)
        ),
        st.tuples(st.booleans(), num, num, num).map(lambda t: node("between", *t)),
        st.tuples(
            st.booleans(),
            num,
            st.lists(st.one_of(small_ints, quarter_floats), min_size=1, max_size=4),
        ).map(lambda t: node("in", *t)),
        st.tuples(st.booleans(), string_value, st.lists(texts, min_size=1, max_size=4)).map(
            lambda t: node("in", *t)
        ),
        st.tuples(st.booleans(), string_value, like_pattern()).map(lambda t: node("like", *t)),
        st.tuples(st.booleans(), st.one_of(num, string_value)).map(lambda t: node("isnull", *t)),
        st.booleans().map(lambda v: node("bool", v)),
    )


conditions: st.SearchStrategy[Expr] = st.recursive(
    predicate(),
    lambda inner: st.one_of(
        inner.map(lambda e: node("not", e)),
        st.tuples(st.sampled_from(["AND", "OR"]), inner, inner).map(lambda t: node("logic", *t)),
    ),
    max_leaves=6,
)

rows = st.fixed_dictionaries(
    {
        **{p: st.one_of(st.none(), small_ints) for p in INT_PROPS},
        **{p: st.one_of(st.none(), quarter_floats) for p in FLOAT_PROPS},
        **{p: st.one_of(st.none(), texts) for p in STR_PROPS},
    }
)

# --- rendering ------------------------------------------------------------------------------

# Binding strength in the selector grammar (higher binds tighter).
OR, AND, NOT, PREDICATE, SUM, PRODUCT, UNARY, PRIMARY = range(1, 9)
ARITH_LEVEL = {"+": SUM, "-": SUM, "*": PRODUCT, "/": PRODUCT}


def _literal(value: object) -> str:
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)


def to_selector(e: Expr, kw: Callable[[str], str]) -> tuple[str, int]:
    """Selector text with minimal parentheses, and the binding level of its top operator."""

    def at_least(child: Expr, level: int) -> str:
        text, child_level = to_selector(child, kw)
        return text if child_level >= level else f"({text})"

    k, p = e.kind, e.parts
    if k == "prop":
        return str(p[0]), PRIMARY
    if k == "lit":
        return _literal(p[0]), PRIMARY if not (
            isinstance(p[0], int | float) and p[0] < 0
        ) else UNARY
    if k == "bool":
        return kw("TRUE" if p[0] else "FALSE"), PRIMARY
    if k == "neg":
        return "- " + at_least(p[0], UNARY), UNARY
    if k == "arith":
        op, a, b = p
        level = ARITH_LEVEL[op]
        # left-associative: the right operand needs strictly tighter binding
        return f"{at_least(a, level)} {op} {at_least(b, level + 1)}", level
    if k == "cmp":
        op, a, b = p
        return f"{at_least(a, SUM)} {op} {at_least(b, SUM)}", PREDICATE
    if k == "between":
        negated, x, lo, hi = p
        word = kw("NOT BETWEEN" if negated else "BETWEEN")
        parts = [at_least(y, SUM) for y in (x, lo, hi)]
        return f"{parts[0]} {word} {parts[1]} {kw('AND')} {parts[2]}", PREDICATE
    if k == "in":
        negated, x, items = p
        word = kw("NOT IN" if negated else "IN")
        listed = ", ".join(_literal(i) for i in items)
        return f"{at_least(x, SUM)} {word} ({listed})", PREDICATE
    if k == "like":
        negated, x, (pattern, escape) = p
        word = kw("NOT LIKE" if negated else "LIKE")
        tail = f" {kw('ESCAPE')} {_literal(escape)}" if escape else ""
        return f"{at_least(x, SUM)} {word} {_literal(pattern)}{tail}", PREDICATE
    if k == "isnull":
        negated, x = p
        return f"{at_least(x, SUM)} {kw('IS NOT NULL' if negated else 'IS NULL')}", PREDICATE
    if k == "not":
        return f"{kw('NOT')} {at_least(p[0], NOT)}", NOT
    if k == "logic":
        op, a, b = p
        level = AND if op == "AND" else OR
        # AND and OR are associative in three-valued logic too, so equal levels need no parens
        return f"{at_least(a, level)} {kw(op)} {at_least(b, level)}", level
    raise AssertionError(k)


def to_sql(e: Expr) -> str:
    """Fully parenthesised SQL (SQLite's precedence differs: = binds looser than <)."""
    k, p = e.kind, e.parts
    if k == "prop":
        return str(p[0])
    if k == "lit":
        return f"({_literal(p[0])})"
    if k == "bool":
        return "TRUE" if p[0] else "FALSE"
    if k == "neg":
        return f"(-{to_sql(p[0])})"
    if k in ("arith", "cmp"):
        op, a, b = p
        return f"({to_sql(a)} {op} {to_sql(b)})"
    if k == "between":
        negated, x, lo, hi = p
        word = "NOT BETWEEN" if negated else "BETWEEN"
        return f"({to_sql(x)} {word} {to_sql(lo)} AND {to_sql(hi)})"
    if k == "in":
        negated, x, items = p
        listed = ", ".join(_literal(i) for i in items)
        return f"({to_sql(x)} {'NOT IN' if negated else 'IN'} ({listed}))"
    if k == "like":
        negated, x, (pattern, escape) = p
        tail = f" ESCAPE {_literal(escape)}" if escape else ""
        word = "NOT LIKE" if negated else "LIKE"
        return f"({to_sql(x)} {word} {_literal(pattern)}{tail})"
    if k == "isnull":
        negated, x = p
        return f"({to_sql(x)} {'IS NOT NULL' if negated else 'IS NULL'})"
    if k == "not":
        return f"(NOT {to_sql(p[0])})"
    if k == "logic":
        op, a, b = p
        return f"({to_sql(a)} {op} {to_sql(b)})"
    raise AssertionError(k)


# --- the oracle -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sqlite() -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(":memory:")
    connection.execute("PRAGMA case_sensitive_like = ON")
    yield connection
    connection.close()


def sqlite_truth(db: sqlite3.Connection, sql: str, row: dict[str, object]) -> bool | None:
    columns = ", ".join(f"? AS {c}" for c in COLUMNS)
    values = [row.get(c) for c in COLUMNS]
    query = (
        f"SELECT CASE WHEN {sql} THEN 1 WHEN NOT {sql} THEN 0 ELSE NULL END FROM (SELECT {columns})"
    )
    (result,) = db.execute(query, values).fetchone()
    return None if result is None else bool(result)


keyword_case = st.sampled_from([str.upper, str.lower, str.title])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expression=conditions, samples=st.lists(rows, min_size=1, max_size=4), kw=keyword_case)
def test_selectors_agree_with_sqlite(
    sqlite: sqlite3.Connection,
    expression: Expr,
    samples: list[dict[str, object]],
    kw: Callable[[str], str],
) -> None:
    text, _ = to_selector(expression, kw)
    sql = to_sql(expression)
    try:
        selector = compile_selector(text)
    except MQError as error:
        # Only a filter that can never be TRUE may be refused; SQLite must agree for every row.
        assert error.reason == RC.SELECTOR_ALWAYS_FALSE, (text, error.detail)
        for row in samples:
            assert sqlite_truth(sqlite, sql, row) is not True, (text, sql, row)
        return
    for row in samples:
        ours = selector.evaluate(DictMessageView(row))
        theirs = sqlite_truth(sqlite, sql, row)
        assert ours is theirs, f"{text!r} vs SQL {sql!r} on {row}: ours {ours}, SQLite {theirs}"


@settings(max_examples=400, deadline=None)
@given(expression=numeric(3), row=rows)
def test_arithmetic_agrees_with_sqlite(
    sqlite: sqlite3.Connection, expression: Expr, row: dict[str, object]
) -> None:
    """Arithmetic values themselves (truncating division, NULL on zero, int/float promotion):
    SQLite computes the value v, and our selector ``e = v`` (or ``e IS NULL``) must be TRUE."""
    columns = ", ".join(f"? AS {c}" for c in COLUMNS)
    query = f"SELECT {to_sql(expression)} FROM (SELECT {columns})"
    (value,) = sqlite.execute(query, [row.get(c) for c in COLUMNS]).fetchone()
    text, _ = to_selector(expression, str.upper)
    text = f"{text} IS NULL" if value is None else f"{text} = {_literal(value)}"
    assert compile_selector(text).evaluate(DictMessageView(row)) is True, (text, row)


@settings(max_examples=300, deadline=None)
@given(pattern=like_pattern(), value=st.text(alphabet=ALPHABET + "\n", max_size=8))
def test_like_agrees_with_sqlite(
    sqlite: sqlite3.Connection, pattern: tuple[str, str | None], value: str
) -> None:
    """LIKE alone, with more examples: the matcher takes several shortcuts by pattern shape."""
    expression = node("like", False, node("prop", "s1"), pattern)
    text, _ = to_selector(expression, str.upper)
    ours = compile_selector(text).evaluate(DictMessageView({"s1": value}))
    assert ours is sqlite_truth(sqlite, to_sql(expression), {"s1": value})


def test_renderers_on_a_known_tree(sqlite: sqlite3.Connection) -> None:
    """The renderers themselves, on one tree whose meaning is known."""
    tree = node(
        "logic",
        "OR",
        node("cmp", "=", node("prop", "i1"), node("lit", 1)),
        node(
            "logic",
            "AND",
            node("cmp", ">", node("prop", "i2"), node("lit", 2)),
            node("bool", False),
        ),
    )
    assert to_selector(tree, str.upper)[0] == "i1 = 1 OR i2 > 2 AND FALSE"
    assert to_sql(tree) == "((i1 = (1)) OR ((i2 > (2)) AND FALSE))"
    assert sqlite_truth(sqlite, to_sql(tree), {"i1": 1}) is True
    assert sqlite_truth(sqlite, to_sql(tree), {"i1": None}) is None
