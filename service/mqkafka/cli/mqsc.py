"""``mqk mqsc [FILE]``: a runmqsc command script (stdin without FILE) applied to the emulator,
so a queue manager's setup script provisions it.

What is applied: DEFINE QLOCAL / QMODEL (LIKE, REPLACE / NOREPLACE), ALTER QLOCAL / QMODEL,
DELETE QLOCAL / QMODEL (PURGE / NOPURGE), CLEAR QLOCAL, and DISPLAY QLOCAL / QMODEL / QUEUE,
QSTATUS and SUB; END ends the script. Every other command (channels, listeners, remote and
alias queues, authorities, ...) is named with its line number and skipped, and so is an
attribute the emulator does not keep (BOQNAME, TRIGGER, ...), with the command still
applied. Each command prints one line, ``line N: what was done`` or why not.

Exit code: 0 when every command read was applied or skipped as unsupported (``--strict``:
any skipped is 1), 1 when one was refused or could not be read, 2 when nothing could run.
``--check`` reads and plans the script without applying it (runmqsc -v).

:func:`plan` is pure (a parsed command → a :class:`Step`); :func:`apply` carries steps out.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqkafka.cli.common import UserError, add_bootstrap, client_of
from mqkafka.cli.mqscparse import MqscCommand, MqscError, parse_script
from mqkafka.cli.output import EXIT_OK, EXIT_REFUSED, note
from mqkafka.cli.queueadmin import BY_MQSC, QUEUE_ATTRIBUTES, split_attributes

QUEUE_TYPES = {"QLOCAL": False, "QMODEL": True}  # → model
DISPLAY_QUEUES = {"QLOCAL": "local", "QMODEL": "model", "QUEUE": None}


@dataclass(frozen=True)
class Step:
    """One command as something to do: ``action`` is define, alter, delete, clear,
    display-queue, display-status, display-sub, end, unsupported or error."""

    line: int
    text: str
    action: str
    name: str = ""
    values: dict[str, Any] = field(default_factory=dict)
    model: bool = False
    replace: bool = False
    like: str | None = None
    purge: bool = False
    kind: str | None = None  # display-queue: local | model | None (both)
    ignored: tuple[str, ...] = ()  # keywords the emulator does not keep
    why: str = ""  # unsupported / error: why


def plan(command: MqscCommand | MqscError) -> Step:
    if isinstance(command, MqscError):
        return Step(command.line, command.text, "error", why=command.message)
    line, text, verb, kind = command.line, command.text, command.verb, command.object_type
    if verb == "END":
        return Step(line, text, "end")
    action = _ACTIONS.get((verb, kind))
    if action is None:
        what = f"{verb} {kind}".strip()
        return Step(line, text, "unsupported", why=f"{what} is not emulated")
    if not command.name:
        return Step(line, text, "error", why=f"{verb} {kind} names no object: {kind}(NAME)")
    try:
        return action(command)
    except ValueError as problem:
        return Step(line, text, "error", name=command.name, why=str(problem))


def _definition(command: MqscCommand) -> Step:
    model = QUEUE_TYPES[command.object_type]
    define = command.verb == "DEFINE"
    values: dict[str, Any] = {}
    ignored: list[str] = []
    replace, like = False, None
    for keyword, value in command.keywords:
        if define and keyword in ("REPLACE", "NOREPLACE"):
            replace = keyword == "REPLACE"
        elif define and keyword == "LIKE":
            like = _required(keyword, value)
        elif keyword in BY_MQSC:
            attribute = BY_MQSC[keyword]
            if attribute.applies == ("local" if model else "model"):
                raise ValueError(f"{keyword} does not apply to {command.object_type}")
            try:
                values[attribute.field] = attribute.parse(_required(keyword, value))
            except ValueError as error:
                raise ValueError(f"{keyword}: {error}") from None
        else:
            ignored.append(keyword)
    return Step(
        command.line, command.text, "define" if define else "alter", command.name or "",
        values, model, replace, like, ignored=tuple(ignored),
    )  # fmt: skip


def _required(keyword: str, value: str | None) -> str:
    if value is None:
        raise ValueError(f"{keyword} needs a value: {keyword}(...)")
    return value


def _delete(command: MqscCommand) -> Step:
    purge = command.has("PURGE")
    ignored = tuple(k for k, _ in command.keywords if k not in ("PURGE", "NOPURGE"))
    return Step(
        command.line, command.text, "delete", command.name or "", purge=purge, ignored=ignored,
        model=QUEUE_TYPES[command.object_type],
    )  # fmt: skip


def _clear(command: MqscCommand) -> Step:
    ignored = tuple(k for k, _ in command.keywords)
    return Step(command.line, command.text, "clear", command.name or "", ignored=ignored)


def _display(action: str) -> Callable[[MqscCommand], Step]:
    def display(command: MqscCommand) -> Step:
        kind = DISPLAY_QUEUES.get(command.object_type)
        # DISPLAY's attribute names only choose columns; WHERE would filter: not emulated
        ignored = tuple(k for k, _ in command.keywords if k == "WHERE")
        return Step(
            command.line, command.text, action, command.name or "", kind=kind, ignored=ignored
        )

    return display


_ACTIONS: dict[tuple[str, str], Callable[[MqscCommand], Step]] = {
    ("DEFINE", "QLOCAL"): _definition,
    ("DEFINE", "QMODEL"): _definition,
    ("ALTER", "QLOCAL"): _definition,
    ("ALTER", "QMODEL"): _definition,
    ("DELETE", "QLOCAL"): _delete,
    ("DELETE", "QMODEL"): _delete,
    ("CLEAR", "QLOCAL"): _clear,
    ("DISPLAY", "QLOCAL"): _display("display-queue"),
    ("DISPLAY", "QMODEL"): _display("display-queue"),
    ("DISPLAY", "QUEUE"): _display("display-queue"),
    ("DISPLAY", "QSTATUS"): _display("display-status"),
    ("DISPLAY", "SUB"): _display("display-sub"),
}


def plan_script(text: str) -> list[Step]:
    steps = []
    for command in parse_script(text):
        step = plan(command)
        steps.append(step)
        if step.action == "end":
            break
    return steps


# ---- carrying steps out ------------------------------------------------------------------


@dataclass
class Tally:
    applied: int = 0
    unsupported: int = 0
    failed: int = 0

    def summary(self) -> str:
        return (
            f"{self.applied + self.unsupported + self.failed} command(s) read: "
            f"{self.applied} applied, {self.unsupported} not supported, {self.failed} failed"
        )


def register(sub: Any) -> None:
    mqsc = sub.add_parser(
        "mqsc",
        help="apply a runmqsc script: DEFINE/ALTER/DELETE/CLEAR QLOCAL, DEFINE QMODEL, DISPLAY",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    mqsc.add_argument("file", nargs="?", type=Path, help="the script (default: stdin)")
    mqsc.add_argument("--check", action="store_true", help="read and plan only (runmqsc -v)")
    mqsc.add_argument("--strict", action="store_true", help="exit 1 if a command is skipped")
    mqsc.add_argument("--qmgr", default="QM1", help="the queue manager (QM1)")
    add_bootstrap(mqsc)
    mqsc.set_defaults(func=mqsc_cmd)


def mqsc_cmd(args: argparse.Namespace) -> int:
    try:
        text = args.file.read_text() if args.file else sys.stdin.read()
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"cannot read {args.file}: {error}") from None
    steps = plan_script(text)
    tally = Tally()
    if args.check:
        for step in steps:
            _say(step, _planned(step), tally)
    else:
        from mqkafka.query.queueadmin import connect

        config = client_of(args)
        qmgr = connect(config, args.namespace, args.qmgr)
        try:
            runner = Runner(qmgr, config, args.namespace)
            for step in steps:
                _say(step, runner.run(step), tally)
        finally:
            qmgr.disconnect()
    note(tally.summary())
    if tally.failed or (args.strict and tally.unsupported):
        return EXIT_REFUSED
    return EXIT_OK


def _planned(step: Step) -> tuple[str, list[str]]:
    if step.action in ("unsupported", "error", "end"):
        return step.action, []
    return "applied", [f"would {step.action} {step.name}"]


def _say(step: Step, outcome: tuple[str, list[str]], tally: Tally) -> None:
    """One line for the command (and DISPLAY's lines under it); counted in ``tally``."""
    status, lines = outcome
    head = f"line {step.line}: {step.text}"
    if step.action == "end":
        return
    if step.action == "unsupported":
        tally.unsupported += 1
        print(f"{head}: not supported ({step.why}); skipped")
        return
    if status == "failed" or step.action == "error":
        tally.failed += 1
        print(f"{head}: {step.why or (lines[0] if lines else 'failed')}")
        return
    tally.applied += 1
    first, rest = (lines[0], lines[1:]) if lines else ("done", [])
    if step.ignored:
        first += f"; {', '.join(step.ignored)} not emulated, ignored"
    print(f"{head}: {first}")
    for extra in rest:
        print(f"  {extra}")


class Runner:
    """Carries steps out on one queue manager connection."""

    def __init__(self, qmgr: Any, config: Any, namespace: str) -> None:
        self.qmgr, self.config, self.namespace = qmgr, config, namespace

    def run(self, step: Step) -> tuple[str, list[str]]:
        import mqkafka.mqi as pymqi
        from mqkafka.cli.explain import queue_failure
        from mqkafka.kafka.clients import KafkaEdgeError, KafkaException

        if step.action in ("unsupported", "error", "end"):
            return step.action, []
        try:
            return "applied", self._do(step)
        except pymqi.MQMIError as error:
            line, _ = queue_failure(error.reason, step.name, str(error.detail or ""))
            return "failed", [line]
        except (KafkaEdgeError, KafkaException) as error:  # the next command may still work
            return "failed", [str(error)]

    def _do(self, step: Step) -> list[str]:
        from mqkafka.query import queueadmin as admin

        changes, partitions = split_attributes(step.values)
        if step.action == "define":
            done = admin.define_queue(
                self.qmgr, step.name, changes, model=step.model, partitions=partitions,
                replace=step.replace, like=step.like,
            )  # fmt: skip
            return [done]
        if step.action == "alter":
            return [
                admin.alter_queue(
                    self.qmgr, step.name, changes, partitions=partitions, model=step.model
                )
            ]
        if step.action == "delete":
            return [admin.delete_queue(self.qmgr, step.name, purge=step.purge, model=step.model)]
        if step.action == "clear":
            return [admin.clear_queue(self.qmgr, step.name)]
        if step.action == "display-sub":
            return self._subscriptions(step.name)
        return self._queues(step)

    def _queues(self, step: Step) -> list[str]:
        import mqkafka.mqi as pymqi
        from mqkafka.mq.reasons import RC
        from mqkafka.mqi import CMQC
        from mqkafka.query.queues import QueueReader

        reader = QueueReader(self.config, self.namespace)
        try:
            views = [v for v in reader.list() if fnmatch.fnmatchcase(v.name, step.name)]
            definitions = reader.definitions()
        finally:
            reader.close()
        if step.action == "display-queue" and step.kind is not None:
            views = [v for v in views if (v.kind == "model") == (step.kind == "model")]
        if not views:
            raise pymqi.MQMIError(CMQC.MQCC_FAILED, RC.UNKNOWN_OBJECT_NAME, f"no {step.name}")
        lines = [f"{len(views)} queue(s)"]
        for v in views:
            if step.action == "display-status":
                lines.append(f"QUEUE({v.name}) TYPE(QUEUE) CURDEPTH({v.depth or 0}) "
                             f"IPPROCS({v.consumers})")  # fmt: skip
            else:
                qtype = "QMODEL" if v.kind == "model" else "QLOCAL"
                depth = "" if v.depth is None else f" CURDEPTH({v.depth})"
                shown = _attributes(definitions.get(v.name))
                lines.append(f"QUEUE({v.name}) TYPE({qtype}){depth} DESCR({v.description}){shown}")
        return lines

    def _subscriptions(self, pattern: str) -> list[str]:
        from mqkafka.query.state import subscriptions

        found = [s for s in subscriptions(self.config, self.namespace) if _sub_matches(s, pattern)]
        lines = [f"{len(found)} subscription(s)"]
        for s in found:
            lines.append(f"SUB({s.name or ''}) TOPICSTR({s.topic}) DEST({s.queue}) "
                         f"USERID({s.user_id})")  # fmt: skip
        return lines


def _attributes(definition: Any) -> str:
    """The definition's attributes as DISPLAY writes them (the table's, but DESCR)."""
    if definition is None:
        return ""
    shown = []
    for attribute in QUEUE_ATTRIBUTES:
        if attribute.mqsc in (None, "DESCR") or not hasattr(definition, attribute.field):
            continue
        if attribute.applies == ("local" if definition.is_model else "model"):
            continue
        shown.append(f" {attribute.mqsc}({attribute.show(getattr(definition, attribute.field))})")
    return "".join(shown)


def _sub_matches(view: Any, pattern: str) -> bool:
    return fnmatch.fnmatchcase(view.name or "", pattern) or (pattern == "*" and view.name is None)


def steps_text(steps: Iterable[Step]) -> list[str]:
    """What each step is, one line each (``line action name``): a plan at a glance."""
    return [f"{s.line} {s.action} {s.name}".rstrip() for s in steps]


__all__ = ["Step", "plan", "plan_script", "register", "steps_text"]
