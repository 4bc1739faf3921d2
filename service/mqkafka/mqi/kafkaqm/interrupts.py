"""Ctrl-C while a share consumer polls: the program gets its KeyboardInterrupt.

A signal's Python handler runs wherever Python code runs next, so also inside a callback
that librdkafka calls during a poll (the statistics, the acknowledgement commit).
confluent-kafka 2.16's ShareConsumer then loses the handler's exception: the poll fails with
``SystemError`` ("returned NULL without setting an exception"), which an MQ program's
``except KeyboardInterrupt`` does not catch (IBM's basicresponse sample took it for a failed
MQGET, backed out and waited on). Callbacks wrapped by :meth:`Callbacks.guard` note what
they raise, and :meth:`Callbacks.call` raises it again from the consumer's method, or
``KeyboardInterrupt`` when the handler ran before the wrapper could note anything (at
the callback's first instruction).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

LOST = "returned NULL without setting an exception"


class Callbacks:
    """The callbacks one consumer calls, and what the last of them raised."""

    def __init__(self) -> None:
        self.raised: BaseException | None = None

    def guard(self, callback: Callable[P, R]) -> Callable[P, R]:
        """``callback``, noting what it raises before the client swallows it."""

        def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return callback(*args, **kwargs)
            except BaseException as error:
                self.raised = error
                raise

        return guarded

    def call(self, method: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """``method(*args)`` of the consumer; a callback's lost exception raised again."""
        self.raised = None
        try:
            return method(*args, **kwargs)
        except SystemError as error:
            if LOST not in str(error):
                raise
            raised, self.raised = self.raised, None
            raise (raised if raised is not None else KeyboardInterrupt()) from None
