"""RocksDB stores for the engine's Protocols (``mqkafka.engine.stores``), and ``RocksState``
that opens them together with the bookkeeping a restarting service needs.

One store per registered state kind (``mqkafka.state.kinds``), in the column family named as
the kind. Records are stored as the state topics hold them (the kind's codec): the same keys,
the same Avro values. So a record consumed from a state topic can be applied byte for byte
(``apply_record``), and key order does useful work:

| store         | key order groups                  | so that                            |
|---------------|-----------------------------------|------------------------------------|
| retained      | a namespace, then topics in order | in_namespace, with_prefix: scans   |
| subscriptions | a namespace, then an identity     | iteration is deterministic         |
| publishers    | a namespace, then an identity     | iteration is deterministic         |

Iteration order is key order (topic order for retained), where the in-memory stores iterate
in insertion order; the Protocols promise no order.

Restart protocol (for the service): open; if ``was_clean()`` or ``settled()`` the stores and
``offsets()`` are consistent and the state topics are read on from those offsets; otherwise
``wipe()`` and rebuild from the start of the topics. While serving, keep a batch open for each
Kafka transaction (``begin()``) and write it with the offsets read so far when the
transaction ends (``settle(offsets)``, after an abort's undo too): so RocksDB only ever holds
the state at a transaction's end, and a killed service reads on instead of rebuilding. At
shutdown: ``flush()``, ``mark_clean()``, ``close()``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Final, Generic, TypeVar, cast

from mqkafka.engine.records import (
    Publication,
    Publisher,
    PublisherKey,
    Subscription,
    SubscriptionKey,
)
from mqkafka.engine.stores import RetainedStore
from mqkafka.engine.topicspace import Namespace
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.state import recordcodec as codec
from mqkafka.state.kinds import (
    PUBLISHERS,
    RETAINED,
    STATE_KINDS,
    SUBSCRIPTIONS,
    StateKind,
    StateKinds,
)
from mqkafka.state.kv import KeyValueDB

_V = TypeVar("_V")
_K = TypeVar("_K")


class _RocksStore(Generic[_V, _K]):
    """What every kind's store shares: the kind's column family, its codec and its keys."""

    def __init__(self, db: KeyValueDB, kind: StateKind[_V, _K]) -> None:
        self._db = db
        self._kind = kind
        self._codec = kind.binding
        self._space = kind.name

    def __len__(self) -> int:
        return self._db.count(self._space)

    def __bool__(self) -> bool:
        # An empty store is still the store: ``EngineState`` writes ``subscriptions or
        # MemorySubscriptionStore()``, which would otherwise swap an empty RocksDB store for a
        # memory one (via ``__len__``) and persist nothing.
        return True

    def __iter__(self) -> Iterator[_V]:
        return map(self._codec.decode, self._db.values(self._space))

    def put(self, value: _V) -> None:
        key, encoded = self._kind.record(value)
        self._db.write(self._space, key, encoded)

    def _get(self, key: _K) -> _V | None:
        raw = self._db.get(self._space, self._codec.key_bytes(key))
        return None if raw is None else self._codec.decode(raw)

    def _delete(self, key: _K) -> None:
        self._db.write(self._space, self._codec.key_bytes(key), None)

    def apply_record(self, key: bytes, value: bytes | None) -> None:
        """Apply one state-topic record as consumed: a value replaces, None (a tombstone)
        deletes. The value must decode and belong to ``key``, else MQRC_OBJECT_DAMAGED."""
        if value is not None:
            decoded = self._codec.decode(value)
            if self._codec.key_bytes(self._codec.key_of(decoded)) != key:
                raise MQError(RC.OBJECT_DAMAGED, f"{self._space} record under key {key!r}")
        self._db.write(self._space, key, value)


class RocksKindStore(_RocksStore[_V, _K]):
    """The store of any kind whose values are looked up by their natural key (the
    subscriptions and publisher registrations, and a new kind unless it needs more)."""

    def get(self, key: _K) -> _V | None:
        return self._get(key)

    def delete(self, key: _K) -> None:
        self._delete(key)


class RocksRetainedStore(_RocksStore[Publication, tuple[Namespace, str]]):
    """Retained publications, by (namespace, topic), with the prefix scans of a topic tree."""

    def get(self, namespace: Namespace, topic: str) -> Publication | None:
        return self._get((namespace, topic))

    def delete(self, namespace: Namespace, topic: str) -> None:
        self._delete((namespace, topic))

    def in_namespace(self, namespace: Namespace) -> Iterator[Publication]:
        return self.with_prefix(namespace, "")

    def with_prefix(self, namespace: Namespace, literal_prefix: str) -> Iterator[Publication]:
        """Publications of ``namespace`` whose topic starts with ``literal_prefix``, in topic
        order: a prefix scan, so a filter's literal head (``Sport/Soccer/`` of
        ``Sport/Soccer/#``) reads only that part of the store."""
        values = self._db.values(self._space, codec.retained_prefix(namespace, literal_prefix))
        return map(self._codec.decode, values)

    def topics(self, namespace: Namespace, literal_prefix: str = "") -> Iterator[str]:
        """The topics of ``with_prefix`` without decoding a publication: read the keys, match
        topics, then ``get`` only the publications that match."""
        prefix = codec.retained_prefix(namespace, "")
        keys = self._db.keys(self._space, codec.retained_prefix(namespace, literal_prefix))
        return (key[len(prefix) :].decode("utf-8") for key in keys)


# kinds whose store offers more than get/put/delete by key; every other kind gets a
# RocksKindStore
_STORE_CLASSES: Final[Mapping[str, Callable[[KeyValueDB, Any], Any]]] = {
    RETAINED.name: RocksRetainedStore
}


class RocksState:
    """The stores of every registered state kind in one RocksDB database at ``path``
    (created when missing), one column family each (named as the kind), plus state-topic
    offsets and a clean-shutdown marker."""

    def __init__(self, path: Path, kinds: StateKinds = STATE_KINDS) -> None:
        self.path = path
        self._db = KeyValueDB(path, kinds.names)
        # kind name -> its store; ``EngineState(**stores)`` takes them by the same names
        self.stores: dict[str, Any] = {
            kind.name: _STORE_CLASSES.get(kind.name, RocksKindStore)(self._db, kind)
            for kind in kinds
        }

    @property
    def subscriptions(self) -> RocksKindStore[Subscription, SubscriptionKey]:
        return cast(RocksKindStore[Subscription, SubscriptionKey], self.stores[SUBSCRIPTIONS.name])

    @property
    def retained(self) -> RocksRetainedStore:
        return cast(RocksRetainedStore, self.stores[RETAINED.name])

    @property
    def publishers(self) -> RocksKindStore[Publisher, PublisherKey]:
        return cast(RocksKindStore[Publisher, PublisherKey], self.stores[PUBLISHERS.name])

    def batch(self) -> AbstractContextManager[None]:
        """``with state.batch():`` every store write and ``set_offsets`` in the block is one
        atomic RocksDB write at its end, or nothing if it raises; reads in the block see its
        writes. Nested blocks join the outer one."""
        return self._db.batch()

    def begin(self) -> None:
        """Open the batch of the next transaction (if none is open)."""
        self._db.begin()

    def settle(self, offsets: Mapping[tuple[str, int], int]) -> None:
        """A transaction ended: write its batch with the state-topic offsets read so far,
        as one RocksDB write. Records of this worker's own committed transactions lie past
        those offsets, so reading on from them after a kill applies them again: records are
        whole values by key, so that converges on the topics' state."""
        self._db.set_offsets(offsets)
        self._db.commit_pending()

    def discard(self) -> None:
        """Drop the open batch (a transaction that never ended: its changes are not true)."""
        self._db.discard_pending()

    def settled(self) -> bool:
        """Whether the engine's changes have only reached this store at transactions' ends
        (``settle``) since it was last wiped: then it is good to read on from after a kill."""
        return self._db.settled

    def offsets(self) -> dict[tuple[str, int], int]:
        """(state topic, partition) -> the offset the stores are applied up to (as given)."""
        return self._db.offsets()

    def set_offsets(self, offsets: Mapping[tuple[str, int], int]) -> None:
        """Record offsets for the partitions named (others keep theirs); inside ``batch()``
        they are written atomically with the block's data."""
        self._db.set_offsets(offsets)

    def mark_clean(self) -> None:
        """Record a clean shutdown (after a flush). Any later write clears it again."""
        self._db.mark_clean()

    def was_clean(self) -> bool:
        """Whether the marker was there when this database was opened (the open clears it,
        so a crash after opening leaves it unset)."""
        return self._db.was_clean

    def flush(self) -> None:
        """Write memtables and the WAL to disk."""
        self._db.flush()

    def close(self) -> None:
        self._db.close()

    def wipe(self) -> None:
        """Delete every record, offset and the marker: the start of a rebuild from Kafka."""
        self._db.wipe()

    def __enter__(self) -> RocksState:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def retained_with_prefix(
    store: RetainedStore, namespace: Namespace, literal_prefix: str
) -> Iterator[Publication]:
    """``with_prefix`` for any RetainedStore: the store's own prefix scan when it has one,
    else a filter over ``in_namespace`` sorted by topic (the same order: UTF-8 byte order is
    code point order)."""
    if isinstance(store, RocksRetainedStore):
        return store.with_prefix(namespace, literal_prefix)
    found = [p for p in store.in_namespace(namespace) if p.topic.text.startswith(literal_prefix)]
    return iter(sorted(found, key=lambda p: p.topic.text))


__all__ = ["RocksKindStore", "RocksRetainedStore", "RocksState", "retained_with_prefix"]
