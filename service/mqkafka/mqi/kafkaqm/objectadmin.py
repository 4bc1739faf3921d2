"""ALTER QLOCAL/QMODEL, CLEAR QLOCAL and a queue's partitions: the administration beside
DEFINE and DELETE (``queuemanager.py``), with runmqsc's rules.

- ALTER changes what a definition holds and nothing else: the name, the type, how a dynamic
  queue came to be and who made it stay (runmqsc cannot alter them either); a queue's
  partitions may grow (Kafka cannot take partitions away, so fewer is refused).
- CLEAR QLOCAL discards the committed messages; it is refused while a program has the queue
  open or holds uncommitted work on it (MQRC_OBJECT_IN_USE, as runmqsc's AMQ8148), and a
  model queue, which holds no messages, is the wrong type.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any

from mqkafka.kafka import topicadmin
from mqkafka.kafka.clients import KafkaException
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm.connection import Connection
from mqkafka.mqi.rules.catalogue import QueueDefinition
from mqkafka.mqi.rules.lifecycle import QueueState

# What ALTER may not change: the identity of the object and how a dynamic queue came to be.
FIXED_FIELDS = frozenset(
    {"name", "queue_type", "definition_type", "model", "creator", "created_by",
     "logically_deleted"}
)  # fmt: skip
ALTERABLE_FIELDS = frozenset(f.name for f in fields(QueueDefinition)) - FIXED_FIELDS


def altered(definition: QueueDefinition, changes: Mapping[str, Any]) -> QueueDefinition:
    """``definition`` with ``changes`` (field → value), validated as a new definition is."""
    # a model's DEFTYPE says what MQOPEN of it makes next: ALTER QMODEL may change it
    allowed = ALTERABLE_FIELDS | ({"definition_type"} if definition.is_model else set())
    refused = sorted(set(changes) - allowed)
    if refused:
        raise MQError(RC.CF_ATTR_VALUE_ERROR, f"{definition.name}: cannot alter {refused}")
    try:
        return replace(definition, **changes)
    except (TypeError, ValueError) as error:
        raise MQError(RC.CF_ATTR_VALUE_ERROR, f"{definition.name}: {error}") from None


def alter_queue(
    conn: Connection, name: str, changes: Mapping[str, Any], partitions: int | None = None
) -> QueueDefinition:
    conn.replica.sync()
    definition = conn.definition(name)
    new = altered(definition, changes)
    if partitions is not None:
        if definition.is_model:
            raise MQError(RC.CF_Q_WRONG_TYPE, f"{name} is a model queue: it has no partitions")
        set_partitions(conn, name, partitions)
    if new != definition:
        conn.replica.define(new)
        conn.replica.flush()
    return new


def set_partitions(conn: Connection, name: str, partitions: int) -> None:
    """The queue's topic with ``partitions``; more are added, fewer refused."""
    topic = conn.settings.topic_of(name)
    now = conn.admin.partitions_of(topic)
    if now is None or partitions == now:
        return
    if partitions < now:
        raise MQError(
            RC.CF_ATTR_VALUE_ERROR,
            f"{name} has {now} partitions: Kafka adds partitions, never takes them away",
        )
    try:
        topicadmin.raise_partitions(conn.admin.client, {topic: partitions}, conn.admin.timeout)
    except KafkaException as error:
        raise MQError(RC.CONNECTION_BROKEN, f"partitions of {topic}: {error}") from None


def clear_queue(conn: Connection, definition: QueueDefinition, state: QueueState) -> int:
    """CLEAR QLOCAL: the committed messages discarded; how many there were."""
    if definition.is_model:
        raise MQError(RC.CF_Q_WRONG_TYPE, f"{definition.name} is a model queue")
    if state.in_use or state.has_uncommitted_work:
        raise MQError(RC.OBJECT_IN_USE, f"CLEAR QLOCAL({definition.name}): the queue is open")
    if state.depth:
        conn.admin.purge(conn.settings.topic_of(definition.name))
    return state.depth


__all__ = ["ALTERABLE_FIELDS", "alter_queue", "altered", "clear_queue", "set_partitions"]
