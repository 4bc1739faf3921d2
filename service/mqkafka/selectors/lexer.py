"""Tokens of the message-selector language (reference §8; MQ "Message selector syntax").

Lexical rules, each with where it comes from:

* string ``'it''s'``: single quotes, ``''`` is one quote (JMS, MQ).
* byte string ``0x"0AFC23"``: MQ extra, hex digit pairs in double quotes after ``0x``; an odd
  digit count is an error (MQ: MQRC_SELECTOR_SYNTAX_ERROR; here 3150).
* exact number ``57``, ``57L``: decimal, optional ``L``/``l`` suffix (JMS, Java long).
* hex number ``0xA0``: MQ extra, Java syntax, optional ``L``.
* octal number ``0177``: MQ extra; a leading 0 followed by digits is octal, so ``09`` is an error.
* approximate number ``7E3``, ``7.``, ``.5``, ``95.7``: Java floating literal, optional
  ``F``/``D`` suffix.
* identifier ``colour``, ``$x``: Java identifier start + parts; case-sensitive.
* keyword: the reserved words (``and``, ``AND``, ...), case-insensitive.
* quoted name ``"first-name"``: only as a step of a ``Body.``/``Root.`` path (ESQL quoted
  identifier), for JSON keys and XML names that are not Java identifiers.
* operators ``= <> < > <= >= + - * / ( ) , . [ ]``; ``!=``, ``==``, ``&&``, ``||`` are
  rejected with a hint (MQ "Selection string rules and restrictions").

Signs are separate tokens; the parser folds ``-957`` into one literal. Exact literals must fit
a Java ``long`` and approximate ones a ``double``, as in JMS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from mqkafka.selectors.errors import filter_error


class Kind(Enum):
    STRING = "string"
    BYTES = "byte string"
    INTEGER = "exact number"
    FLOAT = "approximate number"
    IDENT = "identifier"
    QUOTED = "quoted name"
    KEYWORD = "keyword"
    OP = "operator"
    END = "end"


KEYWORDS = frozenset(
    {"AND", "OR", "NOT", "BETWEEN", "LIKE", "IN", "IS", "NULL", "TRUE", "FALSE", "ESCAPE"}
)

# Longest first, so that "<=" wins over "<".
_OPERATORS = ("<>", "<=", ">=", "=", "<", ">", "+", "-", "*", "/", "(", ")", ",", ".", "[", "]")

# Spellings from other languages that MQ's "Selection string rules and restrictions" page
# says are not synonyms; a hint is friendlier than "unexpected character".
_FOREIGN_OPERATORS = {
    "!=": "use <> for 'not equal'",
    "==": "use a single = for equality",
    "&&": "use AND",
    "||": "use OR",
    "&": "use AND",
    "|": "use OR",
}

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


@dataclass(frozen=True, slots=True)
class Token:
    kind: Kind
    text: str  # exactly as written (keywords keep their case; see ``word``)
    value: object  # decoded literal, identifier name or upper-cased keyword/operator
    position: int  # 0-based offset in the filter text

    @property
    def word(self) -> str:
        """The keyword or operator in canonical (upper) case, '' for other tokens."""
        return str(self.value) if self.kind in (Kind.KEYWORD, Kind.OP) else ""


def _is_ident_start(ch: str) -> bool:
    # Java's Character.isJavaIdentifierStart: letters, '$', '_' (and currency symbols).
    return ch.isalpha() or ch in "$_"


def _is_ident_part(ch: str) -> bool:
    return ch.isalnum() or ch in "$_"


def tokenize(text: str) -> list[Token]:
    """Split a selector into tokens, ending with a ``Kind.END`` token at ``len(text)``."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch == "'":
            i = _string(text, i, tokens)
        elif ch == '"':
            i = _quoted_name(text, i, tokens)
        elif ch.isdigit() or (ch == "." and i + 1 < n and text[i + 1].isdigit()):
            i = _number(text, i, tokens)
        elif _is_ident_start(ch):
            j = i + 1
            while j < n and _is_ident_part(text[j]):
                j += 1
            word = text[i:j]
            if word.upper() in KEYWORDS:
                tokens.append(Token(Kind.KEYWORD, word, word.upper(), i))
            else:
                tokens.append(Token(Kind.IDENT, word, word, i))
            i = j
        else:
            i = _operator(text, i, tokens)
    tokens.append(Token(Kind.END, "", None, n))
    return tokens


def _string(text: str, start: int, out: list[Token]) -> int:
    """A single-quoted string; ``''`` inside stands for one quote."""
    parts: list[str] = []
    i = start + 1
    while True:
        end = text.find("'", i)
        if end < 0:
            raise filter_error("string literal is not closed", start, text[start : start + 20])
        parts.append(text[i:end])
        if text.startswith("''", end):
            parts.append("'")
            i = end + 2
            continue
        out.append(Token(Kind.STRING, text[start : end + 1], "".join(parts), start))
        return end + 1


def _quoted_name(text: str, start: int, out: list[Token]) -> int:
    """A double-quoted path step (ESQL style); ``""`` inside stands for one double quote."""
    parts: list[str] = []
    i = start + 1
    while True:
        end = text.find('"', i)
        if end < 0:
            raise filter_error(
                "quoted name is not closed (strings use single quotes)",
                start,
                text[start : start + 20],
            )
        parts.append(text[i:end])
        if text.startswith('""', end):
            parts.append('"')
            i = end + 2
            continue
        name = "".join(parts)
        if not name:
            raise filter_error("a quoted name cannot be empty", start, text[start : end + 1])
        out.append(Token(Kind.QUOTED, text[start : end + 1], name, start))
        return end + 1


def _number(text: str, start: int, out: list[Token]) -> int:
    n = len(text)
    if text.startswith(("0x", "0X"), start):
        return _hex(text, start, out)
    i = start
    while i < n and text[i].isdigit():
        i += 1
    approximate = False
    if i < n and text[i] == ".":
        approximate = True
        i += 1
        while i < n and text[i].isdigit():
            i += 1
    if i < n and text[i] in "eE":
        j = i + 1
        if j < n and text[j] in "+-":
            j += 1
        if j < n and text[j].isdigit():
            approximate = True
            i = j
            while i < n and text[i].isdigit():
                i += 1
    body = text[start:i]
    suffix = text[i] if i < n and text[i] in "lLfFdD" else ""
    i += len(suffix)
    if i < n and (_is_ident_part(text[i]) or text[i] == "."):
        raise filter_error("malformed number", start, text[start : i + 1])
    if suffix in ("f", "F", "d", "D"):
        approximate = True
    elif suffix and approximate:
        raise filter_error("an approximate number cannot end in L", start, text[start:i])
    if approximate:
        value = float(body)
        if math.isinf(value):
            raise filter_error("number is out of the range of a double", start, text[start:i])
        out.append(Token(Kind.FLOAT, text[start:i], value, start))
        return i
    if len(body) > 1 and body[0] == "0":
        # MQ: a leading zero followed by digits is always octal, so "09" is an error.
        if any(d in "89" for d in body):
            raise filter_error("invalid octal number (leading 0 means octal)", start, body)
        number = int(body, 8)
    else:
        number = int(body)
    return _integer(text, start, i, number, out)


def _hex(text: str, start: int, out: list[Token]) -> int:
    n = len(text)
    i = start + 2
    if i < n and text[i] == '"':
        # MQ byte string 0x"0AFC23": pairs of hex digits compared byte for byte.
        end = text.find('"', i + 1)
        if end < 0:
            raise filter_error("byte string is not closed", start, text[start : start + 20])
        digits = text[i + 1 : end]
        if not digits or not set(digits) <= _HEX_DIGITS:
            raise filter_error("byte string needs hex digits", start, text[start : end + 1])
        if len(digits) % 2:
            # MQ reports MQRC_SELECTOR_SYNTAX_ERROR; the queued RegSub says 3150.
            raise filter_error(
                "byte string needs an even number of hex digits", start, text[start : end + 1]
            )
        out.append(Token(Kind.BYTES, text[start : end + 1], bytes.fromhex(digits), start))
        return end + 1
    while i < n and text[i] in _HEX_DIGITS:
        i += 1
    if i == start + 2:
        raise filter_error("hex number needs digits after 0x", start, text[start:i])
    number = int(text[start + 2 : i], 16)
    if i < n and text[i] in "lL":
        i += 1
    if i < n and (_is_ident_part(text[i]) or text[i] == "."):
        raise filter_error("malformed hex number", start, text[start : i + 1])
    return _integer(text, start, i, number, out)


def _integer(text: str, start: int, end: int, number: int, out: list[Token]) -> int:
    # A literal may be one past LONG_MAX so that "-9223372036854775808" can be written;
    # the parser checks the sign.
    if number > LONG_MAX + 1:
        raise filter_error("number is out of the range of a long", start, text[start:end])
    out.append(Token(Kind.INTEGER, text[start:end], number, start))
    return end


def _operator(text: str, start: int, out: list[Token]) -> int:
    for foreign, hint in _FOREIGN_OPERATORS.items():
        if text.startswith(foreign, start):
            raise filter_error(f"{foreign!r} is not an operator: {hint}", start, foreign)
    for op in _OPERATORS:
        if text.startswith(op, start):
            out.append(Token(Kind.OP, op, op, start))
            return start + len(op)
    raise filter_error("unexpected character", start, text[start])
