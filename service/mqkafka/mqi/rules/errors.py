"""The MQI error, shaped like pymqi's ``MQMIError`` and rooted in :class:`MQError`.

pymqi code catches ``MQMIError`` and reads ``.comp`` / ``.reason``; product code catches
``MQError``. Being both, one exception serves both, and there stays one root.
"""

from __future__ import annotations

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import CC, name_of

_PREFIX = {CC.OK: "OK", CC.WARNING: "WARNING: ", CC.FAILED: "FAILED: "}


class MQMIError(MQError):
    """An MQI call ended with completion code ``comp`` and reason code ``reason``.

    ``MQMIError(2, 2046)`` is how pymqi spells it; ``detail`` adds the rule or the field
    that was wrong, for people (MQ itself only ever returns the two numbers).
    """

    def __init__(
        self,
        comp: int,
        reason: int,
        detail: str = "",
        *,
        message: bytes | None = None,
        original_length: int | None = None,
    ) -> None:
        super().__init__(reason, detail, comp=CC(comp))
        # As pymqi: the data of a truncated MQGET and the length the whole message had.
        self.message = message
        self.original_length = original_length

    @classmethod
    def of(cls, error: MQError) -> MQMIError:
        """The MQI form of any product error (the boundary where the two meet)."""
        if isinstance(error, MQMIError):
            return error
        return cls(error.comp, error.reason, error.detail)

    def errorAsString(self) -> str:  # pymqi spells it so
        """``FAILED: MQRC_OPTIONS_ERROR`` (``OK`` for a completion code of 0), as in pymqi."""
        prefix = _PREFIX.get(self.comp, "UNKNOWN: ")
        return prefix if self.comp == CC.OK else prefix + name_of(self.reason)

    def __str__(self) -> str:
        text = f"MQI Error. Comp: {int(self.comp)}, Reason {self.reason}: {self.errorAsString()}"
        return f"{text} ({self.detail})" if self.detail else text


class StructFieldError(MQMIError, AttributeError):
    """A structure was given a field it does not have, or a value of the wrong shape.

    Also an ``AttributeError`` because that is what pymqi raises for an unknown member, so
    code written against pymqi keeps working; the reason code is the structure's own
    (``MQRC_MD_ERROR``, ``MQRC_GMO_ERROR`` ...).
    """


# pymqi's base of both its exceptions: ``except pymqi.Error`` catches MQMIError and PYIFError.
Error = MQError


class PYIFError(MQError):
    """Misuse of the Python interface itself (pymqi's ``PYIFError``): not an MQI call's
    failure, so MQ has no reason code for it; ``reason`` is ``MQRC_NONE``."""

    def __init__(self, e: object) -> None:
        super().__init__(0, str(e), comp=CC.FAILED)
        self.error = e

    def __str__(self) -> str:
        return f"PYMQI Error: {self.error}"


class InterfaceMisuse(PYIFError, MQMIError):
    """Misuse that pymqi reports as ``PYIFError`` and MQ would answer with a reason code
    (closing a queue that is not open is 2019 in MQ): both, so either ``except`` works."""

    def __init__(self, reason: int, detail: str) -> None:
        MQMIError.__init__(self, CC.FAILED, reason, detail)
        self.error = detail

    def __str__(self) -> str:
        return f"PYMQI Error: {self.error} ({name_of(self.reason)})"


def failed(reason: int, detail: str = "") -> MQMIError:
    """An ``MQCC_FAILED`` error: the common case, spelled once."""
    return MQMIError(CC.FAILED, reason, detail)


__all__ = [
    "Error",
    "InterfaceMisuse",
    "MQMIError",
    "PYIFError",
    "StructFieldError",
    "failed",
]
