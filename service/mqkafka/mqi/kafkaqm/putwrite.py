"""A put's record written to Kafka (``transfer.put``): a persistent MQPUT returns once Kafka has
the record (acks=all), or hands a future that completes then (the asynchronous put); a
non-persistent one once the producer has queued it. Kafka's refusals become MQ's reasons
(``putlimits.too_big``: a record larger than Kafka takes is 2031 or 2030, not a broken
connection). A record larger than the queue's topic takes is refused before it is produced
(``recordroom``: a non-persistent one would have been lost); a non-persistent record Kafka
still refuses is logged."""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

from mqkafka.kafka.clients import KafkaException
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm.putlimits import too_big
from mqkafka.mqi.kafkaqm.recordroom import check_fits, reported, reporter
from mqkafka.mqi.rules.errors import failed


def produce_put(
    producer: Any,
    topic: str,
    data: bytes,
    key: bytes | None,
    headers: list[tuple[str, bytes]],
    persistent: bool,
    durable: Future[None] | None = None,
) -> None:
    """Write the record; with ``durable``, a persistent put does not wait for Kafka."""
    measured = check_fits(topic, data, key, headers)
    if persistent and durable is not None:
        try:
            producer.produce(
                topic, data, key, headers=headers, on_delivery=settle(durable, len(data))
            )
        except BufferError as error:
            raise failed(RC.CONNECTION_BROKEN, f"put: {error}") from None
        except KafkaException as error:
            raise too_big(error, len(data), queued=True) from None
        producer.poll(0)
        return
    if not persistent:
        report = reported if measured else reporter(topic, headers)
        try:
            producer.produce(topic, data, key, headers=headers, on_delivery=report)
        except BufferError:
            producer.flush(30)
            producer.produce(topic, data, key, headers=headers, on_delivery=report)
        except KafkaException as error:
            raise too_big(error, len(data), queued=True) from None
        return
    outcome: list[Any] = []
    try:
        producer.produce(
            topic, data, key, headers=headers, on_delivery=lambda e, m: outcome.append(e)
        )
    except BufferError as error:
        raise failed(RC.CONNECTION_BROKEN, f"put: {error}") from None
    except KafkaException as error:
        raise too_big(error, len(data), queued=True) from None
    producer.flush(60)
    if not outcome:
        raise failed(RC.CONNECTION_BROKEN, "persistent put not acknowledged")
    if outcome[0] is not None:
        raise too_big(outcome[0], len(data), queued=False)


def settle(future: Future[None], length: int) -> Any:
    """The delivery callback that completes ``future`` with the put's outcome."""

    def delivered(error: Any, message: Any) -> None:
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(too_big(error, length, queued=False))

    return delivered
