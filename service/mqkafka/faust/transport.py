"""Faust's aiokafka transport with what MQ on Kafka needs, worked around in subclasses (the
installed package is not patched).

- **Committed records only.** Faust's consumer reads ``read_uncommitted`` unless the app itself
  runs exactly-once. The broker service writes every delivery in a Kafka transaction, and one it
  aborts (a worker killed mid-batch) leaves records that are then written again: read
  uncommitted, a Faust subscriber would count those publications twice. An MQ application never
  sees an uncommitted MQPUT either, so every consumer of an :class:`MQApp` reads committed.
- **An exactly-once worker that stops.** Stopping, Faust commits its offsets once without
  beginning a new transaction and then again: aiokafka refuses offsets outside a transaction
  (``IllegalOperation: Not in the middle of a transaction``), the shutdown breaks off and the
  process never exits (seen on Kafka 4.2 with faust-streaming 0.15.3, aiokafka 0.14). A
  transaction is begun for such offsets, so they commit as Faust meant them to.
- **Exactly once, corrected.** An exactly-once app's commits wait for a record boundary and
  for its sends, its outputs go in their input partition's transaction and its RocksDB Tables
  are rebuilt from their changelogs (``exactlyonce.py`` says why each).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import faust
from faust.transport.drivers import aiokafka as driver

from mqkafka.faust.exactlyonce import (
    BoundaryCommitConsumer,
    BoundaryStream,
    InputPartitionTransactions,
    MQTable,
    SettledProducer,
)

READ_COMMITTED = "read_committed"


def read_committed(consumer: Any) -> Any:
    # aiokafka keeps the level given to its constructor and hands it to its fetcher at start();
    # the consumer is not started yet here.
    consumer._isolation_level = READ_COMMITTED
    return consumer


class ReadCommittedConsumerThread(driver.AIOKafkaConsumerThread):  # type: ignore[misc]
    def _create_worker_consumer(self, transport: Any) -> Any:
        return read_committed(super()._create_worker_consumer(transport))

    def _create_client_consumer(self, transport: Any) -> Any:
        return read_committed(super()._create_client_consumer(transport))


class ReadCommittedConsumer(BoundaryCommitConsumer):
    def _new_consumer_thread(self) -> ReadCommittedConsumerThread:
        return ReadCommittedConsumerThread(self, loop=self.loop, beacon=self.beacon)


class TransactionalProducer(SettledProducer):
    async def commit_transactions(
        self,
        tid_to_offset_map: Mapping[str, Mapping[Any, int]],
        group_id: str,
        start_new_transaction: bool = True,
    ) -> None:
        for transactional_id in tid_to_offset_map:
            producer = self._transaction_producers.get(transactional_id)
            lock = self._trn_locks.get(transactional_id)
            if producer is None or lock is None:
                continue
            async with lock:
                if not producer._txn_manager.is_in_transaction():  # no public way to ask
                    await producer.begin_transaction()
        await super().commit_transactions(tid_to_offset_map, group_id, start_new_transaction)


class MQTransport(driver.Transport):  # type: ignore[misc]
    Consumer = ReadCommittedConsumer
    Producer = TransactionalProducer
    TransactionManager = InputPartitionTransactions


class MQApp(faust.App):  # type: ignore[misc]
    """A Faust app on :class:`MQTransport` (see the module's docstring)."""

    def __init__(self, id: str, **options: Any) -> None:
        super().__init__(id, **{"Stream": BoundaryStream, "Table": MQTable, **options})

    def _new_transport(self) -> Any:
        return MQTransport(self.conf.broker_consumer, self)

    def _new_producer_transport(self) -> Any:
        return MQTransport(self.conf.broker_producer, self)


__all__ = ["MQApp", "MQTransport", "read_committed"]
