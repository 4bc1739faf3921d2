"""Small fakes at the engine's ports (never of its internals)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mqkafka.engine.ports import CompiledFilter, MessageView
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC

_EQUALS = re.compile(r"\s*(\w+)\s*=\s*'([^']*)'\s*")


@dataclass(frozen=True)
class EqualsFilter:
    """``name = 'value'`` over the publication's usr properties."""

    text: str
    name: str
    value: str

    def matches(self, message: MessageView) -> bool:
        return message.properties.get(self.name) == self.value


class EqualsFilterPort:
    """A filter port that understands only ``name = 'value'``; anything else is 3150."""

    def compile(self, text: str) -> CompiledFilter:
        found = _EQUALS.fullmatch(text)
        if found is None:
            raise MQError(RC.CF_FILTER_ERROR, f"cannot parse {text!r}")
        return EqualsFilter(text, found.group(1), found.group(2))


def usr(**properties: str) -> str:
    """A usr folder holding string properties."""
    return "<usr>" + "".join(f"<{k}>{v}</{k}>" for k, v in properties.items()) + "</usr>"
