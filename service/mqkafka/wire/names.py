"""MQ object names and the Kafka topic names that carry them (wire contract §1, reference §9.5).

A queue ``Q`` is the topic ``<namespace>Q`` with ``/`` written ``-2F`` and ``%`` written ``-25``.
MQ names never contain ``-``, so every ``-`` in a topic starts an escape and the mapping is
reversible. Kafka topic names allow ``[A-Za-z0-9._-]``, at most 249 characters.
"""

from __future__ import annotations

import re
from typing import Final

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC

MQ_OBJECT_NAME_LENGTH: Final = 48
KAFKA_TOPIC_MAX_LENGTH: Final = 249

# §9.5: up to 48 characters from A-Z a-z 0-9 . / _ %.
_OBJECT_NAME: Final = re.compile(r"[A-Za-z0-9._/%]{1,48}")
_KAFKA_LEGAL: Final = re.compile(r"[A-Za-z0-9._-]*")
# Escapes in both directions; the table is the whole rule.
_ESCAPES: Final = {"/": "-2F", "%": "-25"}
_UNESCAPES: Final = {v: k for k, v in _ESCAPES.items()}
_ESCAPE_PATTERN: Final = re.compile(r"[/%]")
_UNESCAPE_PATTERN: Final = re.compile(r"-(?:2F|25)")
# Worst case: every character escaped to three.
_MAX_NAMESPACE_LENGTH: Final = KAFKA_TOPIC_MAX_LENGTH - 3 * MQ_OBJECT_NAME_LENGTH


def validate_object_name(name: str) -> str:
    """The significant part of an MQ object name, or MQRC_OBJECT_NAME_ERROR.

    The field is blank-padded and a NUL ends it (§9.5), so both are cut before the check;
    leading or embedded blanks are invalid.
    """
    if not isinstance(name, str):
        raise MQError(RC.OBJECT_NAME_ERROR, f"object name must be text, not {type(name)}")
    significant = name.split("\x00", 1)[0].rstrip(" ")
    if not _OBJECT_NAME.fullmatch(significant):
        raise MQError(
            RC.OBJECT_NAME_ERROR,
            f"object name {significant!r} is not 1-48 characters of A-Z a-z 0-9 . / _ %",
        )
    return significant


def validate_namespace(namespace: str) -> str:
    """A topic prefix must itself be legal in a Kafka topic name and leave room for 48
    escaped characters."""
    if not isinstance(namespace, str) or not _KAFKA_LEGAL.fullmatch(namespace):
        raise MQError(RC.OBJECT_NAME_ERROR, f"namespace {namespace!r} is not [A-Za-z0-9._-]*")
    if len(namespace) > _MAX_NAMESPACE_LENGTH:
        raise MQError(
            RC.OBJECT_NAME_ERROR, f"namespace longer than {_MAX_NAMESPACE_LENGTH} characters"
        )
    return namespace


def queue_to_topic(queue: str, namespace: str = "") -> str:
    """The Kafka topic of a queue: ``APP/REPLY%1`` → ``APP-2FREPLY-251``."""
    name = validate_object_name(queue)
    topic = validate_namespace(namespace) + _ESCAPE_PATTERN.sub(lambda m: _ESCAPES[m.group()], name)
    # Kafka reserves these two names; they can only arise from the queues "." and "..".
    if topic in (".", ".."):
        raise MQError(RC.OBJECT_NAME_ERROR, f"queue {name!r} cannot be a Kafka topic")
    return topic


# Topics that are never queues: Kafka's own (``__consumer_offsets``, ``__transaction_state``,
# ...: writing there is refused or worse) and the product's state topics (``mqk-...``).
KAFKA_INTERNAL_PREFIX: Final = "__"
STATE_TOPIC_PREFIX: Final = "mqk-"


def reserved_topic(topic: str, namespace: str = "") -> str | None:
    """Why ``topic`` may not carry a queue, or None when it may: a Kafka-internal name
    (``__*`` after the namespace: with none, the cluster's own topics), a state topic of this
    product (``<namespace>mqk-*``), or a name Kafka would refuse (illegal characters,
    ``.``/``..``, longer than 249)."""
    if len(topic) > KAFKA_TOPIC_MAX_LENGTH:
        return f"longer than {KAFKA_TOPIC_MAX_LENGTH} characters"
    if not topic or topic in (".", "..") or not _KAFKA_LEGAL.fullmatch(topic):
        return "not a legal Kafka topic name"
    name = topic[len(namespace) :] if topic.startswith(namespace) else topic
    if name.startswith(KAFKA_INTERNAL_PREFIX):
        return "reserved for Kafka's internal topics"
    if name.startswith(STATE_TOPIC_PREFIX):
        return "reserved for the broker's state topics"
    return None


def topic_to_queue(topic: str, namespace: str = "") -> str:
    """The queue a topic carries; MQRC_OBJECT_NAME_ERROR if the topic is not one that
    ``queue_to_topic`` produces (outside the namespace, a stray ``-``, a lower-case escape)."""
    if not isinstance(topic, str):
        raise MQError(RC.OBJECT_NAME_ERROR, f"topic must be text, not {type(topic)}")
    prefix = validate_namespace(namespace)
    if not topic.startswith(prefix):
        raise MQError(RC.OBJECT_NAME_ERROR, f"topic {topic!r} is outside namespace {prefix!r}")
    escaped = topic[len(prefix) :]
    name = _UNESCAPE_PATTERN.sub(lambda m: _UNESCAPES[m.group()], escaped)
    if "-" in name:
        raise MQError(RC.OBJECT_NAME_ERROR, f"topic {topic!r} has a '-' that is no escape")
    if name != validate_object_name(name) or queue_to_topic(name, prefix) != topic:
        raise MQError(RC.OBJECT_NAME_ERROR, f"topic {topic!r} does not name a queue")
    return name
