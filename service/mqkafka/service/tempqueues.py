"""Temporary dynamic subscriber queues that have gone, so that their subscriptions go too.

Reference §9.6 (choice §10.3): "a subscription whose subscriber queue is a temp-dyn queue is
deregistered when the queue is closed". MQI clients delete such queues (on MQCLOSE, when
their creator ends, at queue manager start) by writing the queue catalogue; the service
reads that catalogue and, before each batch it processes, asks which temporary dynamic
queues it held last time are no longer there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


class TemporaryQueueWatch:
    def __init__(self, names: Callable[[], Iterable[str]], gone_at_start: Iterable[str] = ()):
        """``names``: the temporary dynamic queues the catalogue holds now."""
        self._names = names
        self._seen = set(names())
        self._gone = set(gone_at_start)

    def gone(self) -> set[str]:
        """The temporary dynamic queues deleted since the last call (or given back)."""
        current = set(self._names())
        gone = (self._seen - current) | self._gone
        self._seen = current
        self._gone = set()
        return gone

    def give_back(self, names: Iterable[str]) -> None:
        """Names whose subscriptions were not removed after all (the transaction aborted)."""
        self._gone.update(names)
