"""What a rebalance does to an exactly-once worker's open transactions (faust-streaming 0.15.3,
aiokafka 0.14; the installed packages unpatched).

What plain Faust does (aiokafka's group protocol is eager: every rebalance revokes every
partition, then assigns again), seen in the scale-out test with four workers, one leaving and
one joining: a record processed after the last commit had its output sent in the open
transaction of its partition; the revocation forgot its acknowledged offset; Faust's
``begin_transaction`` for a partition the worker kept failed ("Invalid state transition
IN_TRANSACTION -> IN_TRANSACTION", a warning) and left that transaction open; the worker sought
back to the committed offset, processed the record again into the same transaction, and the
next commit committed both outputs: the publication delivered twice.

The correction (``BoundaryCommitConsumer`` calls these): at a revocation, once no record is
in flight, every open transaction is aborted and its producer stopped, and the app is told
(its state effects since the last commit are undone); records that reach the gate until the
next assignment are dropped unprocessed, with acknowledgements no commit can use. At the
assignment, every transaction starts on a new producer: its ``InitProducerId`` returns only
when the transactional id's last transaction is complete (its markers written, the committed
offsets readable), so the seek to the committed offsets that follows reads them (aiokafka's
``OffsetFetch`` cannot ask for stable offsets), and it fences a former owner still holding the
id. Then every partition is read again from its committed offset.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

from aiokafka.errors import KafkaError  # type: ignore[import-untyped]

logger = logging.getLogger(__name__)

ABORT_WAIT = 10.0  # seconds an abort may take; a transaction left open is aborted by the next
# producer with its transactional id, this worker's or another's
START_BACKOFF = 1.0  # seconds between two tries to start a transaction's producer
START_TRIES = 60  # tries at an assignment (a rebalance waits for it)


async def abort_and_stop(producers: dict[str, Any], locks: dict[str, asyncio.Lock]) -> int:
    """Aborts every open transaction of ``producers`` (Faust's producer's transaction
    producers, by transactional id) and stops its producer; returns how many were open."""
    opened = 0
    for transactional_id in list(producers):
        producer = producers.pop(transactional_id)
        lock = locks.get(transactional_id) or asyncio.Lock()
        async with lock:
            manager = producer._txn_manager  # aiokafka has no public way to ask
            state = getattr(manager.state, "name", "")
            if state in ("IN_TRANSACTION", "ABORTABLE_ERROR"):
                opened += 1
                try:
                    await asyncio.wait_for(producer.abort_transaction(), ABORT_WAIT)
                except Exception as error:  # fenced, Kafka away: the next InitProducerId aborts it
                    logger.info(
                        "transaction %s not aborted (%s): the next producer with its id aborts it",
                        transactional_id,
                        type(error).__name__,
                    )
            # a send it still holds (one to a topic deleted under it waits for Faust's
            # producer_request_timeout, 20 minutes) belongs to the aborted transaction: failed
            # here, so that the stop does not wait for it
            producer._message_accumulator.fail_all(KafkaError("its transaction was aborted"))
            try:
                await asyncio.wait_for(producer.stop(), ABORT_WAIT)
            except Exception as error:
                logger.info("producer %s not stopped (%r)", transactional_id, error)
    return opened


async def start_transactions(producer: Any, transactional_ids: Iterable[str], app: Any) -> None:
    """Begins a transaction for each id, each on a new producer (the module's docstring says
    why). Faust's ``begin_transaction`` says a failure in a warning and goes on without a
    producer; this tries again (Kafka may be away for a while) until each has begun, the app
    stops or ``START_TRIES`` tries have failed (a send then tries again: ``ensure_begun``)."""
    for transactional_id in sorted(transactional_ids):
        await ensure_begun(producer, transactional_id, app, START_TRIES)


async def ensure_begun(producer: Any, transactional_id: str, app: Any, tries: int) -> bool:
    """Whether the transaction of ``transactional_id`` is open, begun here if need be."""
    for _ in range(tries):
        started = producer._transaction_producers.get(transactional_id)
        if started is not None and started._txn_manager.is_in_transaction():
            return True
        if app.should_stop:
            return False
        if started is not None and started._txn_manager.is_fatal_error():
            return False  # fenced: the commit says it (outage.is_fenced) and the worker stops
        await _begin(producer, transactional_id)
        started = producer._transaction_producers.get(transactional_id)
        if started is not None and started._txn_manager.is_in_transaction():
            return True
        await asyncio.sleep(START_BACKOFF)
    return False


async def _begin(producer: Any, transactional_id: str) -> None:
    """Faust's ``begin_transaction``, its new producer stopped when it cannot start: Faust
    keeps a producer only once started, and one that failed was left unclosed (asyncio's
    "Unclosed AIOKafkaProducer" error line each try while Kafka was away)."""
    if transactional_id not in producer._transaction_producers:
        fresh = producer._new_producer(transactional_id=transactional_id)
        try:
            await fresh.start()
        except Exception as error:  # Kafka away: the next try makes another
            logger.debug("producer %s not started (%r)", transactional_id, error)
            try:
                await fresh.stop()
            except Exception as failure:
                logger.info("producer %s not stopped (%r)", transactional_id, failure)
            return
        producer._transaction_producers[transactional_id] = fresh
        producer._trn_locks[transactional_id] = asyncio.Lock()
    await producer.begin_transaction(transactional_id)


__all__ = ["ABORT_WAIT", "abort_and_stop", "ensure_begun", "start_transactions"]
