"""A record Kafka refuses, as aiokafka reports it, named as the service's dead letters name it
(the default loop's confluent-kafka names), and whether any retry would cure it."""

from __future__ import annotations

import pytest
from aiokafka import errors as aiokafka_errors  # type: ignore[import-untyped]

from mqkafka.faust.outage import InvalidRecordError, is_incurable, kafka_error
from mqkafka.kafka.clients import KafkaError


@pytest.mark.parametrize(
    ("error", "name", "incurable"),
    [
        (
            aiokafka_errors.for_code(87)(),
            "INVALID_RECORD",
            True,
        ),  # aiokafka has no class of its own
        (aiokafka_errors.MessageSizeTooLargeError(), "MSG_SIZE_TOO_LARGE", True),
        (aiokafka_errors.RecordListTooLargeError(), "RECORD_LIST_TOO_LARGE", True),
        (aiokafka_errors.TopicAuthorizationFailedError(), "TOPIC_AUTHORIZATION_FAILED", True),
        (aiokafka_errors.UnknownTopicOrPartitionError(), "UNKNOWN_TOPIC_OR_PART", False),
        (aiokafka_errors.NotLeaderForPartitionError(), "NOT_LEADER_FOR_PARTITION", False),
        (aiokafka_errors.UnknownError(), "UNKNOWN", True),
    ],
)
def test_a_refusal_is_named_as_the_default_loop_names_it(
    error: BaseException, name: str, incurable: bool
) -> None:
    assert kafka_error(error).name() == name
    assert is_incurable(error) is incurable


def test_invalid_record_has_its_code_and_an_unknown_error_keeps_its_words() -> None:
    assert isinstance(aiokafka_errors.for_code(87)(), InvalidRecordError)
    assert kafka_error(InvalidRecordError()).code() == KafkaError.INVALID_RECORD
    unknown = kafka_error(aiokafka_errors.UnknownError("the broker said so"))
    assert unknown.code() == KafkaError.UNKNOWN and "the broker said so" in unknown.str()
