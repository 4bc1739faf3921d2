"""Faust's aiokafka transport, reading committed records only.

Faust's consumer reads ``read_uncommitted`` unless the app itself runs exactly-once. The broker
service writes every delivery in a Kafka transaction, and a transaction it aborts (a worker
killed mid-batch) leaves records that are then written again: read uncommitted, a Faust
subscriber would see those publications twice. An MQ application never sees an uncommitted
MQPUT either, so every consumer of a :class:`MQApp` reads committed records.
"""

from __future__ import annotations

from typing import Any

import faust
from faust.transport.drivers import aiokafka as driver

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


class ReadCommittedConsumer(driver.Consumer):  # type: ignore[misc]
    def _new_consumer_thread(self) -> ReadCommittedConsumerThread:
        return ReadCommittedConsumerThread(self, loop=self.loop, beacon=self.beacon)


class ReadCommittedTransport(driver.Transport):  # type: ignore[misc]
    Consumer = ReadCommittedConsumer


class MQApp(faust.App):  # type: ignore[misc]
    """A Faust app whose consumers read committed records (see the module's docstring)."""

    def _new_transport(self) -> Any:
        return ReadCommittedTransport(self.conf.broker_consumer, self)


__all__ = ["MQApp", "ReadCommittedTransport", "read_committed"]
