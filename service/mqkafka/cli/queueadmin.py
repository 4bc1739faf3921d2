"""``mqk queue define|alter|delete|clear``: runmqsc's DEFINE QLOCAL / QMODEL, ALTER, DELETE
QLOCAL [PURGE] and CLEAR QLOCAL, through the MQI's queue catalogue (``query/queueadmin.py``).

A queue attribute is one row of :data:`QUEUE_ATTRIBUTES`: the ``QueueDefinition`` field it
sets, its runmqsc keyword (``mqk mqsc`` reads it), its mqk option (define and alter take it),
how the text a user writes becomes the value, how the value is shown, and its help. Adding an
attribute is adding a row.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mqkafka.cli.common import UserError, add_bootstrap, client_of
from mqkafka.cli.explain import queue_failure
from mqkafka.cli.output import EXIT_OK
from mqkafka.mqi import CMQC as C

PARTITIONS = "partitions"  # the one attribute that is the topic's, not the definition's
Q_DESC_LENGTH = 64  # MQ_Q_DESC_LENGTH


@dataclass(frozen=True)
class QueueAttribute:
    field: str  # the QueueDefinition field (PARTITIONS: the queue's topic)
    mqsc: str | None  # the runmqsc keyword; None: mqk's own (not in runmqsc)
    option: str  # mqk queue define/alter's option
    parse: Callable[[str], Any]  # the text a user writes -> the value (ValueError: refused)
    show: Callable[[Any], str]  # the value as runmqsc's DISPLAY writes it
    help: str
    applies: str = "both"  # local | model | both


def count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError(f"{text}: not a count")
    return value


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(f"{text}: at least 1")
    return value


def description(text: str) -> str:
    if len(text) > Q_DESC_LENGTH:
        raise ValueError(f"{len(text)} characters: at most {Q_DESC_LENGTH}")
    return text


def choice(words: Mapping[str, Any]) -> tuple[Callable[[str], Any], Callable[[Any], str]]:
    """A parse and show pair for a value named by words (case-insensitive; the first word of
    a value is how it is shown)."""

    def parse(text: str) -> Any:
        try:
            return words[text.upper()]
        except KeyError:
            raise ValueError(f"{text}: one of {', '.join(words)}") from None

    def show(value: Any) -> str:
        return next(word for word, v in words.items() if v == value)

    return parse, show


_YES_NO = choice({"YES": C.MQPER_PERSISTENT, "NO": C.MQPER_NOT_PERSISTENT})
_INHIBITED = choice({"DISABLED": True, "ENABLED": False})
_DEFTYPE = choice({
    "TEMPDYN": C.MQQDT_TEMPORARY_DYNAMIC, "PERMDYN": C.MQQDT_PERMANENT_DYNAMIC,
    "TEMPORARY": C.MQQDT_TEMPORARY_DYNAMIC, "PERMANENT": C.MQQDT_PERMANENT_DYNAMIC,
})  # fmt: skip
_FORMAT = choice({"MQ": "MQ", "KAFKA": "KAFKA"})  # the catalogue's message_format (issue 37)

QUEUE_ATTRIBUTES: tuple[QueueAttribute, ...] = (
    QueueAttribute("description", "DESCR", "--description", description, str,
                   "DESCR: what the queue is for (up to 64 characters)"),
    QueueAttribute("max_depth", "MAXDEPTH", "--max-depth", count, str,
                   "MAXDEPTH: the most messages it holds (5000)"),
    QueueAttribute("max_msg_length", "MAXMSGL", "--max-message-length", count, str,
                   "MAXMSGL: the longest message in bytes (4194304)"),
    QueueAttribute("default_persistence", "DEFPSIST", "--default-persistence", *_YES_NO,
                   "DEFPSIST: yes|no, MQPER_PERSISTENCE_AS_Q_DEF resolves to it (no)"),
    QueueAttribute("inhibit_put", "PUT", "--put", *_INHIBITED,
                   "PUT: enabled|disabled (MQPUT fails with 2051 while disabled)"),
    QueueAttribute("inhibit_get", "GET", "--get", *_INHIBITED,
                   "GET: enabled|disabled (MQGET fails with 2016 while disabled)"),
    QueueAttribute("definition_type", "DEFTYPE", "--definition-type", *_DEFTYPE,
                   "DEFTYPE of a model queue: temporary|permanent, what MQOPEN of it makes "
                   "(temporary)", applies="model"),
    QueueAttribute("message_format", None, "--message-format", *_FORMAT,
                   "mq|kafka: publications as MQ programs read them (an MQRFH2 before the "
                   "data), or as Kafka tools do (the data alone; topic, properties and MQMD "
                   "in record headers) (mq)"),
    QueueAttribute(PARTITIONS, None, "--partitions", positive, str,
                   "the queue's Kafka partitions (more may be added later, never fewer)",
                   applies="local"),
)  # fmt: skip
BY_FIELD = {a.field: a for a in QUEUE_ATTRIBUTES}
BY_MQSC = {a.mqsc: a for a in QUEUE_ATTRIBUTES if a.mqsc}


def split_attributes(values: Mapping[str, Any]) -> tuple[dict[str, Any], int | None]:
    """Field values → the definition's changes, and the partitions asked for (if any)."""
    changes = {k: v for k, v in values.items() if k != PARTITIONS}
    return changes, values.get(PARTITIONS)


def register_actions(queue_sub: Any) -> None:
    """define, alter, delete and clear under ``mqk queue``."""
    define = queue_sub.add_parser("define", help="DEFINE QLOCAL / QMODEL: a new queue")
    define.add_argument("queue")
    define.add_argument("--model", action="store_true", help="a model queue (DEFINE QMODEL)")
    define.add_argument("--like", metavar="QUEUE", help="LIKE: the attributes of this queue")
    define.add_argument(
        "--replace", action="store_true", help="REPLACE: define it anew if defined (keeps messages)"
    )
    _attribute_options(define)
    _common(define)
    define.set_defaults(func=define_cmd)

    alter = queue_sub.add_parser("alter", help="ALTER QLOCAL / QMODEL: change attributes")
    alter.add_argument("queue")
    _attribute_options(alter)
    _common(alter)
    alter.set_defaults(func=alter_cmd)

    delete = queue_sub.add_parser("delete", help="DELETE QLOCAL: refused if it holds messages")
    delete.add_argument("queue")
    delete.add_argument("--purge", action="store_true", help="PURGE: delete its messages too")
    _common(delete)
    delete.set_defaults(func=delete_cmd)

    clear = queue_sub.add_parser("clear", help="CLEAR QLOCAL: discard every message on it")
    clear.add_argument("queue")
    _common(clear)
    clear.set_defaults(func=clear_cmd)


def _attribute_options(parser: argparse.ArgumentParser) -> None:
    for attribute in QUEUE_ATTRIBUTES:
        parser.add_argument(
            attribute.option, dest=f"attr_{attribute.field}", metavar="VALUE",
            help=attribute.help,
        )  # fmt: skip


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--qmgr", default="QM1", help="the queue manager (QM1)")
    add_bootstrap(parser)


def attributes_of(args: argparse.Namespace, model: bool | None) -> dict[str, Any]:
    """The attributes given as options, parsed (a bad value is a UserError naming it)."""
    values: dict[str, Any] = {}
    for attribute in QUEUE_ATTRIBUTES:
        text = getattr(args, f"attr_{attribute.field}", None)
        if text is None:
            continue
        if model is not None and attribute.applies == ("local" if model else "model"):
            kind = "model" if model else "local"
            raise UserError(f"{attribute.option} does not apply to a {kind} queue")
        try:
            values[attribute.field] = attribute.parse(text)
        except ValueError as error:
            raise UserError(f"{attribute.option}: {error}") from None
    return values


def administer(args: argparse.Namespace, action: Callable[[Any], str]) -> int:
    """Run ``action(qmgr)`` on a connection; its line, or the failure named for the queue."""
    import mqkafka.mqi as pymqi
    from mqkafka.query.queueadmin import connect

    try:
        qmgr = connect(client_of(args), args.namespace, args.qmgr)
        try:
            done = action(qmgr)
        finally:
            qmgr.disconnect()
    except pymqi.MQMIError as error:
        line, exit_code = queue_failure(error.reason, args.queue, _detail(error))
        raise UserError(line, exit_code) from None
    print(done)
    return EXIT_OK


def _detail(error: Any) -> str:
    return str(getattr(error, "detail", "") or "")


def define_cmd(args: argparse.Namespace) -> int:
    from mqkafka.query.queueadmin import define_queue

    changes, partitions = split_attributes(attributes_of(args, args.model))
    return administer(
        args,
        lambda qmgr: define_queue(
            qmgr, args.queue, changes, model=args.model, partitions=partitions,
            replace=args.replace, like=args.like,
        ),
    )  # fmt: skip


def alter_cmd(args: argparse.Namespace) -> int:
    from mqkafka.query.queueadmin import alter_queue

    changes, partitions = split_attributes(attributes_of(args, None))
    if not changes and partitions is None:
        raise UserError("nothing to alter: give an attribute (mqk queue alter --help)")
    return administer(
        args, lambda qmgr: alter_queue(qmgr, args.queue, changes, partitions=partitions)
    )


def delete_cmd(args: argparse.Namespace) -> int:
    from mqkafka.query.queueadmin import delete_queue

    return administer(args, lambda qmgr: delete_queue(qmgr, args.queue, purge=args.purge))


def clear_cmd(args: argparse.Namespace) -> int:
    from mqkafka.query.queueadmin import clear_queue

    return administer(args, lambda qmgr: clear_queue(qmgr, args.queue))


__all__ = [
    "BY_FIELD",
    "BY_MQSC",
    "QUEUE_ATTRIBUTES",
    "QueueAttribute",
    "attributes_of",
    "register_actions",
    "split_attributes",
]
