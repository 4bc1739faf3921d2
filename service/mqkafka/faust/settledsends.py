"""The producer of an exactly-once worker that keeps its sends until the broker acknowledged
them (faust-streaming 0.15.3, aiokafka 0.14; the installed packages unpatched), so that a
commit (``exactlyonce.BoundaryCommitConsumer``) can wait for them and never passes over one
that failed: aiokafka fails a refused batch's futures and still commits the transaction
without it, and holds a send to a topic deleted under it for Faust's
``producer_request_timeout`` (20 minutes), asking to add it to the transaction again and again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

import faust
from aiokafka.errors import UnknownTopicOrPartitionError  # type: ignore[import-untyped]
from faust.exceptions import ProducerSendError
from faust.transport.drivers import aiokafka as driver

from mqkafka.faust.outage import is_incurable
from mqkafka.faust.rebalance import abort_and_stop, start_transactions

logger = logging.getLogger(__name__)

TRANSACTION_TIMEOUT_MS = 300_000  # Kafka's transaction.max.timeout.ms is 900,000 by default
# Seconds a commit waits on a send before asking whether its topic is still there.
GONE_CHECK = 2.0
Failed = tuple[Any, BaseException]  # a failed send: (its input's position and topic, error)


class SettledProducer(driver.Producer):  # type: ignore[misc]
    """Keeps every send not yet acknowledged by the broker, so a commit can wait for them, and
    every send that failed, so a commit cannot pass over it (aiokafka fails a refused batch's
    futures and still commits the transaction without it)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self._unsettled: set[asyncio.Future[Any]] = set()
        self._failed: list[Failed] = []
        self._inputs: dict[asyncio.Future[Any], Any] = {}
        self._via: dict[asyncio.Future[Any], Any] = {}  # the aiokafka producer of each send

    def _keep(self, future: asyncio.Future[Any], position: Any = None, via: Any = None) -> None:
        self._unsettled.add(future)
        if position is not None:
            self._inputs[future] = position
        if via is not None:
            self._via[future] = via
        future.add_done_callback(self._settled)

    def _settled(self, future: asyncio.Future[Any]) -> None:
        error = None if future.cancelled() else future.exception()  # retrieved, in any case
        if future not in self._unsettled:  # forgotten: its transaction was aborted
            return
        self._unsettled.discard(future)
        self._via.pop(future, None)
        position = self._inputs.pop(future, None)
        if error is not None:
            self._failed.append((position, error))

    async def _fail_gone(self) -> bool:
        """Sends whose topic is gone from Kafka (deleted under the worker: aiokafka asks to
        add it to the transaction again and again and holds the send) count as failed. Their
        producers' metadata is asked first. Only a topic missing from an answer that holds the
        producer's other topics is gone: while Kafka is away the metadata is kept, and a broker
        starting answers without the leaders of every topic (none of which is gone)."""
        answered = set()
        for client in {getattr(via, "client", None) for via in self._via.values()}:
            if client is None:
                continue
            try:
                updated = await asyncio.wait_for(client.force_metadata_update(), GONE_CHECK)
            except Exception as error:  # Kafka away: the sends wait for it
                logger.debug("metadata not updated (%r)", error)
                continue
            if updated is True and client.cluster.topics():
                answered.add(id(client))
        found = False
        for future, via in list(self._via.items()):
            position = self._inputs.get(future)
            topic = position[1] if position is not None else None
            client = getattr(via, "client", None)
            if topic is None or client is None or id(client) not in answered:
                continue
            if client.cluster.partitions_for_topic(topic):
                continue
            self._unsettled.discard(future)
            del self._via[future]
            del self._inputs[future]
            gone = UnknownTopicOrPartitionError(f"topic {topic} is gone")
            self._failed.append((position, gone))
            found = True
        return found

    def _settings_extra(self) -> Mapping[str, Any]:
        extra = dict(super()._settings_extra())
        if self.app.in_transaction:
            # An outage shorter than this leaves the open transaction to commit (past aiokafka's
            # 60 s the coordinator aborts it and fences the producer, which stops the worker).
            # A worker killed holds nothing back meanwhile: the next producer with the id (the
            # restarted worker's, or the next owner's) aborts its transaction at once.
            extra["transaction_timeout_ms"] = TRANSACTION_TIMEOUT_MS
        return extra

    async def abort_open(self) -> int:
        """Aborts every open transaction and stops its producer (at a revocation); what was
        sent in them, failed or not, is sent again when its records are read again."""
        opened = await abort_and_stop(self._transaction_producers, self._trn_locks)
        self._unsettled.clear()
        self._inputs.clear()
        self._via.clear()
        self._failed.clear()
        return opened

    async def abort_and_begin_again(self) -> None:
        """Aborts every open transaction, and begins each again on a new producer (a send
        failed in one: ``BoundaryCommitConsumer._settle_or_redo``)."""
        transactional_ids = list(self._transaction_producers)
        await self.abort_open()
        await start_transactions(self, transactional_ids, self.app)

    def send_soon(self, fut: Any) -> None:
        # Table writes: buffered, published by a task of Faust's, acknowledged later.
        self._keep(fut)
        super().send_soon(fut)

    async def send(self, topic: str, *args: Any, **kwargs: Any) -> Any:
        """``source``: the input message the send is made for, when not the current event's."""
        message = kwargs.pop("source", None)
        tracked = self._transaction_producers.get(kwargs.get("transactional_id") or "")
        via = tracked or self._producer
        _track_topic(via, topic)
        future = await super().send(topic, *args, **kwargs)
        if message is None:
            event = faust.current_event()
            message = event.message if event is not None else None
        where = (message.topic, message.partition, message.offset) if message else None
        self._keep(future, (where, topic), via)
        return future

    async def settled(self) -> list[Failed]:
        """Waits until every send so far is acknowledged or failed (one to a topic gone from
        Kafka fails after ``GONE_CHECK``); returns the failed ones, which it forgets."""
        while self._unsettled:
            done, _ = await asyncio.wait(list(self._unsettled), timeout=GONE_CHECK)
            if not done and await self._fail_gone():
                break  # the others wait behind it (their partitions are not added to the
                # transaction either): the transaction is to be aborted
        failed, self._failed = self._failed, []
        return failed

    async def settle(self) -> None:
        """Wait until every send so far is acknowledged. A send Kafka refused for a reason no
        retry cures goes to the app's ``on_refused`` (input position, output topic, error),
        when it has one; any other failed send fails the commit, now and at every later try
        (its transaction then never commits)."""
        refused = getattr(self.app, "on_refused", None)
        kept = []
        for position, error in [*await self.settled()]:
            if refused is not None and position is not None and is_incurable(error):
                refused(*position, error)
            else:
                kept.append((position, error))
        self._failed = kept
        if kept:
            raise ProducerSendError(f"a send failed: {kept[0][1]!r}")


def _track_topic(producer: Any, topic: str) -> None:
    """aiokafka refreshes metadata only for the topics it tracks, and does not track one it
    found in its first (full) metadata: a send to such a topic, once another topic is tracked,
    waits for ever for a partition leader the refreshes dropped (the state topics did)."""
    client = getattr(producer, "client", None)
    if client is not None and topic not in client._topics:
        client.add_topic(topic)


__all__ = ["GONE_CHECK", "TRANSACTION_TIMEOUT_MS", "Failed", "SettledProducer"]
