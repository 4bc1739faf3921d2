"""How mqk prints what it read: tables that fit the terminal, the same rows as JSON for
scripts, and one message per problem.

Tables are ``rich`` tables without borders: on a terminal they fit its width (long ids wrap,
nothing is cut); into a pipe they keep their natural width, one row a line, so ``grep`` and
``awk`` see whole rows. A value that is not set prints as nothing, never "None".

Exit codes of every mqk command (``EXIT_*``):

| code | meaning |
|---|---|
| 0 | done (a broker warning included) |
| 1 | the broker or the queue manager refused: its reason code is printed |
| 2 | could not run: bad arguments, Kafka unreachable, no broker service answering |
| 3 | ``mqk kafka status``: the local broker is not running |
| 4 | nothing matched: no such queue, subscription or retained publication |
| 5 | the queue is empty: ``get`` or ``browse`` found no message (MQRC_NO_MSG_AVAILABLE) |
| 6 | the command message was put but no reply came: do not re-send, the service applies it |
| 130 | interrupted (Ctrl-C) |
| 141 | the reader of the output went away (``mqk ... | head -1``) |
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from io import StringIO
from typing import Any, TextIO

from rich import box
from rich.console import Console
from rich.table import Table

EXIT_OK, EXIT_REFUSED, EXIT_ERROR, EXIT_NOT_RUNNING, EXIT_NOT_FOUND = 0, 1, 2, 3, 4
EXIT_EMPTY, EXIT_NO_REPLY = 5, 6
EXIT_INTERRUPTED, EXIT_CLOSED_PIPE = 130, 141
# The table above, for ``mqk --help`` (its epilog) and the README.
EXIT_CODES = (
    (EXIT_OK, "done (a broker warning included)"),
    (EXIT_REFUSED, "the broker or the queue manager refused: its reason code is printed"),
    (EXIT_ERROR, "could not run: bad arguments, Kafka unreachable, no broker service running"),
    (EXIT_NOT_RUNNING, "mqk kafka status: the local broker is not running"),
    (EXIT_NOT_FOUND, "nothing matched: no such queue, subscription or retained publication"),
    (EXIT_EMPTY, "the queue is empty: get or browse found no message"),
    (EXIT_NO_REPLY, "put, but no reply came: the service applies it when it runs; do not re-send"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
    (EXIT_CLOSED_PIPE, "the reader of the output went away (mqk ... | head -1)"),
)
PIPE_WIDTH = 100_000  # a pipe has no width: rows are as wide as their values


@dataclass(frozen=True)
class Column:
    header: str
    wrap: bool = False  # a long value wraps on a terminal (ids, topics); others may be cut
    right: bool = False  # numbers


def cell(value: Any) -> str:
    """What a value prints as: nothing for None, lists joined with commas."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple | set | frozenset):
        return ",".join(cell(v) for v in value)
    return str(value)


def console(file: TextIO | None = None, width: int | None = None) -> Console:
    out = file if file is not None else sys.stdout
    terminal = out.isatty()
    if width is None:
        width = shutil.get_terminal_size().columns if terminal else PIPE_WIDTH
    return Console(
        file=out, width=width, color_system="auto" if terminal else None,
        highlight=False, soft_wrap=False, emoji=False, markup=False,
    )  # fmt: skip


def table(columns: Sequence[Column], rows: Iterable[Sequence[Any]], *, rule: bool = True) -> Table:
    grid = Table(
        box=box.SIMPLE_HEAD if rule else None, pad_edge=False, show_edge=False,
        header_style="bold",
    )  # fmt: skip
    for column in columns:
        grid.add_column(
            column.header,
            overflow="fold" if column.wrap else "ellipsis",
            no_wrap=not column.wrap,
            justify="right" if column.right else "left",
            min_width=min(len(column.header), 12),
        )
    for row in rows:
        grid.add_row(*(cell(v) for v in row))
    return grid


def render(
    columns: Sequence[Column], rows: Iterable[Sequence[Any]], width: int, *, rule: bool = True
) -> str:
    """The table as text at ``width`` columns, without the blanks that pad its last column."""
    buffer = StringIO()
    console(buffer, width).print(table(columns, rows, rule=rule))
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


def print_table(columns: Sequence[Column], rows: Iterable[Sequence[Any]]) -> None:
    """On a terminal: fit its width, a rule under the headings; into a pipe: whole rows."""
    if sys.stdout.isatty():
        console().print(table(columns, rows))
    else:
        sys.stdout.write(render(columns, rows, PIPE_WIDTH, rule=False))


def print_fields(rows: Sequence[tuple[str, Any]]) -> None:
    """``NAME  value`` lines, names in one column; long values wrap, never cut."""
    out = console()
    width = max((len(name) for name, _ in rows), default=0)
    for name, value in rows:
        out.print(f"{name:{width}}  {cell(value)}".rstrip(), overflow="fold")


def plain(value: Any) -> Any:
    """A dataclass (or a list of them) as JSON-ready values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: plain(v) for k, v in dataclasses.asdict(value).items()}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    return value


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(plain(value), indent=2, ensure_ascii=False) + "\n")


def note(text: str) -> None:
    """A line for the person, not for a pipe: counts, hints (stderr)."""
    print(text, file=sys.stderr)


def closed_pipe() -> int:
    """The reader went away: say nothing more (Python would complain at exit, flushing)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
    return EXIT_CLOSED_PIPE


__all__ = [
    "EXIT_CLOSED_PIPE",
    "EXIT_CODES",
    "EXIT_EMPTY",
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_FOUND",
    "EXIT_NOT_RUNNING",
    "EXIT_NO_REPLY",
    "EXIT_OK",
    "EXIT_REFUSED",
    "Column",
    "cell",
    "closed_pipe",
    "console",
    "note",
    "plain",
    "print_fields",
    "print_json",
    "print_table",
    "render",
    "table",
]
