"""Temporary dynamic subscriber queues that have gone, so that their subscriptions go too.

Reference §9.6 (choice §10.3): "a subscription whose subscriber queue is a temp-dyn queue is
deregistered when the queue is closed". MQI clients delete such queues (on MQCLOSE, when
their creator ends, at queue manager start) by writing the queue catalogue; the service
reads that catalogue and, before each batch it processes, asks which temporary dynamic
queues it held last time are no longer there.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol


class CatalogueView(Protocol):
    """What the watch reads of the queue catalogue (``mqi.kafkaqm.cataloguereader``)."""

    @property
    def changes(self) -> int: ...  # records applied so far

    def temporary_dynamic_names(self) -> Iterable[str]: ...


class TemporaryQueueWatch:
    def __init__(self, catalogue: CatalogueView, gone_at_start: Iterable[str] = ()):
        self._catalogue = catalogue
        self._changes = catalogue.changes
        self._seen = set(catalogue.temporary_dynamic_names())
        self._gone = set(gone_at_start)

    def gone(self) -> set[str]:
        """The temporary dynamic queues deleted since the last call (or given back). Asked
        before every batch: the catalogue is only read again when it has changed."""
        changes = self._catalogue.changes
        if changes == self._changes and not self._gone:
            return set()
        self._changes = changes
        current = set(self._catalogue.temporary_dynamic_names())
        gone = (self._seen - current) | self._gone
        self._seen = current
        self._gone = set()
        return gone

    def give_back(self, names: Iterable[str]) -> None:
        """Names whose subscriptions were not removed after all (the transaction aborted)."""
        self._gone.update(names)
