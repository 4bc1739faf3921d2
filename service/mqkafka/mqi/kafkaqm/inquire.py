"""MQINQ of the queue manager and of queues, MQSET of queues (pymqi's ``inquire``/``set``).

As pymqi returns them: an integer attribute is an ``int``, a character attribute ``bytes``
of MQ's fixed length, blank-padded (programs ``.strip()`` it). A selector the object does
not have is MQRC_SELECTOR_ERROR (2067); one that belongs to the other object type (a queue
attribute asked of the queue manager) is MQRC_SELECTOR_NOT_FOR_TYPE (2068).

MQSET changes what the queue catalogue holds, so every connection sees it: only
MQIA_INHIBIT_PUT and MQIA_INHIBIT_GET are settable here (no triggering exists to set);
a value other than MQQA_*_ALLOWED / MQQA_*_INHIBITED is MQRC_INHIBIT_VALUE_ERROR (2020).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm.connection import Connection
from mqkafka.mqi.kafkaqm.handle import INPUT, Handle
from mqkafka.mqi.kafkaqm.putlimits import QMGR_MAX_MSG_LENGTH
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.catalogue import MESSAGE_FORMATS, QueueDefinition
from mqkafka.mqi.rules.errors import MQMIError, failed

Value = int | bytes

QMGR_DESCRIPTION = "mqkafka: IBM MQ queued publish/subscribe on Kafka"
COMMAND_INPUT_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"
DEAD_LETTER_QUEUE = "SYSTEM.DEAD.LETTER.QUEUE"  # the broker service's default (config.py)
VERSION = "09040000"  # VRMF of the MQ level emulated (command level 940)


def padded(value: str, length: int) -> bytes:
    """A character attribute as MQINQ returns it: ``length`` bytes, blank-padded."""
    return value.encode()[:length].ljust(length, b" ")


def qmgr_attributes(conn: Connection) -> dict[int, Callable[[], Value]]:
    name = conn.settings.qmgr_name
    return {
        C.MQCA_Q_MGR_NAME: lambda: padded(name, C.MQ_Q_MGR_NAME_LENGTH),
        C.MQCA_Q_MGR_DESC: lambda: padded(QMGR_DESCRIPTION, C.MQ_Q_MGR_DESC_LENGTH),
        C.MQCA_Q_MGR_IDENTIFIER: lambda: padded(
            f"{name}_{conn.settings.namespace or 'default'}", C.MQ_Q_MGR_IDENTIFIER_LENGTH
        ),
        C.MQCA_COMMAND_INPUT_Q_NAME: lambda: padded(COMMAND_INPUT_QUEUE, C.MQ_Q_NAME_LENGTH),
        C.MQCA_DEAD_LETTER_Q_NAME: lambda: padded(DEAD_LETTER_QUEUE, C.MQ_Q_NAME_LENGTH),
        C.MQCA_VERSION: lambda: padded(VERSION, C.MQ_VERSION_LENGTH),
        C.MQIA_PLATFORM: lambda: C.MQPL_UNIX,
        C.MQIA_COMMAND_LEVEL: lambda: C.MQCMDL_CURRENT_LEVEL,
        C.MQIA_CODED_CHAR_SET_ID: lambda: C.MQCCSI_UTF8,
        C.MQIA_MAX_PRIORITY: lambda: 9,
        C.MQIA_MAX_MSG_LENGTH: lambda: QMGR_MAX_MSG_LENGTH,  # what MQPUT enforces
        C.MQIA_MAX_HANDLES: lambda: 256,
        C.MQIA_MAX_UNCOMMITTED_MSGS: lambda: 10000,
        C.MQIA_SYNCPOINT: lambda: C.MQSP_AVAILABLE,
        C.MQIA_DIST_LISTS: lambda: C.MQDL_NOT_SUPPORTED,
        C.MQIA_PUBSUB_MODE: lambda: C.MQPSM_ENABLED,
        C.MQIA_TRIGGER_INTERVAL: lambda: 999999999,
    }


def _open_counts(conn: Connection, name: str) -> tuple[int, int]:
    """(input, output) handles on ``name``: this connection's exactly; another's input
    handles from its heartbeat, and the rest of its handles counted as output."""
    own_in = own_out = 0
    for handle in list(conn.handles.values()):
        if handle.name == name:
            own_in += bool(handle.options & INPUT)
            own_out += bool(handle.options & C.MQOO_OUTPUT)
    others_in = others_out = 0
    for _, use in conn.replica.connections.uses(name, exclude=conn.id):
        inputs = use.input_exclusive + use.input_shared
        others_in += inputs
        others_out += max(use.handles - inputs, 0)
    return own_in + others_in, own_out + others_out


def queue_attributes(
    conn: Connection, handle: Handle, definition: QueueDefinition
) -> dict[int, Callable[[], Value]]:
    blank48 = padded("", C.MQ_Q_NAME_LENGTH)
    return {
        C.MQCA_Q_NAME: lambda: padded(definition.name, C.MQ_Q_NAME_LENGTH),
        C.MQCA_Q_DESC: lambda: padded(definition.description, C.MQ_Q_DESC_LENGTH),
        C.MQCA_BACKOUT_REQ_Q_NAME: lambda: blank48,
        C.MQCA_INITIATION_Q_NAME: lambda: blank48,
        C.MQCA_PROCESS_NAME: lambda: padded("", C.MQ_PROCESS_NAME_LENGTH),
        C.MQCA_TRIGGER_DATA: lambda: padded("", C.MQ_TRIGGER_DATA_LENGTH),
        C.MQIA_Q_TYPE: lambda: definition.queue_type,
        C.MQIA_DEFINITION_TYPE: lambda: definition.definition_type,
        C.MQIA_DEF_PERSISTENCE: lambda: definition.default_persistence,
        C.MQIA_DEF_PRIORITY: lambda: 0,
        C.MQIA_MAX_MSG_LENGTH: lambda: definition.max_msg_length,
        C.MQIA_MAX_Q_DEPTH: lambda: definition.max_depth,
        C.MQIA_CURRENT_Q_DEPTH: lambda: _depth(conn, handle),
        C.MQIA_INHIBIT_PUT: lambda: int(definition.inhibit_put),
        C.MQIA_INHIBIT_GET: lambda: int(definition.inhibit_get),
        C.MQIA_OPEN_INPUT_COUNT: lambda: _open_counts(conn, definition.name)[0],
        C.MQIA_OPEN_OUTPUT_COUNT: lambda: _open_counts(conn, definition.name)[1],
        C.MQIA_SHAREABILITY: lambda: C.MQQA_SHAREABLE,
        C.MQIA_DEF_INPUT_OPEN_OPTION: lambda: C.MQOO_INPUT_SHARED,
        # Kafka hands a queue's messages out in the order they were put.
        C.MQIA_MSG_DELIVERY_SEQUENCE: lambda: C.MQMDS_FIFO,
        # Kafka counts deliveries in the broker, so a backout count survives a restart.
        C.MQIA_HARDEN_GET_BACKOUT: lambda: C.MQQA_BACKOUT_HARDENED,
        C.MQIA_BACKOUT_THRESHOLD: lambda: 0,
        C.MQIA_USAGE: lambda: C.MQUS_NORMAL,
        C.MQIA_TRIGGER_CONTROL: lambda: C.MQTC_OFF,
        C.MQIA_TRIGGER_TYPE: lambda: C.MQTT_FIRST,
        C.MQIA_TRIGGER_DEPTH: lambda: 1,
        C.MQIA_TRIGGER_MSG_PRIORITY: lambda: 0,
        C.MQIA_RETENTION_INTERVAL: lambda: 999999999,
        C.MQIA_DIST_LISTS: lambda: C.MQDL_NOT_SUPPORTED,
        C.MQKIA_MSG_FORMAT: lambda: _format_value(definition),
    }


def _format_value(definition: QueueDefinition) -> int:
    """The queue's message format as MQKIA_MSG_FORMAT says it (issue 37)."""
    return C.MQKMF_KAFKA if definition.kafka_native else C.MQKMF_MQ


def _depth(conn: Connection, handle: Handle) -> int:
    return conn.current_depth(handle.name, handle.topic, handle.group)


# Selectors of each object type, for MQRC_SELECTOR_NOT_FOR_TYPE (names only: no connection).
_QMGR_ONLY = frozenset(
    {
        C.MQCA_Q_MGR_DESC,
        C.MQCA_Q_MGR_IDENTIFIER,
        C.MQCA_COMMAND_INPUT_Q_NAME,
        C.MQCA_DEAD_LETTER_Q_NAME,
        C.MQCA_VERSION,
        C.MQIA_PLATFORM,
        C.MQIA_COMMAND_LEVEL,
        C.MQIA_CODED_CHAR_SET_ID,
        C.MQIA_MAX_PRIORITY,
        C.MQIA_MAX_HANDLES,
        C.MQIA_MAX_UNCOMMITTED_MSGS,
        C.MQIA_SYNCPOINT,
        C.MQIA_PUBSUB_MODE,
        C.MQIA_TRIGGER_INTERVAL,
    }
)
_QUEUE_ONLY = frozenset(
    {
        C.MQCA_Q_NAME,
        C.MQCA_Q_DESC,
        C.MQCA_BACKOUT_REQ_Q_NAME,
        C.MQCA_INITIATION_Q_NAME,
        C.MQCA_PROCESS_NAME,
        C.MQCA_TRIGGER_DATA,
        C.MQIA_Q_TYPE,
        C.MQIA_DEFINITION_TYPE,
        C.MQIA_DEF_PERSISTENCE,
        C.MQIA_DEF_PRIORITY,
        C.MQIA_MAX_Q_DEPTH,
        C.MQIA_CURRENT_Q_DEPTH,
        C.MQIA_INHIBIT_PUT,
        C.MQIA_INHIBIT_GET,
        C.MQIA_OPEN_INPUT_COUNT,
        C.MQIA_OPEN_OUTPUT_COUNT,
        C.MQIA_SHAREABILITY,
        C.MQIA_DEF_INPUT_OPEN_OPTION,
        C.MQIA_MSG_DELIVERY_SEQUENCE,
        C.MQIA_HARDEN_GET_BACKOUT,
        C.MQIA_BACKOUT_THRESHOLD,
        C.MQIA_USAGE,
        C.MQIA_TRIGGER_CONTROL,
        C.MQIA_TRIGGER_TYPE,
        C.MQIA_TRIGGER_DEPTH,
        C.MQIA_TRIGGER_MSG_PRIORITY,
        C.MQIA_RETENTION_INTERVAL,
        C.MQKIA_MSG_FORMAT,
    }
)


def answer(
    table: dict[int, Callable[[], Value]], selector: int, other_type: frozenset[int]
) -> Value:
    """The attribute ``selector`` from ``table``, or MQ's reason for asking it."""
    if not isinstance(selector, int) or isinstance(selector, bool):
        raise failed(RC.SELECTOR_ERROR, f"attribute selector {selector!r} is not an int")
    found = table.get(selector)
    if found is not None:
        return found()
    if selector in other_type:
        raise MQMIError(C.MQCC_WARNING, RC.SELECTOR_NOT_FOR_TYPE, f"selector {selector}")
    raise failed(RC.SELECTOR_ERROR, f"attribute selector {selector}")


def inquire_qmgr(conn: Connection, selector: int) -> Value:
    conn.require()
    return answer(qmgr_attributes(conn), selector, _QUEUE_ONLY)


def _current(conn: Connection, handle: Handle) -> QueueDefinition:
    if not handle.open:
        raise failed(RC.HOBJ_ERROR, "the handle is closed")
    definition = conn.replica.catalogue.get(handle.name)
    if definition is None or definition.logically_deleted:
        raise failed(RC.Q_DELETED, f"{handle.name} has been deleted")
    return definition


def inquire_queue(conn: Connection, handle: Handle, selector: int) -> Value:
    """MQINQ: needs MQOO_INQUIRE (2038)."""
    conn.require()
    definition = _current(conn, handle)
    if not handle.options & C.MQOO_INQUIRE:
        raise failed(RC.NOT_OPEN_FOR_INQUIRE, f"{handle.name} is not open for inquire")
    return answer(queue_attributes(conn, handle, definition), selector, _QMGR_ONLY)


_SETTABLE = {
    C.MQIA_INHIBIT_PUT: ("inhibit_put", C.MQQA_PUT_ALLOWED, C.MQQA_PUT_INHIBITED),
    C.MQIA_INHIBIT_GET: ("inhibit_get", C.MQQA_GET_ALLOWED, C.MQQA_GET_INHIBITED),
}


def set_queue(conn: Connection, handle: Handle, selector: int, value: object) -> None:
    """MQSET: needs MQOO_SET (2040); the catalogue holds the new value for everyone."""
    conn.require()
    definition = _current(conn, handle)
    if not handle.options & C.MQOO_SET:
        raise failed(RC.NOT_OPEN_FOR_SET, f"{handle.name} is not open for set")
    if selector == C.MQKIA_MSG_FORMAT:
        _set_format(conn, handle, definition, value)
        return
    settable = _SETTABLE.get(selector) if isinstance(selector, int) else None
    if settable is None:
        raise failed(RC.SELECTOR_ERROR, f"attribute {selector!r} cannot be set here")
    field, allowed, inhibited = settable
    if isinstance(value, bool) or value not in (allowed, inhibited):
        raise failed(RC.INHIBIT_VALUE_ERROR, f"value {value!r} for attribute {selector}")
    conn.replica.sync()
    definition = conn.replica.lookup(handle.name) or definition
    on = value == inhibited
    if field == "inhibit_put":
        definition = replace(definition, inhibit_put=on)
    else:
        definition = replace(definition, inhibit_get=on)
    conn.replica.define(definition)
    conn.replica.sync()  # this connection's next MQPUT / MQGET sees it


def _set_format(
    conn: Connection, handle: Handle, definition: QueueDefinition, value: object
) -> None:
    """MQSET of MQKIA_MSG_FORMAT: MQKMF_MQ or MQKMF_KAFKA, else MQRC_INHIBIT_VALUE_ERROR
    (MQ's reason for an integer attribute value MQSET does not take)."""
    fmt = MESSAGE_FORMATS.get(value) if type(value) is int else None
    if fmt is None:
        raise failed(RC.INHIBIT_VALUE_ERROR, f"message format {value!r}: MQKMF_MQ or MQKMF_KAFKA")
    conn.replica.sync()
    definition = conn.replica.lookup(handle.name) or definition
    conn.replica.define(replace(definition, message_format=fmt))
    conn.replica.sync()


__all__ = ["inquire_qmgr", "inquire_queue", "padded", "set_queue"]
