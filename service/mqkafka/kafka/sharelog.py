"""Which records a share group is done with, record by record: Kafka's own share state.

KIP-932's share coordinator keeps every share-partition's state in the internal topic
``__share_group_state``: ShareSnapshot records (the whole state) and ShareUpdate records
(what changed), keyed by group, topic id and partition. Each holds the share-partition start
offset (SPSO) and batches of offsets with a delivery state; acknowledged (2) and archived (4)
are done with (got, or dropped), whatever the SPSO says. Kafka 4.2 writes the record, and
waits for it to be committed, before it answers the acknowledgement that caused it (measured:
200 acknowledgements of 200 had advanced the topic's end when ``commit_sync`` returned).
DescribeShareGroupOffsets (:mod:`.sharestate`) answers only the SPSO and a count; this says
which records, so a browse passes over a message another process got out of order (by
MsgId) and not an older one (issue 35).

Reading needs READ on that topic, which the shipped ACLs give application users and an
operator may withhold (``mqk kafka acls --without-share-state``): refused, or not answered in
time, :meth:`ShareLog.states` answers ``None`` and callers fall back to the count.

The formats (Kafka 4.2; coordinator records, key and value each led by an INT16):

- key (not flexible): type (0 ShareSnapshot, 1 ShareUpdate), group STRING, topic id UUID,
  partition INT32;
- ShareSnapshot value (version 0, flexible): snapshot, state and leader epochs INT32,
  start INT64, create and write times INT64, batches, tags;
- ShareUpdate value (version 0, flexible): snapshot and leader epochs INT32, start INT64
  (-1: unchanged), batches, tags.

A batch: first and last offset INT64, delivery state INT8, delivery count INT16, tags.
A snapshot replaces the state; an update sets the state of its batches' offsets; a record
without a value (a deleted group) forgets the key.
"""

from __future__ import annotations

import base64
import bisect
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import (
    OFFSET_BEGINNING,
    KafkaError,
    KafkaException,
    Message,
    TopicPartition,
)
from mqkafka.kafka.groups import reader_group
from mqkafka.kafka.primitives import Reader, Truncated

log = logging.getLogger(__name__)

STATE_TOPIC = "__share_group_state"
SNAPSHOT, UPDATE = 0, 1
ACKNOWLEDGED, ARCHIVED = 2, 4
_PARTITION_EOF = -191

Key = tuple[str, bytes, int]  # group, topic id (16 bytes), partition


class Malformed(ValueError):
    """A record this module cannot read (another Kafka version's format)."""


class _NotYet(LookupError):
    """The state topic does not exist: Kafka creates it for the first share group."""


# ---- where a key lives -------------------------------------------------------------------


def java_hash(text: str) -> int:
    """Java's ``String.hashCode``: over UTF-16 code units, 32-bit signed."""
    value = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        value = (31 * value + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def uuid_text(topic_id: bytes) -> str:
    """Kafka's ``Uuid.toString``: URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(topic_id).rstrip(b"=").decode()


def state_partition(group: str, topic_id: bytes, partition: int, partitions: int) -> int:
    """The partition of ``__share_group_state`` that holds a share-partition's state: Kafka
    hashes ``group:topicId:partition`` (``Utils.abs``: the smallest int is 0)."""
    code = java_hash(f"{group}:{uuid_text(topic_id)}:{partition}")
    return (0 if code == -(1 << 31) else abs(code)) % partitions


# ---- the records ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StateRecord:
    """One decoded value: the start (-1: unchanged) and (first, last, state) batches."""

    snapshot: bool
    start: int
    batches: tuple[tuple[int, int, int], ...]


def decode_key(data: bytes) -> tuple[int, Key]:
    """The record type (SNAPSHOT or UPDATE) and the key."""
    key = Reader(data)
    try:
        kind = key.int16()
        group = key.take(key.int16()).decode()
        topic_id, partition = key.uuid(), key.int32()
    except (Truncated, UnicodeDecodeError) as error:
        raise Malformed(f"key: {error}") from None
    if kind not in (SNAPSHOT, UPDATE):
        raise Malformed(f"key type {kind}")
    return kind, (group, topic_id, partition)


def decode_value(kind: int, data: bytes) -> StateRecord:
    value = Reader(data)
    try:
        version = value.int16()
        if version != 0:
            raise Malformed(f"value version {version}")
        value.skip(12 if kind == SNAPSHOT else 8)  # epochs
        start = value.int64()
        if kind == SNAPSHOT:
            value.skip(16)  # create and write times
        batches = []
        for _ in range(value.count()):
            first, last, state = value.int64(), value.int64(), value.int8()
            value.int16()  # delivery count
            value.skip_tags()
            batches.append((first, last, state))
        value.skip_tags()
    except Truncated as error:
        raise Malformed(f"value: {error}") from None
    return StateRecord(kind == SNAPSHOT, start, tuple(batches))


# ---- one share-partition's state -------------------------------------------------------------


@dataclass
class PartitionState:
    """The SPSO and the done ranges above it (sorted, disjoint, inclusive). The ranges are
    replaced whole, in one assignment: a browse in another thread reads them unlocked."""

    start: int = -1
    spans: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())  # firsts, lasts

    def apply(self, record: StateRecord) -> None:
        ranges = [] if record.snapshot else self.ranges()
        if record.snapshot or record.start >= 0:
            self.start = record.start
        for first, last, state in record.batches:
            ranges = _set(ranges, first, last, state in (ACKNOWLEDGED, ARCHIVED))
        if self.start >= 0:
            ranges = [(max(f, self.start), x) for f, x in ranges if x >= self.start]
        self.spans = (tuple(f for f, _ in ranges), tuple(x for _, x in ranges))

    def done(self, offset: int) -> bool:
        """Got or dropped: below the start, or in a done range (a group that has not
        started is done with nothing)."""
        start, (firsts, lasts) = self.start, self.spans
        if start < 0:
            return False
        if offset < start:
            return True
        i = bisect.bisect_right(firsts, offset) - 1
        return i >= 0 and offset <= lasts[i]

    def ranges(self) -> list[tuple[int, int]]:
        return list(zip(*self.spans, strict=True))


def _set(ranges: list[tuple[int, int]], first: int, last: int, done: bool) -> list[tuple[int, int]]:
    """``ranges`` with ``[first, last]`` marked done or not done, merged."""
    if last < first:
        return ranges
    kept = [(f, x) for f, x in ranges if x < first or f > last]
    for f, x in ranges:  # the parts of overlapping ranges outside [first, last]
        if f < first <= x:
            kept.append((f, first - 1))
        if f <= last < x:
            kept.append((last + 1, x))
    if done:
        kept.append((first, last))
    kept.sort()
    merged: list[tuple[int, int]] = []
    for f, x in kept:
        if merged and f <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], x))
        else:
            merged.append((f, x))
    return merged


# ---- the reader ------------------------------------------------------------------------------


class ShareLog:
    """Follows the partitions of ``__share_group_state`` it was asked about (thread-safe).

    Every record of those partitions is applied, whatever its key, so a later question about
    another key there needs no rereading. :meth:`states` reads up to the topic's end as it is
    when asked (one ListOffsets round), so an acknowledgement answered before it is seen;
    :meth:`drain` only takes what the client has fetched since, without waiting.
    """

    RETRY_REFUSED = 60.0  # seconds before a refused or broken reader is tried again

    def __init__(self, config: ClientConfig, timeout: float = 5.0) -> None:
        self._config = config
        self._timeout = timeout
        self._lock = threading.Lock()
        self._consumer: Any = None
        self._partitions = 0
        self._assigned: set[int] = set()
        self._read_to: dict[int, int] = {}  # next offset to apply, per state partition
        self._states: dict[Key, PartitionState] = {}
        self._refused_until = 0.0

    def states(
        self, group: str, topic_id: bytes, partitions: Sequence[int]
    ) -> dict[int, PartitionState] | None:
        """Each partition's state as of now (a partition the group never had state for is
        absent); ``None`` when the state topic cannot be read."""
        with self._lock:
            if time.monotonic() < self._refused_until:
                return None
            try:
                consumer = self._open()
                wanted = {state_partition(group, topic_id, p, self._partitions) for p in partitions}
                self._assign(consumer, wanted)
                ends = {
                    s: consumer.get_watermark_offsets(
                        TopicPartition(STATE_TOPIC, s), timeout=self._timeout, cached=False
                    )[1]
                    for s in wanted
                }
                self._read_until(consumer, ends)
            except _NotYet as error:
                log.debug("share state not read: %s", error)
                self._close()  # asked again next time: the topic comes with the first group
                return None
            except (KafkaException, Malformed, TimeoutError) as error:
                log.debug("share state not read: %s", error)
                self._give_up()
                return None
            return {
                p: self._states[(group, topic_id, p)]
                for p in partitions
                if (group, topic_id, p) in self._states
            }

    def drain(self) -> None:
        """Apply what the client already fetched (never waits)."""
        with self._lock:
            if self._consumer is None:
                return
            try:
                for record in self._consumer.consume(10_000, 0):
                    self._apply(record)
            except (KafkaException, Malformed):
                self._give_up()

    def _open(self) -> Any:
        if self._consumer is None:
            consumer = clients.consumer(
                self._config,
                {
                    "group.id": reader_group("share-state"),  # assign only: never commits
                    "enable.auto.commit": False,
                    "enable.partition.eof": True,
                    "fetch.wait.max.ms": 20,
                },
            )
            topic = consumer.list_topics(STATE_TOPIC, timeout=self._timeout).topics.get(STATE_TOPIC)
            if topic is None or topic.error is not None or not topic.partitions:
                consumer.close()
                problem = None if topic is None else topic.error
                if problem is None or problem.code() == KafkaError.UNKNOWN_TOPIC_OR_PART:
                    raise _NotYet(f"{STATE_TOPIC} does not exist yet")
                raise KafkaException(problem)  # not authorized, typically
            self._partitions = len(topic.partitions)
            self._consumer = consumer
        return self._consumer

    def _assign(self, consumer: Any, wanted: set[int]) -> None:
        new = sorted(wanted - self._assigned)
        if new:
            consumer.incremental_assign(
                [TopicPartition(STATE_TOPIC, s, OFFSET_BEGINNING) for s in new]
            )
            self._assigned.update(new)
            for s in new:
                self._read_to[s] = 0

    def _read_until(self, consumer: Any, ends: dict[int, int]) -> None:
        deadline = time.monotonic() + self._timeout
        while any(self._read_to.get(s, 0) < end for s, end in ends.items()):
            if time.monotonic() > deadline:
                raise TimeoutError(STATE_TOPIC)
            for record in consumer.consume(10_000, 0.1):
                self._apply(record)

    def _apply(self, record: Message) -> None:
        error = record.error()
        if error is not None:
            if error.code() == _PARTITION_EOF:
                self._read_to[record.partition()] = max(
                    self._read_to.get(record.partition(), 0), record.offset()
                )
                return
            raise KafkaException(error)
        self._read_to[record.partition()] = record.offset() + 1
        key = record.key()
        if not key:
            return
        kind, state_key = decode_key(key)
        value = record.value()
        if value is None:
            self._states.pop(state_key, None)  # the group was deleted
            return
        self._states.setdefault(state_key, PartitionState()).apply(decode_value(kind, value))

    def _give_up(self) -> None:
        self._refused_until = time.monotonic() + self.RETRY_REFUSED
        self._close()

    def _close(self) -> None:
        if self._consumer is not None:
            self._consumer.close()
        self._consumer = None
        self._assigned.clear()
        self._read_to.clear()
        self._states.clear()

    def close(self) -> None:
        with self._lock:
            self._close()


_SHARED: dict[tuple[str, tuple[tuple[str, str], ...]], ShareLog] = {}
_SHARED_LOCK = threading.Lock()


def shared(config: ClientConfig) -> ShareLog:
    """The process's reader for one cluster (and its settings): what one browse read, the
    next needs not read again."""
    key = (config.bootstrap, tuple(sorted(config.settings.items())))
    with _SHARED_LOCK:
        log = _SHARED.get(key)
        if log is None:
            log = _SHARED[key] = ShareLog(config)
        return log


@dataclass(frozen=True)
class GroupView:
    """One share group's state for a browse: ``topic_id`` answers the id Kafka gave with the
    group's offsets (None: not known, and nothing is read)."""

    log: ShareLog
    group: str
    topic_id: Callable[[], bytes | None]

    def states(self, partitions: Sequence[int]) -> dict[int, PartitionState] | None:
        topic_id = self.topic_id()
        if not topic_id:
            return None
        return self.log.states(self.group, topic_id, partitions)

    def drain(self) -> None:
        self.log.drain()


__all__ = [
    "GroupView",
    "PartitionState",
    "ShareLog",
    "StateRecord",
    "decode_key",
    "decode_value",
    "java_hash",
    "shared",
    "state_partition",
    "uuid_text",
]
