"""Faust's exactly-once corrected: what a record changes is committed with its offset, or
neither is (faust-streaming 0.15.3 on Kafka 4.2, aiokafka 0.14; the installed package is not
patched: these are subclasses that :class:`~mqkafka.faust.transport.MQApp` puts in place).

What plain Faust does, and tests/integration/faust/test_faust_exactly_once.py observes across
a SIGKILL (a Table's count one too high, an output there twice):

- its timed commit comes in the middle of an agent's record: the transaction takes the Table
  writes and outputs made so far but only the offsets of records already finished;
- it does not wait for the sends in its producer's buffer before committing;
- an output to a topic the worker does not read goes out in no transaction at all;
- RocksDB is written at once, so after a crash it holds writes whose transaction aborted, and
  the restarted worker reads the changelog on from there;
- a rebalance leaves a kept partition's transaction open with the outputs of records whose
  offsets it forgot, and those records, read again, are committed twice (``rebalance.py``);
- the offset it commits comes from its acknowledgements and the gaps between offsets read,
  and Faust acknowledges records it skips unprocessed (while its flow is stopped, or of an
  older generation).

The correction, each piece below: a commit waits for a record boundary (no record in flight;
new records wait at the gate of their stream until it is done) and for every send made so far
to be acknowledged (``settledsends.py``); a send that failed stops the commit, or, for an app
with a ``redo`` hook (the broker service), the open transactions are aborted and begun again
and the app makes its records' outputs anew; a send made for an input record goes in the
transaction of that record's partition; the offset committed is the one after the last record
processed; a revocation aborts what was not committed and every partition is read again from
its committed offset; an exactly-once worker's RocksDB partition is rebuilt from its
changelog (read committed) whenever it is opened. What it does not cover: an agent that,
mid-record, waits on another agent's progress would wait for ever once a commit closes the
gates; SIGTERM ends a record in flight as Faust does (acknowledged).
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import Mapping
from typing import Any, cast

import faust
from faust.exceptions import ProducerSendError, Skip
from faust.stores import rocksdb
from faust.transport import consumer as base_consumer
from faust.transport.drivers import aiokafka as driver
from faust.types.tuples import ack_lock

from mqkafka.faust.outage import is_fenced
from mqkafka.faust.rebalance import ensure_begun, start_transactions
from mqkafka.faust.settledsends import SettledProducer

logger = logging.getLogger(__name__)

WAITS_FOR_RECORDS = "commit waits for records in flight"
REDO_TRIES = 10  # a commit's tries at its records' outputs, each after a failed send


class RecordBoundary:
    """Which records agents are working on, and a gate that holds new ones while a commit
    waits for none to be in flight. Between a revocation and the next assignment
    (``revoked``) the gate drops records unprocessed: they are read again from the committed
    offset (``rebalance.py``)."""

    def __init__(self) -> None:
        self._inside: set[int] = set()  # the events past the gate, by id
        self.done: dict[Any, int] = {}  # per partition, the last record processed: committable
        self.revoked = False
        self.broken: str | None = None  # a record failed: nothing more may be committed
        self.waits_level = logging.INFO  # the level of the line saying a commit waits
        self._closers = 0
        self._open = asyncio.Event()
        self._open.set()
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def in_flight(self) -> int:
        return len(self._inside)

    async def enter(self, event: Any) -> None:
        """A stream's first processor: the record waits while a commit is being made."""
        while self._closers:
            await self._open.wait()
        if self.revoked:
            raise Skip()  # acknowledged as skipped: no commit uses it (BoundaryCommitConsumer)
        self._inside.add(id(event))
        self._idle.clear()

    def leave(self, event: Any) -> None:
        """The record was acknowledged: its agent asked for the next one. Events that never
        passed the gate (Faust skips records of an older generation or while its flow is
        stopped, and acknowledges them all the same) are not counted as done."""
        key = id(event)
        if key in self._inside:
            self._inside.discard(key)
            message = event.message
            if self.broken is None and message.offset >= self.done.get(message.tp, -1):
                self.done[message.tp] = message.offset
        if not self._inside:
            self._idle.set()

    def fail(self, event: Any, reason: str) -> None:
        """The agent failed on this record: it is not done, and the open transactions (which
        may hold some of its outputs) must never commit."""
        self.broken = self.broken or reason
        self._inside.discard(id(event))
        if not self._inside:
            self._idle.set()

    async def close(self) -> None:
        """Hold new records and wait until none is in flight."""
        self._closers += 1
        self._open.clear()
        if self._inside:
            logger.log(self.waits_level, "%s (%d)", WAITS_FOR_RECORDS, len(self._inside))
            await self._idle.wait()

    def reopen(self) -> None:
        self._closers -= 1
        if not self._closers:
            self._open.set()


def record_boundary(app: Any) -> RecordBoundary:
    boundary = getattr(app, "record_boundary", None)
    if boundary is None:
        boundary = app.record_boundary = RecordBoundary()
    return boundary


class _Gate:
    """The processor that puts a stream's records through the app's boundary."""

    def __init__(self, boundary: RecordBoundary) -> None:
        self.boundary = boundary

    async def __call__(self, value: Any) -> Any:
        await self.boundary.enter(faust.current_event())
        return value


class BoundaryStream(faust.Stream):  # type: ignore[misc]
    """A stream whose records pass the app's record boundary (exactly-once apps only)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.app.in_transaction:
            return
        boundary = record_boundary(self.app)
        # A derived stream copies its parent's processors: one gate, first, per stream.
        others = [p for p in self._processors if not isinstance(p, _Gate)]
        self._processors[:] = [_Gate(boundary), *others]
        sensor_out: Any = self._on_stream_event_out  # type: ignore[has-type]

        def on_stream_event_out(*args: Any, **kwargs: Any) -> Any:
            boundary.leave(args[3] if len(args) > 3 else kwargs.get("event"))
            return sensor_out(*args, **kwargs)

        self._on_stream_event_out = on_stream_event_out


class BoundaryCommitConsumer(driver.Consumer):  # type: ignore[misc]
    """Commits, exactly once, only at a record boundary and after every send is settled; a
    rebalance aborts what was not committed and reads it again (``rebalance.py``)."""

    async def commit(self, topics: Any = None, start_new_transaction: bool = True) -> bool:
        if not self.in_transaction:
            return bool(await super().commit(topics, start_new_transaction))
        if faust.current_event() is not None:
            # Asked from inside a record (app.commit() in an agent): that is mid-record.
            logger.warning("commit asked for inside a record: left to the next timed commit")
            return False
        boundary = record_boundary(self.app)
        if boundary.revoked or boundary.broken:  # read again from the committed offsets
            return False
        await boundary.close()
        try:
            if boundary.revoked or boundary.broken:
                return False
            await self._settle_or_redo()
            committed = bool(await super().commit(topics, start_new_transaction))
            hook = getattr(self.app, "on_transaction_committed", None)
            if committed and hook is not None:  # what it committed: every record so far
                hook()
            return committed
        except Exception as error:
            fenced = getattr(self.app, "on_fenced", None)
            if fenced is None or not is_fenced(error):
                raise
            fenced(error)  # a send of a fenced producer failed: no waiting cures that
            return False
        finally:
            boundary.reopen()

    async def _settle_or_redo(self) -> None:
        """Every send settled. An app with a ``redo`` hook (the broker service) is not left
        with a transaction that lost a send: the open transactions are aborted and begun
        again, and ``redo`` makes every record's outputs since the last commit anew, in them
        (as the default loop aborts and tries again, then takes out what Kafka refuses)."""
        producer = self.app.producer
        redo = getattr(self.app, "redo", None)
        if redo is None:
            await producer.settle()
            return
        for _ in range(REDO_TRIES):
            failed = await producer.settled()
            if not failed:
                return
            for _, error in failed:
                if is_fenced(error):
                    raise error
            await producer.abort_and_begin_again()
            await redo(failed)
        raise ProducerSendError(f"sends failed {REDO_TRIES} times: {failed[0][1]!r}")

    async def on_partitions_revoked(self, revoked: Any) -> None:
        # Before Faust forgets the acknowledged offsets: nothing is committed from here on.
        if self.in_transaction:
            await self._abort_for_rebalance()
        await super().on_partitions_revoked(revoked)

    async def _abort_for_rebalance(self) -> None:
        while self._commit_fut is not None:  # type: ignore[has-type]  # a commit under way ends
            await self.maybe_wait_for_commit_to_finish()
        fut: asyncio.Future[None] = asyncio.Future(loop=self.loop)
        self._commit_fut = fut  # and none begins meanwhile
        boundary = record_boundary(self.app)
        try:
            await boundary.close()  # no record in flight
            boundary.revoked = True
            boundary.done.clear()
            opened = await self.app.producer.abort_open()
            hook = getattr(self.app, "on_transaction_aborted", None)
            if hook is not None:
                hook(opened)
        finally:
            boundary.reopen()
            self._commit_fut = None  # type: ignore[assignment]
            if not fut.done():
                fut.set_result(None)

    async def on_partitions_assigned(self, assigned: Any, generation_id: int = 0) -> None:
        if self.in_transaction:
            # Acknowledged since the revocation (records dropped at the gate or skipped by
            # Faust as of an older generation): all is read again from the committed offsets.
            with ack_lock:
                self._acked.clear()
                self._acked_index.clear()
                self._gap.clear()
                self._n_acked = 0
            boundary = record_boundary(self.app)
            boundary.done.clear()
            boundary.revoked = False
        await super().on_partitions_assigned(assigned, generation_id)

    def _filter_tps_with_pending_acks(self, topics: Any = None) -> Any:
        if not self.in_transaction:
            return super()._filter_tps_with_pending_acks(topics)
        done = record_boundary(self.app).done
        return [tp for tp in done if topics is None or tp in topics or tp.topic in topics]

    def _new_offset(self, tp: Any) -> int | None:
        """The offset after the last record processed: Faust's own, from its acknowledgements
        and the gaps between offsets read, also counts records it skipped unprocessed
        (acknowledged as skipped while its flow is stopped, or of an older generation)."""
        if not self.in_transaction:
            return cast(int | None, super()._new_offset(tp))
        with ack_lock:  # Faust's own list, unused here, kept from growing
            self._acked.pop(tp, None)
            self._acked_index.pop(tp, None)
            self._gap.pop(tp, None)
        done = record_boundary(self.app).done.get(tp)
        return None if done is None else done + 1


class InputPartitionTransactions(base_consumer.TransactionManager):  # type: ignore[misc]
    """Every send made for an input record goes in the transaction of that record's partition
    (Faust picks the transaction by the output's own partition, and sends outside any when the
    worker does not read the output topic). A send made outside a record (a task's, a timer's)
    has no input to be exactly once with and goes as Faust sends it."""

    async def send(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        partition: int | None,
        timestamp: float | None,
        headers: Any,
        *,
        transactional_id: str | None = None,
    ) -> Any:
        event = faust.current_event()
        if event is None:
            return await super().send(topic, key, value, partition, timestamp, headers)
        return await self.send_for(event.message, topic, key, value, partition, headers)

    async def send_for(
        self,
        source: Any,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        partition: int | None,
        headers: Any,
    ) -> Any:
        """A send made for the input message ``source`` (a Faust Message), in the transaction
        of its partition."""
        group = self.app.assignor.group_for_topic(source.topic)
        transactional_id = f"{self.app.conf.id}-{group}-{source.partition}"
        # begun at the assignment; if Kafka was away then, begun now (tried until it is)
        await ensure_begun(self.producer, transactional_id, self.app, tries=1 << 30)
        return await self.producer.send(
            topic,
            key,
            value,
            partition,
            None,
            headers,
            transactional_id=transactional_id,
            source=source,
        )

    async def _start_transactions(self, tids: Any) -> None:
        await start_transactions(self.producer, tids, self.app)

    async def commit(self, offsets: Mapping[Any, int], start_new_transaction: bool = True) -> bool:
        return bool(await super().commit(offsets, start_new_transaction))


class RebuiltRocksDBStore(rocksdb.Store):  # type: ignore[misc]
    """RocksDB that an exactly-once worker rebuilds from the changelog at each opening of a
    partition: what it held may include writes of a transaction that aborted."""

    def _open_for_partition(self, partition: int) -> Any:
        db = super()._open_for_partition(partition)  # holds RocksDB's lock: no one else's
        if not self.app.in_transaction:
            return db
        db.close()
        shutil.rmtree(self.partition_path(partition), ignore_errors=True)
        return super()._open_for_partition(partition)


class MQTable(faust.Table):  # type: ignore[misc]
    """A Table whose RocksDB store is :class:`RebuiltRocksDBStore`."""

    def _new_store_by_url(self, url: Any) -> Any:
        if str(url).startswith("rocksdb:"):
            return RebuiltRocksDBStore(
                url,
                self.app,
                self,
                table_name=self.name,
                key_type=self.key_type,
                key_serializer=self.key_serializer,
                value_serializer=self.value_serializer,
                value_type=self.value_type,
                loop=self.loop,
                options=self.options,
            )
        return super()._new_store_by_url(url)


__all__ = [
    "WAITS_FOR_RECORDS",
    "BoundaryCommitConsumer",
    "BoundaryStream",
    "InputPartitionTransactions",
    "MQTable",
    "RebuiltRocksDBStore",
    "RecordBoundary",
    "SettledProducer",
]
