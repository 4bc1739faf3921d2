"""pymqi's ``with`` blocks: what the block opened is closed at its end."""

from __future__ import annotations

from collections.abc import Callable


def end_block(kind: type[BaseException] | None, close: Callable[[], object]) -> None:
    """``close()`` at a block's end; its failure is raised only when the block itself raised
    nothing (``kind`` None): the block's own exception is the one to see."""
    try:
        close()
    except Exception:
        if kind is None:
            raise
