"""The default filter port: it keeps a subscription's Filter text and passes everything.

Evaluating content filters (SQL92 selectors, reference §8) is a separate piece of work that
plugs in through ``mqkafka.engine.ports.FilterPort``. Until it is configured, the engine still
stores and compares Filter strings exactly as the rules require (DeregSub and ReqUpdate match
on Topic, SubPoint and Filter), but this port does NOT evaluate them: every publication passes
every filter.
"""

from __future__ import annotations

from dataclasses import dataclass

from mqkafka.engine.ports import CompiledFilter, MessageView


@dataclass(frozen=True, slots=True)
class PassAllFilter:
    """A Filter that is kept, not evaluated: ``matches`` is always True."""

    text: str
    evaluates: bool = False  # says so to anyone inspecting it

    def matches(self, message: MessageView) -> bool:
        return True


class PassAllFilterPort:
    """Accepts any Filter text and never evaluates it (no selector engine configured)."""

    evaluates = False

    def compile(self, text: str) -> CompiledFilter:
        """Keep ``text`` as the subscription's Filter. Does NOT evaluate it: the compiled
        filter's ``matches`` is always True and its ``evaluates`` is False."""
        return PassAllFilter(text)


PASS_ALL = PassAllFilterPort()

__all__ = ["PASS_ALL", "PassAllFilter", "PassAllFilterPort"]
