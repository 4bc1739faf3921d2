"""Structured logs: one JSON object per line on stderr (time, level, logger, message, extras)."""

from __future__ import annotations

import json
import logging
import time


class JsonFormatter(logging.Formatter):
    _STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None)))

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in self._STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def setup(level: str = "INFO") -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def plain_setup() -> None:
    """An ``mqk`` command's warnings (Kafka away, a refused client) as plain lines on stderr,
    unless logging is configured already: the package's NullHandler keeps programs that
    import it quiet, and commands are programs that speak, through Python's own last-resort
    handler (warnings, the message alone, on whatever ``sys.stderr`` is at the time)."""
    root = logging.getLogger()
    if not root.handlers and logging.lastResort is not None:
        root.addHandler(logging.lastResort)
