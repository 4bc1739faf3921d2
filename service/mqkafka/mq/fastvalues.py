"""Building frozen values on the publish path without paying for their validation twice.

A frozen slotted dataclass sets each field through ``object.__setattr__`` and an ``MQMD``
validates all 27 fields when built (~11 us); the publish path has ~20 us in all. Every copy
of a publication is a subscription's template with a handful of fields changed to values the
engine made valid itself (a generated MsgId, the publisher's already-validated Priority...).
``copier`` writes a straight-line function, once per class, that allocates the object and
fills its slots directly: the result is the same immutable value, equal to one built the
ordinary way (the tests check that), at a tenth of the cost.

Why generated code (issue 22 asked to remove the ``exec`` unless a benchmark shows it is
needed; it does): the same copier written as plain code - a loop (in C, through ``map``)
over the slots' descriptors - makes bench_engine's Publish to one subscriber, decode +
engine + encode, ~20% slower: 41-58 us against 34-43 us per publication, process time, best
of 5 x 4,000, runs interleaved on the loaded 2-core machine; with this module put back the
figures are the old ones again (34-43 us). A copy is three copier calls (its MQMD, its
Deliver, the remembered Publish), each 27, 6 or ~20 slots. The Hypothesis tests in
``tests/unit/codecs/test_fastvalues.py`` check that a copied value equals the one its
constructor builds.

Use it only where every value is known to be valid; anything read from outside goes through
the class's own constructor.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def copier(cls: type[T], given: Sequence[str]) -> Callable[..., T]:
    """``make(template, *values)``: a new ``cls`` with ``given`` fields set to ``values`` (in
    that order) and every other field taken from ``template``, a sequence holding each field's
    value in ``dataclasses.fields(cls)`` order."""
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    unknown = set(given) - set(names)
    if unknown:
        raise ValueError(f"{cls.__name__} has no fields {sorted(unknown)}")
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = [f"def make(template, {', '.join(given)}):", "    value = _new(_cls)"]
    for index, name in enumerate(names):
        namespace[f"_set{index}"] = getattr(cls, name).__set__  # the slot's descriptor
        source = name if name in given else f"template[{index}]"
        lines.append(f"    _set{index}(value, {source})")
    lines.append("    return value")
    exec("\n".join(lines), namespace)
    make: Callable[..., T] = namespace["make"]
    return make


def template_values(value: object) -> list[Any]:
    """A value's fields in ``dataclasses.fields`` order: the template ``copier`` reads."""
    return [getattr(value, f.name) for f in dataclasses.fields(value)]  # type: ignore[arg-type]


__all__ = ["copier", "template_values"]
