"""Small helpers shared by the selector tests: evaluate a filter over plain values."""

from __future__ import annotations

from collections.abc import Mapping

from mqkafka.selectors import DictMessageView, compile_selector


def evaluate(
    text: str,
    properties: Mapping[str, object] | None = None,
    *,
    mqmd: Mapping[str, object] | None = None,
    body: bytes = b"",
    msd: str | None = None,
) -> bool | None:
    """Compile ``text`` and evaluate it over a publication built from plain values."""
    view = DictMessageView(properties or {}, mqmd or {}, body, "", msd)
    return compile_selector(text).evaluate(view)
