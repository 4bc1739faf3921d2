"""The one exception root: every failure the product reports carries an MQ reason code.

It is converted into a reply, an MQI error or a dead-letter message at exactly one boundary
per adapter; nothing below that boundary formats replies itself.
"""

from __future__ import annotations

from mqkafka.mq.reasons import CC, RC, name_of


class MQError(Exception):
    """A failure with an MQ completion code and reason code.

    ``detail`` says what was wrong in words (and where, for a parse error); ``parm`` names the
    offending property or tag when there is one (``MQPSParmId`` / the ``<Response>`` child).
    """

    def __init__(
        self,
        reason: int,
        detail: str = "",
        *,
        comp: CC = CC.FAILED,
        parm: str | None = None,
        position: int | None = None,
    ) -> None:
        self.reason = int(reason)
        self.comp = comp
        self.detail = detail
        self.parm = parm
        self.position = position
        super().__init__(f"{name_of(self.reason)} ({self.reason}): {detail}".rstrip(": "))

    @property
    def reason_name(self) -> str:
        return name_of(self.reason)


__all__ = ["CC", "RC", "MQError"]
