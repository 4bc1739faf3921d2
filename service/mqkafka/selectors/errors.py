"""How the selector package reports an invalid Filter: one MQError shape, raised at compile time.

Every syntax or static-type problem becomes ``MQRCCF_FILTER_ERROR`` (3150), the reason the
queued RegSub/ReqUpdate reply carries (reference §8, "Invalid syntax → 3150"). ``position`` is
the 0-based offset of the offending token in the filter text (``text[position:]`` starts at
it); the detail repeats it for people as a 1-based column with the token itself.
"""

from __future__ import annotations

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC

FILTER_PARM = "Filter"  # the <psc> tag the error is about (MQError.parm)


def filter_error(message: str, position: int, token: str | None = None) -> MQError:
    """Build the RegSub/ReqUpdate error for an invalid filter, saying where it went wrong."""
    where = f"at column {position + 1}"
    if token:
        where += f" near {token!r}"
    elif token is not None:
        where += " (its end)"
    return MQError(
        RC.CF_FILTER_ERROR,
        f"invalid filter {where}: {message}",
        parm=FILTER_PARM,
        position=position,
    )
