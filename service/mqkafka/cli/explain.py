"""An MQ reason code as the one line mqk prints: the object it is about, the reason by name
and number, and what to do about it; and the exit code it ends with.

    mqk: queue NO.SUCH.QUEUE is not defined (MQRC_UNKNOWN_OBJECT_NAME 2085); define it with
    mqk queue define NO.SUCH.QUEUE

Pure: a table from reason to wording, so every command words a reason alike.
"""

from __future__ import annotations

from mqkafka.cli.output import EXIT_EMPTY, EXIT_ERROR, EXIT_NOT_FOUND, EXIT_REFUSED
from mqkafka.mq.reasons import RC, name_of

# reason → (what is true of the queue, what to do; {q} is the queue's name), exit code
_QUEUE_REASONS: dict[int, tuple[str, str, int]] = {
    RC.UNKNOWN_OBJECT_NAME: (
        "queue {q} is not defined", "define it with mqk queue define {q}", EXIT_NOT_FOUND
    ),
    RC.OBJECT_ALREADY_EXISTS: (
        "queue {q} is already defined",
        "change it with mqk queue alter {q}, or define it again with --replace",
        EXIT_REFUSED,
    ),
    RC.Q_NOT_EMPTY: (
        "queue {q} holds messages",
        "delete it with --purge, or empty it first with mqk queue clear {q}",
        EXIT_REFUSED,
    ),
    RC.OBJECT_IN_USE: (
        "queue {q} is open in a program (or holds its uncommitted work)",
        "try again once the program has closed it",
        EXIT_REFUSED,
    ),
    RC.OBJECT_NAME_ERROR: (
        "{q} is not a queue name",
        "a name is 1 to 48 of A-Z a-z 0-9 . / _ %",
        EXIT_ERROR,
    ),
    RC.PUT_INHIBITED: (
        "queue {q} is put-inhibited", "allow puts with mqk queue alter {q} --put enabled",
        EXIT_REFUSED,
    ),
    RC.GET_INHIBITED: (
        "queue {q} is get-inhibited", "allow gets with mqk queue alter {q} --get enabled",
        EXIT_REFUSED,
    ),
    RC.Q_FULL: (
        "queue {q} is full (its MAXDEPTH)",
        "take messages off it, or raise it with mqk queue alter {q} --max-depth N",
        EXIT_REFUSED,
    ),
    RC.MSG_TOO_BIG_FOR_Q: (
        "the message is longer than queue {q}'s MAXMSGL",
        "raise it with mqk queue alter {q} --max-message-length N",
        EXIT_REFUSED,
    ),
    RC.Q_DELETED: ("queue {q} was deleted while in use", "define it again", EXIT_REFUSED),
    RC.NO_MSG_AVAILABLE: ("queue {q} is empty", "", EXIT_EMPTY),
    RC.NOT_AUTHORIZED: (
        "not authorized for queue {q}", "ask the Kafka administrator for its ACLs", EXIT_REFUSED
    ),
    RC.CONNECTION_BROKEN: ("Kafka did not answer for queue {q}", "", EXIT_ERROR),
}  # fmt: skip


def queue_failure(reason: int, queue: str, detail: str = "") -> tuple[str, int]:
    """The line (without ``mqk: ``) and exit code for ``reason`` met on ``queue``."""
    code = f"{name_of(reason)} {reason}"
    known = _QUEUE_REASONS.get(reason)
    if known is None:
        why = f": {detail}" if detail else ""
        return f"queue {queue}: {code}{why}", EXIT_REFUSED
    fact, advice, exit_code = known
    line = f"{fact.format(q=queue)} ({code})"
    if advice:
        line += f"; {advice.format(q=queue)}"
    elif detail and reason not in (RC.NO_MSG_AVAILABLE,):
        line += f": {detail}"
    return line, exit_code


__all__ = ["queue_failure"]
