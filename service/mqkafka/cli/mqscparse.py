"""runmqsc command scripts read as runmqsc reads them (pure: text in, commands out).

The syntax administrators keep in their build scripts:

- one command per line; a line whose last non-blank character is ``+`` goes on with the
  next line's first non-blank character, one ending in ``-`` with the next line's first
  column (blanks kept); a line whose first non-blank character is ``*`` is a comment;
- words are separated by blanks or commas; keywords are case-insensitive and have their
  short forms (``DEF QL(...)`` is ``DEFINE QLOCAL(...)``);
- a value is in parentheses after its keyword; unquoted it is folded to upper case (as
  runmqsc folds ``QLOCAL(app.in)`` to ``APP.IN``); in single quotes it is kept as written,
  a quote in it doubled (``DESCR('Bob''s queue')``).

:func:`parse_script` answers one :class:`MqscCommand` per command, or an :class:`MqscError`
that names the line; it never raises on bad input.
"""

from __future__ import annotations

from dataclasses import dataclass

# runmqsc's short forms → the full keyword (verbs, object types, attributes alike)
SYNONYMS = {
    "DEF": "DEFINE", "ALT": "ALTER", "DIS": "DISPLAY",
    "QL": "QLOCAL", "QM": "QMODEL", "QR": "QREMOTE", "QA": "QALIAS", "Q": "QUEUE",
    "QS": "QSTATUS", "CHL": "CHANNEL", "NL": "NAMELIST", "PRO": "PROCESS", "LSTR": "LISTENER",
    "QMGR": "QMGR", "TOPIC": "TOPIC", "SUBSCR": "SUB",
    "DESC": "DESCR", "NOREPLACE": "NOREPLACE",
}  # fmt: skip
VERBS = frozenset(
    {"DEFINE", "ALTER", "DELETE", "CLEAR", "DISPLAY", "START", "STOP", "SET", "REFRESH", "RESET",
     "RESOLVE", "PING", "SUSPEND", "RESUME", "ARCHIVE", "BACKUP", "RECOVER", "END"}
)  # fmt: skip


@dataclass(frozen=True)
class MqscCommand:
    """One command: its verb and object type (full forms), the object's name (None when the
    command names none), the other keywords in order with their values (None: no value)."""

    line: int
    verb: str
    object_type: str
    name: str | None
    keywords: tuple[tuple[str, str | None], ...]
    text: str

    def keyword(self, name: str) -> str | None:
        return next((v for k, v in self.keywords if k == name), None)

    def has(self, name: str) -> bool:
        return any(k == name for k, _ in self.keywords)


@dataclass(frozen=True)
class MqscError:
    """A command that could not be read: its first line and why."""

    line: int
    message: str
    text: str


class _Unreadable(ValueError):
    pass


def logical_lines(text: str) -> list[tuple[int, str]]:
    """The commands of a script with continuations joined and comments and blank lines
    dropped: (first line number, command text). A continuation at the end of the script
    ends the command there."""
    found: list[tuple[int, str]] = []
    pending: str | None = None
    start = 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if pending is None:
            stripped = line.lstrip()
            if not stripped or stripped.startswith("*"):
                continue
            start, piece = number, stripped
        else:
            piece = line.lstrip() if pending.endswith("+") else line
            pending = pending[:-1]
        joined = piece if pending is None else pending + piece
        if joined.endswith(("+", "-")):
            pending = joined
            continue
        pending = None
        found.append((start, joined))
    if pending is not None:
        found.append((start, pending[:-1]))
    return [(line, command) for line, command in found if command.strip(" \t,")]


def tokens(text: str) -> list[tuple[str, str | None]]:
    """``KEYWORD`` and ``KEYWORD(value)`` items, keywords upper-cased and unabbreviated,
    values unquoted (or folded to upper case when unquoted)."""
    items: list[tuple[str, str | None]] = []
    pos, size = 0, len(text)
    while pos < size:
        char = text[pos]
        if char in " ,\t":
            pos += 1
            continue
        if char in "()'":
            raise _Unreadable(f"{char!r} where a keyword was expected (column {pos + 1})")
        end = pos
        while end < size and text[end] not in " ,\t()'":
            end += 1
        word = text[pos:end].upper()
        word = SYNONYMS.get(word, word)
        pos = end
        while pos < size and text[pos] in " \t":
            pos += 1
        if pos < size and text[pos] == "(":
            value, pos = _value(text, pos + 1)
            items.append((word, value))
        else:
            items.append((word, None))
    return items


def _value(text: str, pos: int) -> tuple[str, int]:
    """The value from just after ``(`` to its ``)``: (value, position after ``)``)."""
    out: list[str] = []
    size = len(text)
    while pos < size:
        char = text[pos]
        if char == ")":
            return "".join(out), pos + 1
        if char in " \t":  # blanks count only inside quotes: DESCR( 'x' ) is DESCR('x')
            pos += 1
            continue
        if char == "'":
            quoted, pos = _quoted(text, pos + 1)
            out.append(quoted)
            continue
        if char == "(":
            raise _Unreadable(f"'(' inside a value (column {pos + 1})")
        out.append(char.upper())
        pos += 1
    raise _Unreadable("a value's ')' is missing")


def _quoted(text: str, pos: int) -> tuple[str, int]:
    out: list[str] = []
    size = len(text)
    while pos < size:
        char = text[pos]
        if char == "'":
            if pos + 1 < size and text[pos + 1] == "'":
                out.append("'")
                pos += 2
                continue
            return "".join(out), pos + 1
        out.append(char)
        pos += 1
    raise _Unreadable("a quoted string is not closed")


def parse_command(line: int, text: str) -> MqscCommand | MqscError:
    try:
        items = tokens(text)
    except _Unreadable as problem:
        return MqscError(line, str(problem), text)
    if not items:
        return MqscError(line, "an empty command", text)
    verb, value = items[0]
    if value is not None:
        return MqscError(line, f"a command starts with its verb, not {verb}(...)", text)
    if verb not in VERBS:
        return MqscError(line, f"{verb} is not a runmqsc command", text)
    object_type, name, rest = "", None, items[1:]
    if rest:
        object_type, name = rest[0]
        rest = rest[1:]
    return MqscCommand(line, verb, object_type, name, tuple(rest), text)


def parse_script(text: str) -> list[MqscCommand | MqscError]:
    return [parse_command(line, command) for line, command in logical_lines(text)]


__all__ = ["MqscCommand", "MqscError", "logical_lines", "parse_command", "parse_script", "tokens"]
