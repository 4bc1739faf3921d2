"""The live figures a console page shows: the service's rates per second, sampled from its
Prometheus endpoint, as the JSON an event carries. Pure but for the sampler it is given."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mqkafka.query.service import RATES, Sample, rates

SHOWN = ("publications", "deliveries", "errors", "commands", "dead_letters")


@dataclass
class RateFeed:
    """Consecutive samples of one endpoint turned into one event each."""

    read: Callable[[], Sample]
    previous: Sample | None = None

    def next_event(self, now: float | None = None) -> dict[str, Any]:
        current = self.read()
        event = rate_event(self.previous, current, time.time() if now is None else now)
        if current.problem is None:
            self.previous = current
        return event


def rate_event(before: Sample | None, after: Sample, now: float) -> dict[str, Any]:
    """``{"time": epoch s, "rates": {name: per second} | null, "totals": {...}, "problem"}``:
    no rates for a first sample, a failed one, or a restarted worker's."""
    per_second = rates(before, after) if before is not None else None
    return {
        "time": now,
        "rates": {k: round(v, 3) for k, v in per_second.items()} if per_second else None,
        "totals": {k: after.counters.get(k, 0.0) for k in RATES} if not after.problem else None,
        "gauges": after.gauges,
        "problem": after.problem,
    }


__all__ = ["SHOWN", "RateFeed", "rate_event"]
