"""The syntax tree of a selector: plain frozen values, built by the parser, read by the compiler.

Every node keeps the 0-based ``position`` of the token that introduced it so that a static
error found later (a string in arithmetic, an unknown MQMD field) can still say where.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal as Lit
from typing import TypeAlias

LiteralValue: TypeAlias = bool | int | float | str | bytes
ArithmeticOp: TypeAlias = Lit["+", "-", "*", "/"]
ComparisonOp: TypeAlias = Lit["=", "<>", "<", ">", "<=", ">="]
BodySyntax: TypeAlias = Lit["any", "xml", "json"]


@dataclass(frozen=True, slots=True)
class Literal:
    value: LiteralValue
    position: int


@dataclass(frozen=True, slots=True)
class Name:
    """A bare identifier: a JMS header name or a ``usr`` folder property."""

    name: str
    position: int


@dataclass(frozen=True, slots=True)
class MqmdField:
    """``Root.MQMD.<field>``: a raw MQMD field by its MQ name."""

    field: str
    position: int


@dataclass(frozen=True, slots=True)
class PathStep:
    name: str
    index: int | None = None  # ESQL ``[n]``, 1-based; None means the first occurrence


@dataclass(frozen=True, slots=True)
class BodyPath:
    """``Body.a.b`` (any self-describing body) or ``Root.XMLNSC.a.b`` / ``Root.JSON.Data.a.b``."""

    steps: tuple[PathStep, ...]
    syntax: BodySyntax
    position: int


@dataclass(frozen=True, slots=True)
class Unary:
    op: Lit["+", "-"]
    operand: Node
    position: int


@dataclass(frozen=True, slots=True)
class Arithmetic:
    op: ArithmeticOp
    left: Node
    right: Node
    position: int


@dataclass(frozen=True, slots=True)
class Comparison:
    op: ComparisonOp
    left: Node
    right: Node
    position: int


@dataclass(frozen=True, slots=True)
class Not:
    operand: Node
    position: int


@dataclass(frozen=True, slots=True)
class Logical:
    op: Lit["AND", "OR"]
    operands: tuple[Node, ...]  # two or more; chains of one operator are flattened
    position: int


@dataclass(frozen=True, slots=True)
class Between:
    operand: Node
    low: Node
    high: Node
    negated: bool
    position: int


@dataclass(frozen=True, slots=True)
class InList:
    operand: Node
    items: tuple[Literal, ...]
    negated: bool
    position: int


@dataclass(frozen=True, slots=True)
class Like:
    operand: Node
    pattern: str
    escape: str | None
    negated: bool
    position: int


@dataclass(frozen=True, slots=True)
class IsNull:
    operand: Node
    negated: bool
    position: int


Node: TypeAlias = (
    Literal
    | Name
    | MqmdField
    | BodyPath
    | Unary
    | Arithmetic
    | Comparison
    | Not
    | Logical
    | Between
    | InList
    | Like
    | IsNull
)
