"""One RocksDB database as a few byte-keyed spaces with the bookkeeping a state store needs.

* Each space is a column family; the ``default`` family holds the metadata (below). A family
  the caller did not name (a space of another build) is opened, never read, and wiped.
* Every change is one RocksDB ``WriteBatch``: the record and its space's record count change
  together, so the persisted count is right after any crash (the WAL replays whole batches).
  ``batch()`` widens that to a block of changes plus the Kafka offsets they bring the state up
  to: all of them are written, or none.
* Inside a batch, reads see the batch's own writes (an overlay merged into gets and scans).
* Scans run on RocksDB iterators, which read a consistent snapshot taken when the scan starts,
  so a caller may change the store while it iterates (as it may over the in-memory stores,
  which iterate over copies).

Metadata keys (``default`` family):

| key                                       | value            | meaning                     |
|-------------------------------------------|------------------|-----------------------------|
| ``layout``                                | ``1``            | this layout; others refused |
| ``count`` NUL *space*                     | int64 big-endian | records in the space        |
| ``offset`` NUL *partition* (int32) *topic* | int64 big-endian | state topic applied up to   |
| ``clean``                                 | ``1``            | clean shutdown, no write since |
| ``settled``                               | ``1``            | written by whole batches only  |

No store key starts with byte 0xFF (they are UTF-8 text), so ``[b"", b"\\xff")`` is a whole
space: ``wipe`` deletes that range in every family in one batch.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from rocksdict import (
    BlockBasedOptions,
    DBCompressionType,
    Options,
    Rdict,
    ReadOptions,
    WriteBatch,
    WriteOptions,
)

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC

LAYOUT: Final = b"1"
_LAYOUT_KEY: Final = b"layout"
_CLEAN_KEY: Final = b"clean"
_SETTLED_KEY: Final = b"settled"
_COUNT: Final = b"count\x00"
_OFFSET: Final = b"offset\x00"
_END: Final = b"\xff"  # above every store key
_I64: Final = struct.Struct(">q")
_I32: Final = struct.Struct(">i")

Overlay = dict[bytes, bytes | None]  # key -> new value, None for a deletion


def _options() -> Options:
    options = Options(raw_mode=True)
    options.create_if_missing(True)
    options.create_missing_column_families(True)
    options.set_compression_type(DBCompressionType.lz4())
    table = BlockBasedOptions()
    table.set_bloom_filter(10, False)  # most existence checks on put are misses
    options.set_block_based_table_factory(table)
    return options


class KeyValueDB:
    """The spaces ``spaces`` of the RocksDB database at ``path`` (created when missing)."""

    def __init__(self, path: Path, spaces: tuple[str, ...]) -> None:
        self.path = path
        self.spaces = spaces
        path.mkdir(parents=True, exist_ok=True)
        # RocksDB opens a database only with all its column families: a space this build does
        # not know (a state kind registered by another build) is opened too, left alone, and
        # wiped with the rest
        self._others = tuple(name for name in _families(path) if name not in (*spaces, "default"))
        self._db: Rdict | None = Rdict(
            str(path),
            _options(),
            column_families={name: _options() for name in (*spaces, *self._others)},
        )
        self._cf = {name: self._db.get_column_family(name) for name in spaces}
        self._handle: dict[str, Any] = {
            name: self._db.get_column_family_handle(name) for name in spaces
        }
        self._sync = WriteOptions()
        self._sync.sync = True
        layout = self._db.get(_LAYOUT_KEY)
        if layout not in (None, LAYOUT):
            self.close()
            raise MQError(RC.OBJECT_DAMAGED, f"{path}: unknown state layout {layout!r}")
        self._db.put(_LAYOUT_KEY, LAYOUT)
        self._counts = {name: self._read_count(name) for name in spaces}
        self._offsets = self._read_offsets()
        # The marker says "nothing written since a clean close"; from here on that is false.
        self.was_clean = self._db.get(_CLEAN_KEY) is not None
        if self.was_clean:
            self._db.delete(_CLEAN_KEY, self._sync)
        self._clean = False
        # Whether the store has been written only by whole batches since its last wipe (the
        # service's way): then even after a kill it holds one transaction's end, not a middle.
        self.settled = self._db.get(_SETTLED_KEY) is not None
        self._overlay: dict[str, Overlay] | None = None  # an open batch
        self._batch_offsets: dict[tuple[str, int], int] = {}
        self._batch_counts: dict[str, int] = {}

    # ---- reads -------------------------------------------------------------------------------

    def get(self, space: str, key: bytes) -> bytes | None:
        if self._overlay is not None:
            pending = self._overlay[space]
            if key in pending:
                return pending[key]
        value: bytes | None = self._family(space).get(key)
        return value

    def count(self, space: str) -> int:
        return self._batch_counts.get(space, self._counts[space])

    def values(self, space: str, prefix: bytes = b"") -> Iterator[bytes]:
        """Values whose key starts with ``prefix``, in key order (a snapshot taken now)."""
        base = self._scan(space, prefix)
        if self._overlay is None:
            return (value for _, value in base)
        pending = sorted(
            (key, value) for key, value in self._overlay[space].items() if key.startswith(prefix)
        )
        return _merge(base, pending)

    def keys(self, space: str, prefix: bytes = b"") -> Iterator[bytes]:
        """Keys that start with ``prefix``, in order (a snapshot taken now)."""
        base = self._scan(space, prefix)
        if self._overlay is None:
            return (key for key, _ in base)
        pending = sorted(
            (key, None if value is None else key)
            for key, value in self._overlay[space].items()
            if key.startswith(prefix)
        )
        return _merge(((key, key) for key, _ in base), pending)

    def _scan(self, space: str, prefix: bytes) -> Iterator[tuple[bytes, bytes]]:
        read = ReadOptions()
        bound = _successor(prefix)
        if bound is not None:
            read.set_iterate_upper_bound(bound)
        items = self._family(space).items(from_key=prefix, read_opt=read)
        return _scanning(items, read, b"" if bound is not None else prefix)

    # ---- writes ------------------------------------------------------------------------------

    def write(self, space: str, key: bytes, value: bytes | None) -> None:
        """Put ``value`` (None: delete) and keep the space's count in step."""
        existed = self.get(space, key) is not None
        delta = (value is not None) - existed
        if value is None and not existed:
            return  # deleting what is not there changes nothing
        if self._overlay is not None:
            self._overlay[space][key] = value
            if delta:
                self._batch_counts[space] = self.count(space) + delta
            return
        batch = WriteBatch(raw_mode=True)
        _put_or_delete(batch, key, value, self._handle[space])
        count = self._counts[space] + delta
        if delta:
            batch.put(_COUNT + space.encode(), _I64.pack(count))
        self._commit(batch)
        self._counts[space] = count

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Make the block's writes and offsets one atomic RocksDB write (nested blocks join
        the outer one); an exception in the block discards them all."""
        if self._overlay is not None:  # inside another batch: its writes are the outer's
            yield
            return
        self.begin()
        try:
            yield
            self.commit_pending()
        finally:
            self.discard_pending()  # nothing left after a commit

    def begin(self) -> None:
        """Open a batch that stays open until ``commit_pending`` or ``discard_pending``: the
        service keeps one open per Kafka transaction, so RocksDB only ever holds the state of
        a transaction's end (what makes a killed service's store good to read on from)."""
        if self._overlay is None:
            self._overlay = {name: {} for name in self.spaces}

    def commit_pending(self) -> None:
        """Write the open batch (records, counts, offsets) as one RocksDB write and close it."""
        if self._overlay is None:
            return
        batch = WriteBatch(raw_mode=True)
        for space, pending in self._overlay.items():
            for key, value in pending.items():
                _put_or_delete(batch, key, value, self._handle[space])
        for space, count in self._batch_counts.items():
            batch.put(_COUNT + space.encode(), _I64.pack(count))
        for (topic, partition), offset in self._batch_offsets.items():
            batch.put(_offset_key(topic, partition), _I64.pack(offset))
        if len(batch):
            batch.put(_SETTLED_KEY, b"1")
            self._commit(batch)
            self.settled = True
        self._counts.update(self._batch_counts)
        self._offsets.update(self._batch_offsets)
        self.discard_pending()

    def discard_pending(self) -> None:
        self._overlay = None
        self._batch_counts = {}
        self._batch_offsets = {}

    def _commit(self, batch: WriteBatch) -> None:
        if self._clean:  # a write after mark_clean: the marker goes with it
            batch.delete(_CLEAN_KEY)
        self._live().write(batch)
        self._clean = False

    # ---- offsets, clean marker, lifecycle ----------------------------------------------------

    def offsets(self) -> dict[tuple[str, int], int]:
        return {**self._offsets, **self._batch_offsets}

    def set_offsets(self, offsets: Mapping[tuple[str, int], int]) -> None:
        for (topic, partition), offset in offsets.items():
            if not 0 <= partition < 2**31 or not -(2**63) <= offset < 2**63:
                raise MQError(RC.UNEXPECTED_ERROR, f"bad offset {topic}[{partition}]={offset}")
        if self._overlay is not None:
            self._batch_offsets.update(offsets)
            return
        batch = WriteBatch(raw_mode=True)
        for (topic, partition), offset in offsets.items():
            batch.put(_offset_key(topic, partition), _I64.pack(offset))
        self._commit(batch)
        self._offsets.update(offsets)

    def mark_clean(self) -> None:
        """Flush everything and record a clean shutdown (durably: a synced write)."""
        if self._overlay is not None:
            raise MQError(RC.UNEXPECTED_ERROR, "mark_clean inside an open batch")
        self.flush()
        self._live().put(_CLEAN_KEY, b"1", self._sync)
        self._clean = True

    def flush(self) -> None:
        db = self._live()
        for cf in self._cf.values():
            cf.flush()
        db.flush()
        db.flush_wal(True)

    def wipe(self) -> None:
        """Delete every record, count, offset and the clean marker, in one write."""
        if self._overlay is not None:
            raise MQError(RC.UNEXPECTED_ERROR, "wipe inside an open batch")
        batch = WriteBatch(raw_mode=True)
        for space in self.spaces:
            batch.delete_range(b"", _END, self._handle[space])
        for other in self._others:
            batch.delete_range(b"", _END, self._live().get_column_family_handle(other))
        batch.delete_range(b"", _END)  # counts, offsets, the clean marker
        batch.put(_LAYOUT_KEY, LAYOUT)
        self._live().write(batch)
        for space in self.spaces:
            self._cf[space].compact_range(None, None)
        self._counts = dict.fromkeys(self.spaces, 0)
        self._offsets = {}
        self._clean = False
        self.settled = False

    def close(self) -> None:
        """Close the database; an open batch is discarded. RocksDB releases its lock once no
        iterator of this database is alive: finish or drop scans before reopening."""
        if self._db is None:
            return
        for cf in self._cf.values():
            cf.close()
        self._db.close()
        self._db = None
        self._cf = {}
        self._handle = {}

    @property
    def closed(self) -> bool:
        return self._db is None

    def _live(self) -> Rdict:
        if self._db is None:  # a closed database is an invalid handle (MQRC_HOBJ_ERROR)
            raise MQError(RC.HOBJ_ERROR, f"{self.path}: the state database is closed")
        return self._db

    def _family(self, space: str) -> Rdict:
        self._live()
        return self._cf[space]

    def _read_count(self, space: str) -> int:
        raw = self._live().get(_COUNT + space.encode())
        return 0 if raw is None else int(_I64.unpack(raw)[0])

    def _read_offsets(self) -> dict[tuple[str, int], int]:
        found: dict[tuple[str, int], int] = {}
        read = ReadOptions()
        read.set_iterate_upper_bound(_OFFSET[:-1] + b"\x01")
        for key, value in self._live().items(from_key=_OFFSET, read_opt=read):
            rest = key[len(_OFFSET) :]
            (partition,) = _I32.unpack(rest[:4])
            found[rest[4:].decode("utf-8"), partition] = int(_I64.unpack(value)[0])
        return found


def _families(path: Path) -> list[str]:
    """The column families of the database at ``path`` (none when there is no database)."""
    if not (path / "CURRENT").exists():
        return []
    families: list[str] = Rdict.list_cf(str(path), _options())
    return families


def _scanning(
    items: Iterator[tuple[bytes, bytes]], read: ReadOptions, prefix: bytes
) -> Iterator[tuple[bytes, bytes]]:
    """``items`` while their keys start with ``prefix``. The RocksDB iterator points into the
    upper bound that ``read`` owns (seen as scans that stopped early once ``read`` was freed),
    so this generator keeps ``read`` alive for as long as the scan is."""
    assert read is not None
    for item in items:
        if prefix and not item[0].startswith(prefix):
            return
        yield item


def _offset_key(topic: str, partition: int) -> bytes:
    return _OFFSET + _I32.pack(partition) + topic.encode("utf-8")


def _put_or_delete(batch: WriteBatch, key: bytes, value: bytes | None, handle: Any) -> None:
    if value is None:
        batch.delete(key, handle)
    else:
        batch.put(key, value, handle)


def _successor(prefix: bytes) -> bytes | None:
    """The least key above every key that starts with ``prefix`` (None: there is none)."""
    trimmed = prefix.rstrip(b"\xff")
    if not trimmed:
        return None
    return trimmed[:-1] + bytes([trimmed[-1] + 1])


def _merge(
    base: Iterator[tuple[bytes, bytes]], pending: list[tuple[bytes, bytes | None]]
) -> Iterator[bytes]:
    """Values of ``base`` (sorted by key) with ``pending`` (sorted) applied over them."""
    i = 0
    for key, value in base:
        while i < len(pending) and pending[i][0] < key:
            if (new := pending[i][1]) is not None:
                yield new
            i += 1
        if i < len(pending) and pending[i][0] == key:
            if (new := pending[i][1]) is not None:
                yield new
            i += 1
        else:
            yield value
    for _, new in pending[i:]:
        if new is not None:
            yield new


__all__ = ["LAYOUT", "KeyValueDB"]
