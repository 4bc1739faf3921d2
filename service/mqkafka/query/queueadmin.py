"""Queue administration as runmqsc does it (DEFINE QLOCAL/QMODEL, ALTER, DELETE, CLEAR),
through the MQI's own queue catalogue: ``mqk queue define|alter|delete|clear``, ``mqk mqsc``
and the console all come here with a connected ``QueueManager``.

Attributes are given as ``QueueDefinition`` fields (``max_depth=10``); which attributes a
user may write, and how, is the CLI's table (``cli/queueadmin.py``). runmqsc's rules:

- DEFINE of a name that is defined is MQRC_OBJECT_ALREADY_EXISTS unless REPLACE, which
  makes the definition anew (attributes not given take their defaults, or LIKE's) and keeps
  the queue's messages; a local queue cannot replace a model queue or the other way round.
- DELETE of a queue that holds messages is MQRC_Q_NOT_EMPTY (2055) unless PURGE; of an
  open queue MQRC_OBJECT_IN_USE (2042).
- CLEAR of an open queue is MQRC_OBJECT_IN_USE.

Failures are the MQI's ``MQMIError`` (its ``reason``), as any MQI program would see them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from mqkafka.mq.reasons import RC
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.catalogue import QueueDefinition
from mqkafka.mqi.rules.errors import failed

# What a definition takes from LIKE (runmqsc copies every attribute but the name).
_LIKE_SKIPS = frozenset({"name", "creator", "created_by", "model", "logically_deleted"})
_DEFAULTS = {f.name: f.default for f in fields(QueueDefinition)}


def define_queue(
    qmgr: Any,
    name: str,
    changes: Mapping[str, Any],
    *,
    model: bool = False,
    partitions: int | None = None,
    replace: bool = False,
    like: str | None = None,
) -> str:
    """DEFINE QLOCAL / QMODEL (``model``); one line saying what was done."""
    queue_type = C.MQQT_MODEL if model else C.MQQT_LOCAL
    base: dict[str, Any] = {}
    if like is not None:
        template = qmgr.display_queue(like)
        if template is None:
            raise failed(RC.UNKNOWN_OBJECT_NAME, f"LIKE({like}): no such queue")
        if template.queue_type != queue_type:
            raise failed(RC.CF_Q_WRONG_TYPE, f"LIKE({like}) is not a {_kind(queue_type)} queue")
        base = {f: getattr(template, f) for f in _DEFAULTS if f not in _LIKE_SKIPS}
        if not model:
            base.pop("definition_type", None)  # a dynamic queue's LIKE defines a predefined one
    wanted = {**base, **changes, "queue_type": queue_type}
    if model:  # what MQOPEN of the model makes: temporary unless said (MQ's DEFTYPE default)
        wanted.setdefault("definition_type", C.MQQDT_TEMPORARY_DYNAMIC)
    existing = qmgr.display_queue(name)
    if existing is None:
        qmgr.define_queue(name, partitions=partitions, **wanted)
        return f"queue {name} defined ({_kind(queue_type)})"
    if not replace:
        raise failed(RC.OBJECT_ALREADY_EXISTS, f"{name} is defined")
    if existing.queue_type != queue_type:
        raise failed(
            RC.CF_Q_WRONG_TYPE, f"{name} is a {_kind(existing.queue_type)} queue: delete it first"
        )
    # REPLACE: the new definition whole (defaults where not given); the messages stay
    from mqkafka.mqi.kafkaqm.objectadmin import ALTERABLE_FIELDS

    anew = {f: wanted.get(f, _DEFAULTS[f]) for f in ALTERABLE_FIELDS}
    if model:
        anew["definition_type"] = wanted["definition_type"]
    qmgr.alter_queue(name, partitions=partitions, **anew)
    return f"queue {name} replaced ({_kind(queue_type)})"


def alter_queue(
    qmgr: Any,
    name: str,
    changes: Mapping[str, Any],
    *,
    partitions: int | None = None,
    model: bool | None = None,
) -> str:
    """ALTER; ``model`` says which it names (QLOCAL False, QMODEL True; None: either)."""
    _existing(qmgr, name, "ALTER", model)
    qmgr.alter_queue(name, partitions=partitions, **changes)
    return f"queue {name} altered"


def delete_queue(qmgr: Any, name: str, *, purge: bool = False, model: bool | None = None) -> str:
    _existing(qmgr, name, "DELETE", model)
    qmgr.delete_queue(name, purge=purge)
    return f"queue {name} deleted"


def clear_queue(qmgr: Any, name: str) -> str:
    _existing(qmgr, name, "CLEAR", False)
    cleared = qmgr.clear_queue(name)
    return f"queue {name} cleared ({cleared} message(s) discarded)"


def _existing(qmgr: Any, name: str, verb: str, model: bool | None) -> QueueDefinition:
    """The queue's definition; none is 2085, and a local queue named as a model (or the
    other way round) is the wrong type, as runmqsc's ALTER QLOCAL of a QMODEL is."""
    definition: QueueDefinition | None = qmgr.display_queue(name)
    if definition is None:
        raise failed(RC.UNKNOWN_OBJECT_NAME, f"{verb}: no queue {name}")
    if model is not None and definition.is_model != model:
        raise failed(
            RC.CF_Q_WRONG_TYPE, f"{name} is a {_kind(definition.queue_type)} queue, not a "
            f"{_kind(C.MQQT_MODEL if model else C.MQQT_LOCAL)} one",
        )  # fmt: skip
    return definition


def _kind(queue_type: int) -> str:
    return "model" if queue_type == C.MQQT_MODEL else "local"


def connect(config: Any, namespace: str = "", qmgr: str = "QM1") -> Any:
    """A queue manager connection for administration (the caller disconnects it)."""
    import mqkafka.mqi as pymqi

    return pymqi.connect(
        qmgr, bootstrap_servers=config.bootstrap, kafka_config=dict(config.settings),
        **({"namespace": namespace} if namespace else {}),
    )  # fmt: skip


__all__ = ["alter_queue", "clear_queue", "connect", "define_queue", "delete_queue"]
