"""The queue catalogue read from its compacted topic (``mqk-queues``), with no MQI connection.

The one place catalogue records become queue definitions: the MQI's replica applies what it
tails through :func:`apply_catalogue_record`; the CLI and the console read the catalogue once
(:func:`read_catalogue`); the broker service follows it (:class:`CatalogueTail`) to learn which
temporary dynamic subscriber queues went. A damaged record is skipped, said once, everywhere.
"""

from __future__ import annotations

import logging
from typing import Any

from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.compacted import CompactedReader, MissingTopic
from mqkafka.mq.errors import MQError
from mqkafka.mqi.rules.catalogue import CATALOGUE_TOPIC, Catalogue, CatalogueRecord

log = logging.getLogger(__name__)


def apply_catalogue_record(catalogue: Catalogue, key: bytes, value: bytes | None) -> None:
    """One record of the catalogue topic into ``catalogue`` (a damaged one is skipped)."""
    try:
        catalogue.apply(CatalogueRecord(key, value))
    except MQError as error:
        log.warning("skipping a damaged catalogue record %r: %s", key, error)


def _applier(catalogue: Catalogue) -> Any:
    def apply(_topic: str, _partition: int, key: bytes, value: bytes | None, _ts: int) -> None:
        apply_catalogue_record(catalogue, key, value)

    return apply


def read_catalogue(config: ClientConfig, namespace: str = "", timeout: float = 60.0) -> Catalogue:
    """The catalogue as it stands (empty when its topic does not exist yet)."""
    catalogue = Catalogue()
    try:
        reader = CompactedReader(config, [namespace + CATALOGUE_TOPIC], wait_for_topics=0)
    except MissingTopic:
        return catalogue
    try:
        reader.catch_up(_applier(catalogue), timeout)
    finally:
        reader.close()
    return catalogue


class CatalogueTail:
    """The catalogue followed as it changes: read to its end at the start, then whatever has
    arrived each time it is looked at (no thread of its own)."""

    def __init__(
        self, config: ClientConfig, namespace: str = "", timeout: float = 60.0, wait: float = 10.0
    ) -> None:
        self.catalogue = Catalogue()
        self._apply = _applier(self.catalogue)
        # wait: seconds for a topic made a moment ago to show (MissingTopic after them)
        self._reader = CompactedReader(config, [namespace + CATALOGUE_TOPIC], wait_for_topics=wait)
        self._reader.catch_up(self._apply, timeout)

    @property
    def changes(self) -> int:
        """Records applied so far, after applying what has arrived."""
        self._reader.poll(self._apply, 0.0)
        return self.catalogue.changes

    def temporary_dynamic_names(self) -> list[str]:
        self._reader.poll(self._apply, 0.0)
        return self.catalogue.temporary_dynamic_names()

    def kafka_native_names(self) -> frozenset[str]:
        """The queues of message format KAFKA (issue 37), as ``changes`` last read them."""
        return self.catalogue.kafka_native_names()

    def close(self) -> None:
        self._reader.close()


__all__ = ["CatalogueTail", "apply_catalogue_record", "read_catalogue"]
