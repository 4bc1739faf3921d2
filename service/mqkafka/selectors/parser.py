"""Recursive-descent parser: selector text → syntax tree (``nodes``), syntax errors → 3150.

Grammar, loosest binding first (reference §8; JMS 3.8.1.1; MQ "Message selector syntax"):

    selector   := or_expr END
    or_expr    := and_expr (OR and_expr)*
    and_expr   := not_expr (AND not_expr)*
    not_expr   := NOT not_expr | predicate
    predicate  := sum [ cmp_op sum                        -- one comparison, never chained
                      | [NOT] BETWEEN sum AND sum
                      | [NOT] IN '(' literal (',' literal)* ')'
                      | [NOT] LIKE string [ESCAPE string]
                      | IS [NOT] NULL ]
    sum        := product (('+' | '-') product)*          -- left to right
    product    := unary (('*' | '/') unary)*
    unary      := ('+' | '-') unary | primary
    primary    := literal | name | path | '(' or_expr ')'
    path       := 'Body' ('.' step)+ | 'Root' '.' root_path
    step       := (identifier | keyword | "quoted") ['[' integer ']']

Keywords are case-insensitive; identifiers are case-sensitive and never a reserved word.
A ``.`` is only allowed inside the ``Body.``/``Root.`` paths; a bare ``Body`` or ``Root`` is an
ordinary property name. ``20 < b < 30`` is rejected, as MQ's restrictions page says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal as Lit

from mqkafka.mq.errors import MQError
from mqkafka.selectors import nodes as n
from mqkafka.selectors.errors import filter_error
from mqkafka.selectors.lexer import LONG_MAX, Kind, Token, tokenize

_SUM_OPS: dict[str, n.ArithmeticOp] = {"+": "+", "-": "-"}
_PRODUCT_OPS: dict[str, n.ArithmeticOp] = {"*": "*", "/": "/"}
_SIGNS: dict[str, Lit["+", "-"]] = {"+": "+", "-": "-"}
_COMPARISONS: dict[str, n.ComparisonOp] = {
    "=": "=",
    "<>": "<>",
    "<": "<",
    ">": ">",
    "<=": "<=",
    ">=": ">=",
}
MAX_NESTING = 40  # parentheses, NOT and signs; keeps parsing and evaluation off the stack limit
MAX_HEIGHT = 128  # operator tree height (a+b+c+... builds a left-deep tree)
# ESQL names for the body's parser in Root.<parser>...; the XML ones all mean "an XML body".
_ROOT_XML_PARSERS = frozenset({"XMLNSC", "XMLNS", "XML"})


def parse(text: str) -> n.Node:
    """Parse a non-blank selector; raise ``MQError(CF_FILTER_ERROR)`` saying where it fails."""
    parser = _Parser(tokenize(text))
    tree = parser.or_expr()
    end = parser.peek()
    if end.kind is not Kind.END:
        raise _unexpected(end, "AND, OR or the end of the filter")
    _check_height(tree)
    return tree


def _unexpected(token: Token, expected: str) -> MQError:
    if token.kind is Kind.END:
        return filter_error(f"expected {expected}, but the filter ends", token.position, "")
    message = f"expected {expected}, found {token.kind.value}"
    return filter_error(message, token.position, token.text)


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self._tokens = tokens
        self._at = 0
        self._nesting = 0

    # --- token helpers -------------------------------------------------------------------
    def peek(self, ahead: int = 0) -> Token:
        return self._tokens[min(self._at + ahead, len(self._tokens) - 1)]

    def _next(self) -> Token:
        token = self.peek()
        self._at += 1
        return token

    def _is(self, word: str, ahead: int = 0) -> bool:
        return self.peek(ahead).word == word

    def _expect(self, word: str, what: str) -> Token:
        if not self._is(word):
            raise _unexpected(self.peek(), what)
        return self._next()

    def _enter(self, token: Token) -> None:
        self._nesting += 1
        if self._nesting > MAX_NESTING:
            raise filter_error(f"nested more than {MAX_NESTING} deep", token.position, token.text)

    # --- conditions ----------------------------------------------------------------------
    def or_expr(self) -> n.Node:
        return self._chain("OR", self._and_expr)

    def _and_expr(self) -> n.Node:
        return self._chain("AND", self._not_expr)

    def _chain(self, word: Lit["AND", "OR"], parse_operand: Callable[[], n.Node]) -> n.Node:
        operands = [parse_operand()]
        position = -1
        while self._is(word):
            token = self._next()
            if position < 0:
                position = token.position
            operands.append(parse_operand())
        if len(operands) == 1:
            return operands[0]
        return n.Logical(word, tuple(operands), position)

    def _not_expr(self) -> n.Node:
        if self._is("NOT"):
            token = self._next()
            self._enter(token)
            operand = self._not_expr()
            self._nesting -= 1
            return n.Not(operand, token.position)
        return self._predicate()

    def _predicate(self) -> n.Node:
        left = self._sum()
        token = self.peek()
        if token.kind is Kind.OP and token.word in _COMPARISONS:
            self._next()
            right = self._sum()
            after = self.peek()
            if after.kind is Kind.OP and after.word in _COMPARISONS:
                raise filter_error(
                    "comparisons cannot be chained; write (b > 20) AND (b < 30)",
                    after.position,
                    after.text,
                )
            return n.Comparison(_COMPARISONS[token.word], left, right, token.position)
        negated = self._is("NOT") and self.peek(1).word in ("BETWEEN", "IN", "LIKE")
        if negated:
            self._next()
        word = self.peek().word
        if word == "BETWEEN":
            position = self._next().position
            low = self._sum()
            self._expect("AND", "AND between the two BETWEEN bounds")
            high = self._sum()
            return n.Between(left, low, high, negated, position)
        if word == "IN":
            return self._in_list(left, negated)
        if word == "LIKE":
            return self._like(left, negated)
        if word == "IS" and not negated:
            position = self._next().position
            is_not = self._is("NOT")
            if is_not:
                self._next()
            self._expect("NULL", "NULL after IS" + (" NOT" if is_not else ""))
            return n.IsNull(left, is_not, position)
        return left

    def _in_list(self, left: n.Node, negated: bool) -> n.Node:
        position = self._next().position
        self._expect("(", "'(' after IN")
        items = [self._in_item()]
        while self._is(","):
            self._next()
            items.append(self._in_item())
        self._expect(")", "',' or ')' in the IN list")
        return n.InList(left, tuple(items), negated, position)

    def _in_item(self) -> n.Literal:
        # JMS allows string literals only; numbers, booleans and byte strings are accepted
        # too (compared as '=' would) because nothing is lost by it.
        token = self.peek()
        if token.word in ("+", "-") and self.peek(1).kind in (Kind.INTEGER, Kind.FLOAT):
            self._next()
            literal = self._literal(self._next(), negative=token.word == "-")
            return n.Literal(literal.value, token.position)
        if token.kind in (Kind.STRING, Kind.BYTES, Kind.INTEGER, Kind.FLOAT) or token.word in (
            "TRUE",
            "FALSE",
        ):
            return self._literal(self._next())
        raise _unexpected(token, "a literal in the IN list")

    def _like(self, left: n.Node, negated: bool) -> n.Node:
        position = self._next().position
        pattern = self.peek()
        if pattern.kind is not Kind.STRING:
            raise _unexpected(pattern, "a string literal pattern after LIKE")
        self._next()
        escape: str | None = None
        if self._is("ESCAPE"):
            self._next()
            token = self.peek()
            if token.kind is not Kind.STRING or len(str(token.value)) != 1:
                raise filter_error(
                    "ESCAPE needs a one-character string literal", token.position, token.text
                )
            escape = str(self._next().value)
            _check_escapes(str(pattern.value), escape, pattern)
        return n.Like(left, str(pattern.value), escape, negated, position)

    # --- values --------------------------------------------------------------------------
    def _sum(self) -> n.Node:
        left = self._product()
        while self.peek().word in _SUM_OPS:
            token = self._next()
            right = self._product()
            left = n.Arithmetic(_SUM_OPS[token.word], left, right, token.position)
        return left

    def _product(self) -> n.Node:
        left = self._unary()
        while self.peek().word in _PRODUCT_OPS:
            token = self._next()
            right = self._unary()
            left = n.Arithmetic(_PRODUCT_OPS[token.word], left, right, token.position)
        return left

    def _unary(self) -> n.Node:
        token = self.peek()
        if token.kind is Kind.OP and token.word in _SIGNS:
            self._next()
            if self.peek().kind in (Kind.INTEGER, Kind.FLOAT):
                # "-957" is one literal (JMS examples), which also lets LONG_MIN be written.
                literal = self._literal(self._next(), negative=token.word == "-")
                return n.Literal(literal.value, token.position)
            self._enter(token)
            operand = self._unary()
            self._nesting -= 1
            return n.Unary(_SIGNS[token.word], operand, token.position)
        return self._primary()

    def _primary(self) -> n.Node:
        token = self.peek()
        if token.kind in (Kind.STRING, Kind.BYTES, Kind.INTEGER, Kind.FLOAT) or token.word in (
            "TRUE",
            "FALSE",
        ):
            return self._literal(self._next())
        if token.kind is Kind.IDENT:
            self._next()
            if self._is("."):
                return self._path(token)
            return n.Name(str(token.value), token.position)
        if token.word == "(":
            self._next()
            self._enter(token)
            inner = self.or_expr()
            self._nesting -= 1
            self._expect(")", "')' to close the '(' at column " + str(token.position + 1))
            return inner
        if token.word == "NULL":
            raise filter_error("NULL is only allowed in IS [NOT] NULL", token.position, token.text)
        if token.kind is Kind.KEYWORD:
            raise filter_error(
                f"{token.word} is a reserved word, not an identifier or value",
                token.position,
                token.text,
            )
        raise _unexpected(token, "a value, an identifier or '('")

    def _literal(self, token: Token, negative: bool = False) -> n.Literal:
        value = token.value
        if token.kind is Kind.KEYWORD:
            return n.Literal(token.word == "TRUE", token.position)
        if isinstance(value, int | float):
            if negative:
                value = -value
            elif isinstance(value, int) and value > LONG_MAX:  # only -2**63 may be written
                raise filter_error(
                    "number is out of the range of a long", token.position, token.text
                )
            return n.Literal(value, token.position)
        if isinstance(value, str | bytes):
            return n.Literal(value, token.position)
        raise _unexpected(token, "a literal")  # pragma: no cover - callers check the kind

    # --- paths ---------------------------------------------------------------------------
    def _path(self, head: Token) -> n.Node:
        steps = self._steps()
        if head.value == "Body":
            return n.BodyPath(tuple(steps), "any", head.position)
        if head.value != "Root":
            raise filter_error(
                "'.' is only allowed in Body.<path> and Root.<path> references",
                head.position,
                head.text,
            )
        first, rest = steps[0].name, steps[1:]
        if first == "MQMD" and len(rest) == 1 and rest[0].index is None:
            return n.MqmdField(rest[0].name, head.position)
        if first == "MQRFH2" and len(rest) == 2 and rest[0].name == "usr":
            return n.Name(rest[1].name, head.position)
        if first in _ROOT_XML_PARSERS and rest:
            return n.BodyPath(tuple(rest), "xml", head.position)
        if first == "JSON" and len(rest) >= 2 and rest[0].name == "Data":
            return n.BodyPath(tuple(rest[1:]), "json", head.position)
        raise filter_error(
            "unsupported Root reference; use Root.MQMD.<field>, Root.MQRFH2.usr.<name>, "
            "Root.XMLNSC.<path> or Root.JSON.Data.<path>",
            head.position,
            head.text,
        )

    def _steps(self) -> list[n.PathStep]:
        steps: list[n.PathStep] = []
        while self._is("."):
            self._next()
            token = self.peek()
            if token.kind not in (Kind.IDENT, Kind.KEYWORD, Kind.QUOTED):
                raise _unexpected(token, "a name after '.'")
            self._next()
            name = token.text if token.kind is Kind.KEYWORD else str(token.value)
            index: int | None = None
            if self._is("["):
                self._next()
                number = self._next()
                if not (isinstance(number.value, int) and 1 <= number.value <= LONG_MAX):
                    raise filter_error(
                        "an index is a whole number from 1", number.position, number.text
                    )
                index = number.value
                self._expect("]", "']' after the index")
            steps.append(n.PathStep(name, index))
        return steps


def _check_escapes(pattern: str, escape: str, token: Token) -> None:
    """SQL: the escape character may only precede ``%``, ``_`` or itself."""
    i = 0
    while i < len(pattern):
        if pattern[i] == escape:
            if i + 1 >= len(pattern) or pattern[i + 1] not in ("%", "_", escape):
                raise filter_error(
                    f"escape character {escape!r} must precede %, _ or itself in the pattern",
                    token.position,
                    token.text,
                )
            i += 2
        else:
            i += 1


def _check_height(tree: n.Node) -> None:
    """Reject trees taller than MAX_HEIGHT, iteratively (the check must not recurse itself)."""
    stack: list[tuple[n.Node, int]] = [(tree, 1)]
    while stack:
        node, height = stack.pop()
        if height > MAX_HEIGHT:
            raise filter_error(
                f"expression is nested more than {MAX_HEIGHT} operators deep", node.position, None
            )
        stack.extend((child, height + 1) for child in _children(node))


def _children(node: n.Node) -> tuple[n.Node, ...]:
    match node:
        case n.Unary(operand=o) | n.Not(operand=o) | n.IsNull(operand=o):
            return (o,)
        case n.Like(operand=o) | n.InList(operand=o):
            return (o,)
        case n.Arithmetic(left=a, right=b) | n.Comparison(left=a, right=b):
            return (a, b)
        case n.Between(operand=o, low=lo, high=hi):
            return (o, lo, hi)
        case n.Logical(operands=ops):
            return ops
        case _:
            return ()
