"""``compile_selector``: a Filter's text → a ``Selector`` compiled once, evaluated per publication.

Rules:

* An empty or blank filter is no selection: everything matches. — reference §8
* A syntax or static type error is ``MQRCCF_FILTER_ERROR`` 3150 at RegSub/ReqUpdate time,
  saying where. — reference §8; brief
* A filter that is constant TRUE selects everything. — MQ8 "Selection behavior"
* A filter that constant folding shows can never be TRUE without looking at a message
  (``1 = 2``, ``NOT TRUE``, ``'a' = 'b' AND x > 1``) is ``MQRC_SELECTOR_ALWAYS_FALSE`` 2504,
  on RegSub as on MQSUB. — reference §8 "A selector that is constant-FALSE is rejected with
  MQRC_SELECTOR_ALWAYS_FALSE 2504". A constant UNKNOWN (``1 / 0 = 1``) never selects either
  and is refused the same way (choice: only TRUE selects, §8).
* Evaluation never raises: a type mismatch, NULL or a broken body is UNKNOWN, and UNKNOWN is
  not delivered. — brief; JMS
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mqkafka.engine.ports import MessageView
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.selectors.body import BodyCache, CachedMessageView
from mqkafka.selectors.compiler import compile_tree
from mqkafka.selectors.errors import FILTER_PARM, filter_error
from mqkafka.selectors.parser import parse

Truth = bool | None


def _select_all(view: MessageView) -> Truth:
    return True


@dataclass(frozen=True, slots=True)
class Selector:
    """A compiled Filter. Satisfies ``engine.ports.CompiledFilter``.

    Two selectors are equal when their texts are; the closure is not compared.
    """

    text: str
    _test: Callable[[MessageView], object] = field(repr=False, compare=False)
    uses_body: bool = False  # reads Body.…: evaluated over a CachedMessageView
    selects_all: bool = False  # blank or constant TRUE: the engine may skip evaluation
    _bodies: BodyCache | None = field(default=None, repr=False, compare=False)

    def evaluate(self, message: MessageView) -> Truth:
        """TRUE, FALSE or UNKNOWN (``None``) for one publication."""
        if self.uses_body and not isinstance(message, CachedMessageView):
            message = CachedMessageView(message, self._bodies)
        result = self._test(message)
        return result if result is True or result is False else None

    def matches(self, message: MessageView) -> bool:
        """True only when the filter is TRUE: FALSE and UNKNOWN both exclude."""
        if self.uses_body and not isinstance(message, CachedMessageView):
            message = CachedMessageView(message, self._bodies)
        return self._test(message) is True


def compile_selector(text: str, bodies: BodyCache | None = None) -> Selector:
    """Compile a Filter; raise ``MQError(RC.CF_FILTER_ERROR, detail, position=...)`` if invalid,
    ``MQError(RC.SELECTOR_ALWAYS_FALSE, ...)`` if it can never be TRUE.

    ``position`` is the 0-based offset of the offending token; the detail names the
    1-based column and the token. Selectors given the same ``bodies`` cache share the parse
    of a publication's body; without one, each selector has its own.
    """
    if not isinstance(text, str):
        raise MQError(RC.CF_FILTER_ERROR, "filter must be text", parm=FILTER_PARM)
    if not text.strip():
        return Selector(text, _select_all, selects_all=True)
    try:
        compiled = compile_tree(parse(text))
    except RecursionError:  # belt and braces: the parser already bounds nesting
        raise filter_error("filter is nested more than Python can parse", 0, None) from None
    if compiled.fn is None:
        if compiled.value is True:
            return Selector(text, _select_all, selects_all=True)
        raise MQError(
            RC.SELECTOR_ALWAYS_FALSE,
            "filter is always false: it can never select a publication",
            parm=FILTER_PARM,
            position=0,
        )
    if not compiled.uses_body:
        return Selector(text, compiled.fn)
    return Selector(text, compiled.fn, uses_body=True, _bodies=bodies or BodyCache())


class SelectorFilterPort:
    """``engine.ports.FilterPort`` backed by the SQL92 selector compiler.

    Its only state is the ``BodyCache`` its selectors share, so that a publication's body is
    parsed once however many subscriptions' filters read it.
    """

    def __init__(self) -> None:
        self._bodies = BodyCache()

    def compile(self, text: str) -> Selector:
        return compile_selector(text, self._bodies)
