"""What a confluent-kafka exception says: the KafkaError inside it, whether it is a timeout, and
librdkafka's own words for the log (one line an operator reads, never a traceback)."""

from __future__ import annotations

from typing import Any

from mqkafka.kafka.clients import KafkaError, KafkaException


def failure_of(error: BaseException) -> Any:
    """What a KafkaException carries (a KafkaError, usually)."""
    return error.args[0] if error.args else None


def timed_out(failure: Any) -> bool:
    return isinstance(failure, KafkaError) and "TIMED_OUT" in failure.name()


def said(error: KafkaException) -> str:
    """A KafkaException in librdkafka's own words."""
    failure = failure_of(error)
    return failure.str() if isinstance(failure, KafkaError) else str(error)
