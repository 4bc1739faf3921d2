"""The queue manager's catalogue: queue definitions as values, and the pure state they form.

Definitions live in the compacted topic ``mqk-queues`` (topics/catalogue.toml), one record
per queue keyed by the queue name; a tombstone (no value) deletes the queue. Every client
and the service replay that topic into a :class:`Catalogue`, so they agree on which queues
exist. Because each record carries the whole definition, replaying the compacted topic
gives the same catalogue as replaying the full history.

Nothing here reads or writes Kafka: the adapter turns records into Kafka records and back.
"""

from __future__ import annotations

import json
import string
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from typing import Any

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.rules import cmqc as C

CATALOGUE_TOPIC = "mqk-queues"
SCHEMA = 1  # bumped only together with a reader that still accepts the older records

# Object names (reference §9.5): up to 48 of A-Z a-z 0-9 . / _ %; no blanks inside.
OBJECT_NAME_CHARS = frozenset(string.ascii_letters + string.digits + "./_%")

# System objects (reference §1.3, §9.5). Model queue names:
SYSTEM_DEFAULT_MODEL = "SYSTEM.DEFAULT.MODEL.QUEUE"  # TEMPDYN, as in MQ
# MQ defines no default *permanent* model; this name is the emulator's own choice.
SYSTEM_PERMANENT_MODEL = "SYSTEM.DEFAULT.PERMANENT.MODEL.QUEUE"
SYSTEM_DURABLE_MODEL = "SYSTEM.DURABLE.MODEL.QUEUE"  # PERMDYN: managed durable subscriptions
SYSTEM_NDURABLE_MODEL = "SYSTEM.NDURABLE.MODEL.QUEUE"  # TEMPDYN; name UNCERTAIN (§9.5)

# MQ's defaults for DEFINE QLOCAL / QMODEL (MAXDEPTH 5000, MAXMSGL 4 MB, DEFPSIST NO).
DEFAULT_MAX_DEPTH = 5000
DEFAULT_MAX_MSG_LENGTH = 4 * 1024 * 1024

# How publications lie on a subscriber queue's topic (issue 37; MQ's nearest is PROPCTL):
# "MQ", an MQRFH2 (or MQRFH) header before the publisher's data, as MQ programs expect;
# "KAFKA", the publisher's data alone, with the topic, properties and MQMD as record headers,
# for Kafka Connect, ksqlDB, Flink... MQINQ/MQSET/PCF say it as MQKIA_MSG_FORMAT.
MQ_FORMAT = "MQ"
KAFKA_FORMAT = "KAFKA"
MESSAGE_FORMATS = {C.MQKMF_MQ: MQ_FORMAT, C.MQKMF_KAFKA: KAFKA_FORMAT}

# Which definition types each queue type may have (reference §9.2, §9.5).
_ALLOWED_DEFINITION_TYPES = {
    # A model's DEFTYPE says what MQOPEN of it creates; SHAREDYN is z/OS queue-sharing-group
    # only (seed 004: temporary dynamic queues "cannot be shared queues"), so not emulated.
    C.MQQT_MODEL: (C.MQQDT_TEMPORARY_DYNAMIC, C.MQQDT_PERMANENT_DYNAMIC),
    C.MQQT_LOCAL: (C.MQQDT_PREDEFINED, C.MQQDT_PERMANENT_DYNAMIC, C.MQQDT_TEMPORARY_DYNAMIC),
}


def check_object_name(name: str, reason: int = RC.OBJECT_NAME_ERROR) -> str:
    """``name`` if it is a valid MQ object name, else ``MQError(reason)``."""
    if not 1 <= len(name) <= C.MQ_OBJECT_NAME_LENGTH:
        raise MQError(reason, f"object name must be 1-48 characters: {name!r}")
    bad = sorted(set(name) - OBJECT_NAME_CHARS)
    if bad:
        raise MQError(reason, f"object name {name!r} contains {''.join(bad)!r}")
    return name


@dataclass(frozen=True)
class QueueDefinition:
    """One queue (or model queue) as the catalogue holds it; validated when built.

    ``creator`` is the connection that created a dynamic queue (its liveness decides when a
    temporary one goes), ``created_by`` the user id it was created under, ``model`` the
    model queue it was created from, ``logically_deleted`` marks a queue whose deletion waits
    for its last user.
    """

    name: str
    queue_type: int = C.MQQT_LOCAL
    definition_type: int = C.MQQDT_PREDEFINED
    default_persistence: int = C.MQPER_NOT_PERSISTENT
    max_depth: int = DEFAULT_MAX_DEPTH
    max_msg_length: int = DEFAULT_MAX_MSG_LENGTH
    description: str = ""
    model: str | None = None
    creator: str | None = None
    created_by: str = ""
    # Seed 004: deleted while still in use, so every access but MQCLOSE fails with
    # MQRC_Q_DELETED until the last user closes it. Older readers ignore the field.
    logically_deleted: bool = False
    # MQSET's PUT(DISABLED) / GET(DISABLED): MQPUT fails with 2051, MQGET with 2016.
    inhibit_put: bool = False
    inhibit_get: bool = False
    message_format: str = MQ_FORMAT  # MQ_FORMAT or KAFKA_FORMAT; a model's, its queues'

    def __post_init__(self) -> None:
        check_object_name(self.name)
        if self.message_format not in (MQ_FORMAT, KAFKA_FORMAT):
            raise MQError(RC.OBJECT_DAMAGED, f"{self.name}: message format MQ or KAFKA")
        allowed = _ALLOWED_DEFINITION_TYPES.get(self.queue_type)
        if allowed is None:
            raise MQError(RC.Q_TYPE_ERROR, f"{self.name}: only local and model queues exist")
        if self.definition_type not in allowed:
            raise MQError(
                RC.Q_TYPE_ERROR,
                f"{self.name}: definition type {self.definition_type} not valid for queue "
                f"type {self.queue_type}",
            )
        if self.default_persistence not in (C.MQPER_NOT_PERSISTENT, C.MQPER_PERSISTENT):
            raise MQError(RC.PERSISTENCE_ERROR, f"{self.name}: DEFPSIST must be 0 or 1")
        if self.max_depth < 0 or self.max_msg_length < 0:
            raise MQError(RC.OBJECT_DAMAGED, f"{self.name}: negative MAXDEPTH or MAXMSGL")
        if self.is_dynamic and not self.creator:
            raise MQError(RC.OBJECT_DAMAGED, f"{self.name}: a dynamic queue needs its creator")
        if self.model is not None:
            check_object_name(self.model)

    @property
    def kafka_native(self) -> bool:
        return self.message_format == KAFKA_FORMAT

    @property
    def is_model(self) -> bool:
        return self.queue_type == C.MQQT_MODEL

    @property
    def is_dynamic(self) -> bool:
        return self.queue_type == C.MQQT_LOCAL and self.definition_type in (
            C.MQQDT_TEMPORARY_DYNAMIC,
            C.MQQDT_PERMANENT_DYNAMIC,
        )

    @property
    def is_temporary_dynamic(self) -> bool:
        return self.is_dynamic and self.definition_type == C.MQQDT_TEMPORARY_DYNAMIC

    @property
    def is_permanent_dynamic(self) -> bool:
        return self.is_dynamic and self.definition_type == C.MQQDT_PERMANENT_DYNAMIC

    def encode(self) -> bytes:
        """Stable bytes: sorted keys, no blanks, UTF-8; equal definitions, equal bytes."""
        body = {
            "schema": SCHEMA,
            **{
                name: getattr(self, name)
                for name in _FIELD_NAMES
                if _OMITTED_AT.get(name, _ALWAYS) != getattr(self, name)
            },
        }
        return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()

    @classmethod
    def decode(cls, value: bytes) -> QueueDefinition:
        """The definition in ``value``; ``MQRC_OBJECT_DAMAGED`` if it is not one.

        Fields a newer writer added are ignored, so old readers keep working.
        """
        try:
            body = json.loads(value)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise MQError(RC.OBJECT_DAMAGED, f"catalogue record is not JSON: {exc}") from None
        if not isinstance(body, dict) or body.get("schema") != SCHEMA:
            raise MQError(RC.OBJECT_DAMAGED, "catalogue record has no known schema")
        known = {f.name: f.type for f in fields(cls)}
        values: dict[str, Any] = {k: v for k, v in body.items() if k in known}
        for name, annotation in known.items():
            if name in values and not _fits(values[name], str(annotation)):
                raise MQError(RC.OBJECT_DAMAGED, f"catalogue field {name} has a wrong type")
        if "name" not in values:
            raise MQError(RC.OBJECT_DAMAGED, "catalogue record without a name")
        try:
            return cls(**values)
        except MQError as exc:  # a record no valid definition could have written
            raise MQError(RC.OBJECT_DAMAGED, f"catalogue record: {exc.detail}") from exc


_FIELD_NAMES = tuple(f.name for f in fields(QueueDefinition))
# Written only when not these, so a queue never altered keeps the bytes it always had.
_ALWAYS = object()
_OMITTED_AT: dict[str, object] = {
    "inhibit_put": False,
    "inhibit_get": False,
    "message_format": MQ_FORMAT,
}


def _fits(value: object, annotation: str) -> bool:
    if annotation == "bool":
        return isinstance(value, bool)
    if annotation == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if annotation == "str":
        return isinstance(value, str)
    return value is None or isinstance(value, str)  # "str | None"


@dataclass(frozen=True)
class CatalogueRecord:
    """One record of the catalogue topic: key = queue name, value = definition or tombstone."""

    key: bytes
    value: bytes | None

    @property
    def name(self) -> str:
        return self.key.decode()

    @classmethod
    def put(cls, definition: QueueDefinition) -> CatalogueRecord:
        return cls(definition.name.encode(), definition.encode())

    @classmethod
    def delete(cls, name: str) -> CatalogueRecord:
        return cls(name.encode(), None)


def _system_local(name: str, description: str) -> QueueDefinition:
    return QueueDefinition(name, description=description)


def _model(name: str, definition_type: int, description: str) -> QueueDefinition:
    return QueueDefinition(
        name, C.MQQT_MODEL, definition_type, C.MQPER_NOT_PERSISTENT, description=description
    )


SYSTEM_DEFINITIONS: tuple[QueueDefinition, ...] = (
    _model(SYSTEM_DEFAULT_MODEL, C.MQQDT_TEMPORARY_DYNAMIC, "default model: temporary dynamic"),
    _model(SYSTEM_PERMANENT_MODEL, C.MQQDT_PERMANENT_DYNAMIC, "default permanent model"),
    _model(SYSTEM_DURABLE_MODEL, C.MQQDT_PERMANENT_DYNAMIC, "managed durable subscriptions"),
    _model(SYSTEM_NDURABLE_MODEL, C.MQQDT_TEMPORARY_DYNAMIC, "managed non-durable subs"),
    _system_local("SYSTEM.DEFAULT.LOCAL.QUEUE", "default local queue"),
    _system_local("SYSTEM.BROKER.CONTROL.QUEUE", "subscription commands"),
    _system_local("SYSTEM.BROKER.DEFAULT.STREAM", "default stream queue"),
    _system_local("SYSTEM.BROKER.ADMIN.STREAM", "broker metatopic publications"),
    _system_local("SYSTEM.DEAD.LETTER.QUEUE", "undeliverable messages"),
)


class Catalogue:
    """Queue definitions by name, built by applying catalogue records in topic order."""

    def __init__(self, definitions: Iterable[QueueDefinition] = ()) -> None:
        self._by_name: dict[str, QueueDefinition] = {d.name: d for d in definitions}
        self.changes = 0  # records applied: a reader can tell whether anything changed

    @classmethod
    def with_system_objects(cls) -> Catalogue:
        return cls(SYSTEM_DEFINITIONS)

    @classmethod
    def replay(cls, records: Iterable[CatalogueRecord], base: Catalogue | None = None) -> Catalogue:
        catalogue = cls(base.definitions() if base else ())
        for record in records:
            catalogue.apply(record)
        return catalogue

    def apply(self, record: CatalogueRecord) -> None:
        """Put or (tombstone) delete; a record whose key is not its name is damaged."""
        self.changes += 1
        if record.value is None:
            self._by_name.pop(record.name, None)
            return
        definition = QueueDefinition.decode(record.value)
        if definition.name != record.name:
            raise MQError(RC.OBJECT_DAMAGED, f"record key {record.name!r} names another queue")
        self._by_name[definition.name] = definition

    def get(self, name: str) -> QueueDefinition | None:
        return self._by_name.get(name)

    def lookup(self, name: str) -> QueueDefinition:
        """The definition, or ``MQRC_UNKNOWN_OBJECT_NAME`` (2085) as MQOPEN answers."""
        definition = self._by_name.get(name)
        if definition is None:
            raise MQError(RC.UNKNOWN_OBJECT_NAME, f"no queue {name!r}")
        return definition

    def definitions(self) -> list[QueueDefinition]:
        return [self._by_name[name] for name in sorted(self._by_name)]

    def temporary_dynamic_names(self) -> list[str]:
        """The temporary dynamic queues. Safe while the replica's thread applies records: the
        values are copied in one step (under the GIL), not looked up name by name."""
        return [d.name for d in list(self._by_name.values()) if d.is_temporary_dynamic]

    def kafka_native_names(self) -> frozenset[str]:
        """The queues whose publications are the publisher's data alone (``KAFKA_FORMAT``).
        Copied in one step, as ``temporary_dynamic_names``."""
        return frozenset(d.name for d in list(self._by_name.values()) if d.kafka_native)

    def created_by_connection(self, connection: str) -> list[QueueDefinition]:
        return [d for d in self.definitions() if d.creator == connection]

    def deletions_at_qmgr_start(self) -> list[CatalogueRecord]:
        """Seed 004: temporary dynamic queues "are deleted when the queue manager is started"."""
        return [
            CatalogueRecord.delete(d.name) for d in self.definitions() if d.is_temporary_dynamic
        ]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._by_name))

    def __len__(self) -> int:
        return len(self._by_name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Catalogue) and self._by_name == other._by_name

    __hash__ = None  # type: ignore[assignment]  # mutable


__all__ = [
    "CATALOGUE_TOPIC",
    "KAFKA_FORMAT",
    "MESSAGE_FORMATS",
    "MQ_FORMAT",
    "SYSTEM_DEFAULT_MODEL",
    "SYSTEM_DEFINITIONS",
    "SYSTEM_DURABLE_MODEL",
    "SYSTEM_NDURABLE_MODEL",
    "SYSTEM_PERMANENT_MODEL",
    "Catalogue",
    "CatalogueRecord",
    "QueueDefinition",
    "check_object_name",
]
