"""Durations as people write them on a command line: ``90s``, ``2m``, ``2 minutes``, ``1h``.

Spark takes intervals as text ("2 minutes"); the pipeline keeps seconds and renders Spark's
form with ``spark_interval`` so both sides always agree on the value.
"""

from __future__ import annotations

import re
from typing import Final

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC

# unit word -> seconds; the rule: a number, optional blanks, one of these units (or none: seconds)
UNIT_SECONDS: Final[dict[str, int]] = {
    "": 1,
    "s": 1, "sec": 1, "second": 1, "seconds": 1,
    "m": 60, "min": 60, "minute": 60, "minutes": 60,
    "h": 3600, "hour": 3600, "hours": 3600,
}  # fmt: skip
_PATTERN: Final = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$")


def parse_seconds(text: str) -> float:
    """Seconds in ``text``; anything else is MQRC_OPTIONS_ERROR naming the text."""
    found = _PATTERN.match(text.lower())
    if found is None or found.group(2) not in UNIT_SECONDS:
        raise MQError(RC.OPTIONS_ERROR, f"not a duration: {text!r} (e.g. 30s, 2m, 1h)")
    return float(found.group(1)) * UNIT_SECONDS[found.group(2)]


def spark_interval(seconds: float) -> str:
    """Spark's interval text for ``seconds``, in whole milliseconds (Spark's resolution)."""
    return f"{round(seconds * 1000)} milliseconds"
