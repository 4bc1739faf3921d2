"""How long a reader of the compacted state topics has been behind with nothing read while
Kafka answered: the clock that decides when its consumer is replaced.

librdkafka 2.16 can leave a consumer with no broker to ask after an outage, for good (its
re-bootstrap decommissions the broker it fetched from; the client then only logs "no broker
available"). Such a consumer reads nothing, and nothing in its own calls says so: only a
reader that knows it is behind (Kafka told it where the end is) and sees none of its
positions move can tell. Both readers count so, through :class:`ReadStall`: the service's
state reader in ``CompactedReader.catch_up`` and the MQI's state copy
(``mqi.kafkaqm.replica``) on its tailing thread; ``CompactedReader.watch`` replaces the
consumer when the count is due.

Progress is a count the reader bumps whenever one of its positions moves: one comparison
per look, whatever the number of partitions (a list of the positions behind, made and
compared each poll round, added a third to a catch-up round's own time on fake clients:
3.2 against 2.4 us with one partition behind, 31 against 23 us with 16; now 2.7 and 26).
"""

from __future__ import annotations

# Seconds behind, nothing read, Kafka answering (counted over calls: the service's barrier
# gives up after 10 s and is called again) before the consumer is replaced: a healthy one
# fetches within seconds of Kafka's return.
REPLACE_AFTER = 60.0


class ReadStall:
    """Seconds behind with no progress while Kafka answered, summed over looks."""

    def __init__(self, after: float | None = None) -> None:
        self.after = REPLACE_AFTER if after is None else after
        self.seconds = 0.0
        self._progress = -1  # the reader's progress count at the last look
        self._tick: float | None = None  # the last look that counts, or None: none yet

    def look(self, progress: int, now: float, *, answering: bool = True) -> bool:
        """The reader is behind at ``now`` with ``progress`` made so far: whether it has been
        stuck for ``after`` seconds. Time counts only between looks with Kafka answering;
        progress since the last look starts the count again."""
        if progress != self._progress:
            self._progress, self.seconds = progress, 0.0
        elif answering and self._tick is not None:
            self.seconds += now - self._tick
        self._tick = now if answering else None
        return self.seconds >= self.after

    def pause(self) -> None:
        """Until the next look, time does not count (the reader was not looking: between
        two catch-ups, or while Kafka did not answer)."""
        self._tick = None

    def clear(self) -> None:
        """Caught up, or Kafka does not answer: nothing held against the consumer."""
        self.seconds, self._tick = 0.0, None


__all__ = ["REPLACE_AFTER", "ReadStall"]
