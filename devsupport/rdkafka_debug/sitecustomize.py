"""librdkafka's debug lines of every client of a process, whole, in a file of their own.

For a diagnosis only (``devsupport/restart_stress.sh``): a process started with this folder
on ``PYTHONPATH``, ``MQK_RDKAFKA_DEBUG_FILE`` set and ``MQK_KAFKA_DEBUG=cgrp`` (the setting
every client of an ``mqk`` command takes from the environment) writes each librdkafka line,
stamped, to that file. The product's own log is unchanged: its repeat filter still holds
lines back, and the debug lines never reach it.
"""

from __future__ import annotations

import logging
import os
import threading
import time

_PATH = os.environ.get("MQK_RDKAFKA_DEBUG_FILE")


class _ToFile(logging.Filter):
    """Writes every record to the file; lets through only what the product would log."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self._out = open(path, "a", buffering=1)  # noqa: SIM115 - the process's lifetime
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        now = time.time()
        stamp = time.strftime("%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}"
        with self._lock:
            self._out.write(f"{stamp} {os.getpid()} {record.levelname[0]} {record.getMessage()}\n")
        return record.levelno > logging.DEBUG


if _PATH:
    _logger = logging.getLogger("mqkafka.kafka.librdkafka")
    _logger.setLevel(logging.DEBUG)
    _logger.addFilter(_ToFile(_PATH))  # before the product's repeat filter: sees every line
