"""What the operators mean at evaluation time: three-valued logic over typed values.

Values are ``None`` (NULL, also UNKNOWN), ``bool``, ``int``, ``float``, ``str``, ``bytes`` and
``UntypedText`` (XML element text, a ``str`` that takes the type of what it meets). A truth
value is ``True``, ``False`` or ``None`` (UNKNOWN); only TRUE selects.

Rules (source or choice after the dash):

* Any NULL operand of a comparison or arithmetic gives UNKNOWN. — JMS 3.8.1.2; SQL
* int and float compare and combine numerically (int op float → float). — JMS: Java numeric
  promotion
* Strings, booleans and byte strings compare with ``=`` and ``<>`` only; ``<`` etc. give
  UNKNOWN. — JMS: "String and boolean comparison is restricted to = and <>"
* Values of different types compare as UNKNOWN. — brief/§8 (JMS 1.1 says FALSE; UNKNOWN is
  the SQL reading, and the two differ only under NOT)
* int / int truncates toward zero (``-7 / 2`` = ``-3``). — Java long division; SQLite agrees
* Division by zero gives NULL. — choice: Java would throw, SQLite gives NULL, and a publish
  must never fail
* Integer arithmetic is exact (no 64-bit wrap-around). — choice: literals are already
  long-sized, results are not wrapped
* Arithmetic on a non-number gives NULL. — JMS: arithmetic needs numeric operands
* XML text meeting a number is converted to one (``' 2 '`` → 2) or UNKNOWN; meeting a boolean
  it must read ``true``/``false`` (any case). — choice: ESQL's implicit CAST in comparisons,
  so ``Body.Score.Home > 2`` works on XML. Two XML texts are equal as strings, and since
  strings do not order, ``<`` between two XML texts orders them as numbers (or is UNKNOWN).
* ``x BETWEEN a AND b`` is ``x >= a AND x <= b``; ``x IN (l1, l2)`` is ``x = l1 OR x = l2``.
  — JMS 3.8.1.2; SQL
* ``LIKE``: ``_`` is one character, ``%`` any run, the whole string must match,
  case-sensitively. — JMS 3.8.1.2
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from enum import Enum
from typing import TypeGuard

Truth = bool | None


class UntypedText(str):
    """Text from an XML body: compared as a string with strings, as a number with numbers."""

    __slots__ = ()


_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_DECIMAL_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def text_as_number(text: str) -> int | float | None:
    """ESQL-style CAST of element text to a number; ``None`` when it is not one."""
    stripped = text.strip()
    if _INTEGER_TEXT.fullmatch(stripped):
        return int(stripped)
    if _DECIMAL_TEXT.fullmatch(stripped):
        return float(stripped)
    return None


def text_as_boolean(text: str) -> bool | None:
    word = text.strip().lower()
    return True if word == "true" else False if word == "false" else None


def is_number(value: object) -> TypeGuard[int | float]:
    # bool is an int subclass in Python but a distinct type in JMS.
    return isinstance(value, int | float) and not isinstance(value, bool)


def _coerce(a: object, b: object) -> tuple[object, object]:
    """Give XML text the type of the other operand (ESQL implicit CAST)."""
    if isinstance(a, UntypedText) and not isinstance(b, str):
        a = _cast_text(a, b)
    elif isinstance(b, UntypedText) and not isinstance(a, str):
        b = _cast_text(b, a)
    return a, b


def _cast_text(text: str, like: object) -> object:
    if is_number(like):
        return text_as_number(text)
    if like is True or like is False:
        return text_as_boolean(text)
    return None


def _kind(value: object) -> type | None:
    if is_number(value):
        return float
    if isinstance(value, str):
        return str
    if isinstance(value, bool):
        return bool
    if isinstance(value, bytes | bytearray):
        return bytes
    return None


def equals(a: object, b: object) -> Truth:
    """``a = b`` in three-valued logic."""
    if a is None or b is None:
        return None
    a, b = _coerce(a, b)
    kind = _kind(a)
    if kind is None or kind is not _kind(b):
        return None
    return bool(a == b)


def not_equals(a: object, b: object) -> Truth:
    result = equals(a, b)
    return None if result is None else not result


def _ordering(test: Callable[[float, float], bool]) -> Callable[[object, object], Truth]:
    def compare(a: object, b: object) -> Truth:
        if a is None or b is None:
            return None
        if isinstance(a, UntypedText) and isinstance(b, UntypedText):
            a, b = text_as_number(a), text_as_number(b)  # two XML fields: order as numbers
        else:
            a, b = _coerce(a, b)
        if is_number(a) and is_number(b):
            return test(a, b)
        return None  # strings, booleans, byte strings and mixed types do not order

    return compare


less = _ordering(lambda a, b: a < b)
greater = _ordering(lambda a, b: a > b)
less_or_equal = _ordering(lambda a, b: a <= b)
greater_or_equal = _ordering(lambda a, b: a >= b)

COMPARE: dict[str, Callable[[object, object], Truth]] = {
    "=": equals,
    "<>": not_equals,
    "<": less,
    ">": greater,
    "<=": less_or_equal,
    ">=": greater_or_equal,
}


def _numbers(a: object, b: object) -> tuple[int | float, int | float] | None:
    if a is None or b is None:
        return None
    if isinstance(a, UntypedText):
        a = text_as_number(a)
    if isinstance(b, UntypedText):
        b = text_as_number(b)
    if is_number(a) and is_number(b):
        return a, b
    return None


def divide(a: int | float, b: int | float) -> int | float | None:
    """Java/SQL division: ints truncate toward zero; anything over zero is NULL."""
    if b == 0:
        return None
    if isinstance(a, int) and isinstance(b, int):
        quotient = abs(a) // abs(b)
        return quotient if (a < 0) == (b < 0) else -quotient
    return a / b


_ARITHMETIC: dict[str, Callable[[int | float, int | float], int | float | None]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": divide,
}


def arithmetic(op: str, a: object, b: object) -> object:
    """``a op b`` for ``+ - * /``; NULL when either side is NULL or not a number."""
    pair = _numbers(a, b)
    if pair is None:
        return None
    return _ARITHMETIC[op](*pair)


def negate(a: object) -> object:
    if isinstance(a, UntypedText):
        a = text_as_number(a)
    return -a if is_number(a) else None


def identity(a: object) -> object:
    """Unary ``+``: a number stays, anything else is NULL (it is not numeric)."""
    if isinstance(a, UntypedText):
        a = text_as_number(a)
    return a if is_number(a) else None


# --- logic ------------------------------------------------------------------------------


def truth(value: object) -> Truth:
    """A value used as a condition: booleans are themselves, anything else is UNKNOWN."""
    if value is True or value is False:
        return value
    if isinstance(value, UntypedText):
        return text_as_boolean(value)
    return None


def logical_not(value: Truth) -> Truth:
    return None if value is None else not value


def logical_and(values: Iterable[Truth]) -> Truth:
    """FALSE dominates, then UNKNOWN, then TRUE."""
    result: Truth = True
    for value in values:
        if value is False:
            return False
        if value is not True:
            result = None
    return result


def logical_or(values: Iterable[Truth]) -> Truth:
    """TRUE dominates, then UNKNOWN, then FALSE."""
    result: Truth = False
    for value in values:
        if value is True:
            return True
        if value is not False:
            result = None
    return result


def between(value: object, low: object, high: object) -> Truth:
    return logical_and((greater_or_equal(value, low), less_or_equal(value, high)))


def in_list(value: object, items: Iterable[object]) -> Truth:
    return logical_or(equals(value, item) for item in items)


# --- LIKE -------------------------------------------------------------------------------


_ANY_RUN = "%"  # part markers; literal text is held as ("lit", text)
_ONE_CHAR = "_"


def _pattern_parts(pattern: str, escape: str | None) -> list[tuple[str, str]]:
    """Split a LIKE pattern into ("lit", text), ("%", "") and ("_", "") parts."""
    parts: list[tuple[str, str]] = []
    literal: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == escape and i + 1 < len(pattern):
            literal.append(pattern[i + 1])  # the parser checked it is %, _ or the escape
            i += 2
            continue
        if ch in (_ANY_RUN, _ONE_CHAR):
            if literal:
                parts.append(("lit", "".join(literal)))
                literal = []
            parts.append((ch, ""))
        else:
            literal.append(ch)
        i += 1
    if literal:
        parts.append(("lit", "".join(literal)))
    return parts


def like_matcher(pattern: str, escape: str | None) -> Callable[[str], bool]:
    """A test for ``value LIKE pattern [ESCAPE escape]`` over a string value.

    The common shapes become plain string tests (``'Smit%'`` runs as ``startswith``); the
    rest become one anchored regex in which ``.`` also matches a newline.
    """
    parts = _pattern_parts(pattern, escape)
    shape = "".join("L" if kind == "lit" else kind for kind, _ in parts)
    texts = [text for kind, text in parts if kind == "lit"]
    if shape == "":
        return lambda s: s == ""
    if shape == "L":
        return lambda s: s == texts[0]
    if shape == "%":
        return lambda s: True
    if shape == "L%":
        return lambda s: s.startswith(texts[0])
    if shape == "%L":
        return lambda s: s.endswith(texts[0])
    if shape == "%L%":
        return lambda s: texts[0] in s
    if shape == "L%L":
        head, tail = texts
        return lambda s: len(s) >= len(head) + len(tail) and s.startswith(head) and s.endswith(tail)
    regex = "".join(
        re.escape(text) if kind == "lit" else ".*" if kind == _ANY_RUN else "."
        for kind, text in parts
    )
    compiled = re.compile(regex, re.DOTALL)
    return lambda s: compiled.fullmatch(s) is not None


class StaticType(Enum):
    """What the compiler knows about an expression's type before any message is seen."""

    ANY = "value"  # a property or body field: known only per publication
    BOOLEAN = "boolean"
    NUMBER = "number"
    STRING = "string"
    BYTES = "byte string"


def type_of_literal(value: object) -> StaticType:
    if isinstance(value, bool):
        return StaticType.BOOLEAN
    if isinstance(value, int | float):
        return StaticType.NUMBER
    if isinstance(value, str):
        return StaticType.STRING
    return StaticType.BYTES
