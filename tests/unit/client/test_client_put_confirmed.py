"""A command put while Kafka does not answer is said failed, not said put (then lost when the
process exits with the record still in librdkafka's queue, the user told not to re-send)."""

from __future__ import annotations

import pytest

from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.kafka.clients import KafkaException


def test_a_put_kafka_never_took_raises_with_librdkafkas_reason() -> None:
    client = KafkaPubSub("127.0.0.1:1", put_timeout=1.0)  # nothing listens on port 1
    with pytest.raises(KafkaException) as failed:
        client.command([("Command", "Publish"), ("Topic", "A/b")], body=b"x", wait=None)
    assert failed.value.args[0].name() == "_MSG_TIMED_OUT"
