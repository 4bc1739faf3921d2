"""An MQApp's Kafka clients are made by MQTransport: consumers that read committed records
whatever the processing guarantee (a subscriber never sees a delivery the service aborted),
and the producer that keeps an exactly-once worker's stop from hanging. Built, not started:
no connection is made."""

from __future__ import annotations

import asyncio

import pytest

from mqkafka.faust import make_app
from mqkafka.faust.transport import MQTransport, TransactionalProducer
from mqkafka.kafka.clientconfig import ClientConfig


@pytest.mark.parametrize("guarantee", ["at_least_once", "exactly_once"])
def test_every_consumer_reads_committed_records(guarantee: str) -> None:
    async def build() -> tuple[object, str, object]:
        app = make_app("t", ClientConfig("127.0.0.1:1"), processing_guarantee=guarantee)
        kafka_consumer = app.consumer._thread._create_worker_consumer(app.transport)
        try:
            return app.transport, kafka_consumer._isolation_level, app.producer
        finally:
            await kafka_consumer.stop()

    transport, isolation, producer = asyncio.run(build())
    assert isinstance(transport, MQTransport)
    assert isolation == "read_committed"
    assert isinstance(producer, TransactionalProducer)
