"""Syntax tree → one Python closure per node, checked and constant-folded once per filter.

Compile-time work, so that evaluation per publication is only closure calls:

* static types (``StaticType``): a literal, JMS header or MQMD field has a known type, a
  property or body field does not (ANY). Combinations that can never be valid are filter
  errors (3150) here, never at publish time: arithmetic on a string, ``'a' = 1``,
  ``'a' < 'b'`` (JMS orders numbers only), a number as a condition, LIKE on a number.
* constant folding: a subtree without names is evaluated now; ``AND`` with a constant FALSE
  and ``OR`` with a constant TRUE fold whatever else they hold, so ``x = 1 AND 1 = 2`` is
  known to be always false.
* fast paths: ``name <op> literal`` (the usual filter shape) tests the value's exact type
  first and falls back to the general rules in ``semantics`` only for NULL, XML text and
  type mismatches.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

from mqkafka.engine.ports import MessageView
from mqkafka.selectors import nodes as n
from mqkafka.selectors import semantics as s
from mqkafka.selectors.body import body_getter
from mqkafka.selectors.errors import filter_error
from mqkafka.selectors.identifiers import Getter, mqmd_getter, resolve_name
from mqkafka.selectors.semantics import StaticType as T

_CONDITION_TYPES = (T.BOOLEAN, T.ANY)
_NUMERIC_TYPES = (T.NUMBER, T.ANY)
_ORDERING = ("<", ">", "<=", ">=")
_MIRROR = {"=": "=", "<>": "<>", "<": ">", ">": "<", "<=": ">=", ">=": "<="}
_NUMBER_TESTS: dict[str, Callable[[float, float], bool]] = {
    "=": operator.eq,
    "<>": operator.ne,
    "<": operator.lt,
    ">": operator.gt,
    "<=": operator.le,
    ">=": operator.ge,
}
_FAST_ARITHMETIC: dict[str, Callable[[float, float], float]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
}


@dataclass(frozen=True, slots=True)
class Compiled:
    """A compiled subtree: a closure, or a constant when ``fn`` is None."""

    fn: Getter | None
    value: object
    type: T
    uses_body: bool = False

    @property
    def constant(self) -> bool:
        return self.fn is None

    def getter(self) -> Getter:
        if self.fn is not None:
            return self.fn
        value = self.value
        return lambda view: value


def _const(value: object, type_: T) -> Compiled:
    return Compiled(None, value, type_)


def compile_tree(tree: n.Node) -> Compiled:
    """Compile a whole selector; its result is a truth value (TRUE/FALSE/UNKNOWN)."""
    result = _compile(tree)
    _need(result, _CONDITION_TYPES, tree, "a filter must be a condition")
    return _as_condition(result)


def _need(c: Compiled, allowed: tuple[T, ...], node: n.Node, message: str) -> None:
    if c.type not in allowed:
        raise filter_error(f"{message}, not a {c.type.value}", node.position, None)


def _as_condition(c: Compiled) -> Compiled:
    """A value used as a condition: only TRUE/FALSE count, anything else is UNKNOWN."""
    if c.type is T.BOOLEAN:
        return c
    if c.fn is None:
        return _const(s.truth(c.value), T.BOOLEAN)
    fn, truth = c.fn, s.truth
    return Compiled(lambda view: truth(fn(view)), None, T.BOOLEAN, c.uses_body)


def _compile(node: n.Node) -> Compiled:
    match node:
        case n.Literal(value=value):
            return _const(value, s.type_of_literal(value))
        case n.Name(name=name):
            type_, get = resolve_name(name)
            return Compiled(get, None, type_)
        case n.MqmdField(field=field):
            found = mqmd_getter(field)
            if found is None:
                raise filter_error(f"the MQMD has no field {field!r}", node.position, field)
            return Compiled(found[1], None, found[0])
        case n.BodyPath(steps=steps, syntax=syntax):
            return Compiled(body_getter(steps, syntax), None, T.ANY, uses_body=True)
        case n.Unary():
            return _unary(node)
        case n.Arithmetic():
            return _arithmetic(node)
        case n.Comparison():
            return _comparison(node)
        case n.Not():
            return _not(node)
        case n.Logical():
            return _logical(node)
        case n.Between():
            return _between(node)
        case n.InList():
            return _in_list(node)
        case n.Like():
            return _like(node)
        case n.IsNull():
            return _is_null(node)
    raise AssertionError(f"unknown node {node!r}")  # pragma: no cover - nodes are a closed set


def _unary(node: n.Unary) -> Compiled:
    operand = _compile(node.operand)
    _need(operand, _NUMERIC_TYPES, node, f"unary {node.op!r} needs a number")
    apply = s.negate if node.op == "-" else s.identity
    if operand.fn is None:
        return _const(apply(operand.value), T.NUMBER)
    fn = operand.fn
    return Compiled(lambda view: apply(fn(view)), None, T.NUMBER, operand.uses_body)


def _arithmetic(node: n.Arithmetic) -> Compiled:
    left, right = _compile(node.left), _compile(node.right)
    for side, part in ((left, node.left), (right, node.right)):
        _need(side, _NUMERIC_TYPES, part, f"{node.op!r} needs numbers")
    op, slow = node.op, s.arithmetic
    if left.fn is None and right.fn is None:
        return _const(slow(op, left.value, right.value), T.NUMBER)
    get_a, get_b = left.getter(), right.getter()
    fast = _FAST_ARITHMETIC.get(op)

    def compute(view: MessageView) -> object:
        a, b = get_a(view), get_b(view)
        ta, tb = type(a), type(b)
        if fast is not None and (ta is int or ta is float) and (tb is int or tb is float):
            return fast(a, b)  # type: ignore[arg-type]  # type() checks do not narrow for mypy
        return slow(op, a, b)

    return Compiled(compute, None, T.NUMBER, left.uses_body or right.uses_body)


def _check_comparable(op: str, left: Compiled, right: Compiled, node: n.Node) -> None:
    known = {left.type, right.type} - {T.ANY}
    if len(known) > 1:
        a, b = sorted(t.value for t in known)
        raise filter_error(f"a {a} cannot be compared with a {b}", node.position, op)
    if op in _ORDERING and known & {T.STRING, T.BOOLEAN, T.BYTES}:
        (kind,) = known
        raise filter_error(
            f"{op!r} orders numbers only; a {kind.value} compares with = and <> only",
            node.position,
            op,
        )


def _comparison(node: n.Comparison) -> Compiled:
    left, right = _compile(node.left), _compile(node.right)
    _check_comparable(node.op, left, right, node)
    op: str = node.op
    uses_body = left.uses_body or right.uses_body
    if left.fn is None and right.fn is None:
        return _const(s.COMPARE[op](left.value, right.value), T.BOOLEAN)
    if left.fn is None and right.fn is not None:  # 5 < x  →  x > 5
        left, right, op = right, left, _MIRROR[op]
    if right.fn is None and left.fn is not None:
        return Compiled(_compare_constant(op, left.fn, right.value), None, T.BOOLEAN, uses_body)
    get_a, get_b, slow = left.getter(), right.getter(), s.COMPARE[op]
    return Compiled(lambda view: slow(get_a(view), get_b(view)), None, T.BOOLEAN, uses_body)


def _compare_constant(op: str, get: Getter, constant: object) -> Getter:
    """``value <op> literal`` with a test on the value's exact type before the general rule."""
    slow = s.COMPARE[op]
    if s.is_number(constant):
        test = _NUMBER_TESTS[op]

        def compare_number(view: MessageView) -> object:
            value = get(view)
            kind = type(value)
            if kind is int or kind is float:
                return test(value, constant)  # type: ignore[arg-type]  # both numbers here
            return slow(value, constant)

        return compare_number
    if isinstance(constant, str) and op in ("=", "<>"):
        want = op == "="

        def compare_string(view: MessageView) -> object:
            value = get(view)
            if type(value) is str:
                return (value == constant) is want
            return slow(value, constant)

        return compare_string
    return lambda view: slow(get(view), constant)


def _not(node: n.Not) -> Compiled:
    operand = _compile(node.operand)
    _need(operand, _CONDITION_TYPES, node, "NOT needs a condition")
    operand = _as_condition(operand)
    if operand.fn is None:
        return _const(s.logical_not(s.truth(operand.value)), T.BOOLEAN)
    fn = operand.fn

    def negation(view: MessageView) -> object:
        value = fn(view)
        return None if value is None else value is not True

    return Compiled(negation, None, T.BOOLEAN, operand.uses_body)


def _logical(node: n.Logical) -> Compiled:
    is_and = node.op == "AND"
    dominant, neutral = (False, True) if is_and else (True, False)
    parts: list[Compiled] = []
    for child in node.operands:
        part = _compile(child)
        _need(part, _CONDITION_TYPES, child, f"{node.op} needs conditions")
        part = _as_condition(part)
        if part.fn is None and part.value is dominant:
            return _const(dominant, T.BOOLEAN)  # FALSE AND anything / TRUE OR anything
        if part.fn is None and part.value is neutral:
            continue
        parts.append(part)
    if not parts:
        return _const(neutral, T.BOOLEAN)
    if all(p.fn is None for p in parts):
        return _const(None, T.BOOLEAN)  # only UNKNOWN constants are left
    if len(parts) == 1:
        return parts[0]
    fns = tuple(p.getter() for p in parts)
    uses_body = any(p.uses_body for p in parts)

    if is_and:

        def conjunction(view: MessageView) -> object:
            result: object = True
            for fn in fns:
                value = fn(view)
                if value is False:
                    return False
                if value is not True:
                    result = None
            return result

        return Compiled(conjunction, None, T.BOOLEAN, uses_body)

    def disjunction(view: MessageView) -> object:
        result: object = False
        for fn in fns:
            value = fn(view)
            if value is True:
                return True
            if value is not False:
                result = None
        return result

    return Compiled(disjunction, None, T.BOOLEAN, uses_body)


def _negated(fn: Getter, negated: bool) -> Getter:
    if not negated:
        return fn

    def negation(view: MessageView) -> object:
        result = fn(view)
        return None if result is None else result is not True

    return negation


def _between(node: n.Between) -> Compiled:
    parts = [_compile(x) for x in (node.operand, node.low, node.high)]
    for part, child in zip(parts, (node.operand, node.low, node.high), strict=True):
        _need(part, _NUMERIC_TYPES, child, "BETWEEN compares numbers only; it needs a number")
    value, low, high = parts
    uses_body = any(p.uses_body for p in parts)
    if all(p.fn is None for p in parts):
        result = s.between(value.value, low.value, high.value)
        return _const(s.logical_not(result) if node.negated else result, T.BOOLEAN)
    get, slow = value.getter(), s.between
    if low.fn is None and high.fn is None and value.fn is not None:
        lo, hi = low.value, high.value
        if s.is_number(lo) and s.is_number(hi):
            negated = node.negated

            def between_numbers(view: MessageView) -> object:
                v = get(view)
                kind = type(v)
                if kind is int or kind is float:
                    return (lo <= v <= hi) is not negated  # type: ignore[operator]  # numbers
                result = slow(v, lo, hi)
                return result if result is None or not negated else not result

            return Compiled(between_numbers, None, T.BOOLEAN, uses_body)
    get_lo, get_hi = low.getter(), high.getter()
    fn = _negated(lambda view: slow(get(view), get_lo(view), get_hi(view)), node.negated)
    return Compiled(fn, None, T.BOOLEAN, uses_body)


def _in_list(node: n.InList) -> Compiled:
    operand = _compile(node.operand)
    items = tuple(item.value for item in node.items)
    for item in node.items:
        _check_comparable("=", operand, _const(item.value, s.type_of_literal(item.value)), item)
    slow = s.in_list
    if operand.fn is None:
        result = slow(operand.value, items)
        return _const(s.logical_not(result) if node.negated else result, T.BOOLEAN)
    get, negated = operand.fn, node.negated
    fast_type: type | None = None
    if all(type(i) is str for i in items):
        fast_type = str
    elif all(s.is_number(i) for i in items):
        fast_type = float  # int and float both hit it: 1 == 1.0 and hash(1) == hash(1.0)
    members = frozenset(items)

    def member(view: MessageView) -> object:
        v = get(view)
        kind = type(v)
        if kind is fast_type or (fast_type is float and kind is int):
            return (v in members) is not negated
        result = slow(v, items)
        return result if result is None or not negated else not result

    return Compiled(member, None, T.BOOLEAN, operand.uses_body)


def _like(node: n.Like) -> Compiled:
    operand = _compile(node.operand)
    _need(operand, (T.STRING, T.ANY), node.operand, "LIKE needs a string")
    test, negated = s.like_matcher(node.pattern, node.escape), node.negated
    if operand.fn is None:
        v = operand.value
        return _const(None if v is None else test(str(v)) is not negated, T.BOOLEAN)
    get = operand.fn

    def like(view: MessageView) -> object:
        v = get(view)
        if isinstance(v, str):
            return test(v) is not negated
        return None  # NULL, or not a string: UNKNOWN

    return Compiled(like, None, T.BOOLEAN, operand.uses_body)


def _is_null(node: n.IsNull) -> Compiled:
    operand = _compile(node.operand)
    negated = node.negated
    if operand.fn is None:
        return _const((operand.value is None) is not negated, T.BOOLEAN)
    get = operand.fn
    return Compiled(
        lambda view: (get(view) is None) is not negated, None, T.BOOLEAN, operand.uses_body
    )
