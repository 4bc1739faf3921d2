"""What a command handler produces before the reply is decided, and the helpers every handler
shares: partial authority and the response it adds up to.

A handler either raises ``MQError`` (the command is an error: nothing was processed, §3.3) or
returns an ``Outcome``: effects plus warnings (part of the command may have been processed).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from mqkafka.engine.authority import AuthorityPort, grants_everything
from mqkafka.engine.effects import Effect
from mqkafka.engine.ports import CompiledFilter, MessageView
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mq.responses import Response, ResponseItem

T = TypeVar("T")


class Outcome:
    __slots__ = ("effects", "full", "reads_content", "warnings")

    def __init__(self) -> None:
        self.effects: list[Effect] = []
        self.warnings: list[ResponseItem] = []
        self.full: tuple[tuple[str, str], ...] = ()  # FullResp attributes
        self.reads_content = False  # a content filter evaluated the message

    def response(self) -> Response:
        if self.warnings:
            return Response.warning(self.warnings)
        return Response.ok(self.full) if self.full else _OK


_OK = Response.ok()


def selected(compiled: CompiledFilter, view: MessageView, out: Outcome) -> bool:
    """Does a subscription's filter select this publication? A filter that cannot evaluate it
    (MQRC_CONTENT_ERROR 2554, MQRC_SELECTION_NOT_AVAILABLE 2551...) excludes that one copy and
    the reason is reported once as a warning: other subscribers still get theirs."""
    try:
        return compiled.matches(view)
    except MQError as error:
        if all(item.reason != error.reason for item in out.warnings):
            out.warnings.append(ResponseItem(error.reason))
        return False


def authorised(
    items: Sequence[tuple[str, T]],
    allowed: Callable[[str], bool],
    out: Outcome,
    port: AuthorityPort | None = None,
) -> list[T]:
    """Keep the items whose topic text is allowed; "if only some topics are authorised, only
    those are registered and a warning response lists the others" (reference §2.7, §2.10,
    §2.11). None allowed: MQRCCF_NOT_AUTHORIZED as an error. ``port``: when it grants
    everything, nothing is asked."""
    if port is not None and grants_everything(port):
        return [item for _, item in items]
    verdicts = [(text, item, allowed(text)) for text, item in items]
    kept = [item for _, item, ok in verdicts if ok]
    denied = [text for text, _, ok in verdicts if not ok]
    if items and not kept:
        raise MQError(RC.CF_NOT_AUTHORIZED, f"not authorised for topic {denied[0]!r}", parm="Topic")
    out.warnings.extend(ResponseItem(RC.CF_NOT_AUTHORIZED, "Topic", text) for text in denied)
    return kept


__all__ = ["Outcome", "authorised", "selected"]
