"""What a pipeline command shows on the terminal, and what it keeps out of it.

A person running ``mqk pipeline ...`` sees one line per stage (``Starting Spark ... 14s``),
what the command made, and one line when Ctrl-C stops it. Everything Spark, Ivy and py4j say
goes to a log file: the JVM inherits the file as its standard output and error at start-up
(``jvm_output_to``), and Python's logging writes there too (``log_to``).

Ctrl-C: the JVM ignores SIGINT (pyspark starts it so), and pyspark's own handler raises
KeyboardInterrupt in the middle of a py4j call, which leaves the gateway half-answered and
floods tracebacks. ``Interrupts`` replaces it: the first Ctrl-C asks the work to stop (cancels
the running Spark jobs; the streaming loop polls ``requested``), a second one exits at once.
The cancelling runs on a thread of its own: py4j gives each thread one connection, and the
main thread's is waiting for the answer of the call the signal interrupted.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, TextIO

from mqkafka.pipeline.config import default_home

INTERRUPTED_EXIT = 130


def log_path(command: str) -> Path:
    """``$MQK_HOME/pipeline/logs/<command>.log``: local even when the tables are not."""
    return default_home() / "logs" / f"{command}.log"


def log_to(path: Path) -> None:
    """Python's logging (py4j's, pyspark's, the jobs') to ``path``, started afresh."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    # appending, as the JVM does (``jvm_output_to``): neither writes over the other
    handler = logging.FileHandler(path, mode="a", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.INFO)


@contextmanager
def jvm_output_to(path: Path) -> Iterator[None]:
    """File descriptors 1 and 2 point at ``path`` while the block runs (the JVM started in it
    keeps them for its life), and are this process's terminal again after it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(path, "ab") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, copy in zip((1, 2), saved, strict=True):
            os.dup2(copy, fd)
            os.close(copy)


class Stage:
    """``text ...`` then, on the same line, how long it took (or ``failed``); a line that
    something else had to end (``interrupt``) is left as it is."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out
        self.open = False  # a stage's line waits for its end

    def _print(self, text: str, end: str = "\n") -> None:
        print(text, end=end, file=self.out or sys.stderr, flush=True)

    def interrupt(self, text: str) -> None:
        """``text`` on a line of its own, ending the open stage's line first."""
        self._print((" interrupted\n" if self.open else "") + text)
        self.open = False

    @contextmanager
    def __call__(self, text: str) -> Iterator[None]:
        began = time.monotonic()
        self._print(f"{text} ...", end="")
        self.open = True
        try:
            yield
        except BaseException as error:
            if self.open:
                self._print(" interrupted" if isinstance(error, KeyboardInterrupt) else " failed")
            raise
        finally:
            was_open, self.open = self.open, False
        if was_open:
            self._print(f" {time.monotonic() - began:.0f}s")


stage = Stage()


class Interrupts:
    """SIGINT while Spark works: the first asks to stop (``requested``, and ``on_first`` on a
    thread of its own), the second ends the process at once.

    Python runs a signal handler in the main thread between two bytecodes, and the kernel may
    hand SIGINT to any thread (the JVM's gateway threads among them): with the main thread
    waiting on a py4j answer, the handler would run only when Spark's call returns, minutes
    later. So the handler is a no-op, and a watcher thread acts on the byte that the C-level
    handler writes to ``signal.set_wakeup_fd`` whatever thread took the signal."""

    def __init__(self, on_first: Callable[[], None] = lambda: None) -> None:
        self.requested = False
        self.on_first = on_first
        self.stopping: threading.Thread | None = None
        self._previous: Any = None
        self._previous_fd = -1
        self._pair: tuple[socket.socket, socket.socket] | None = None

    def _interrupted(self) -> None:
        if self.requested:
            os._exit(INTERRUPTED_EXIT)
        self.requested = True
        stage.interrupt("mqk: interrupted: stopping (Ctrl-C again to quit at once)")
        self.stopping = threading.Thread(target=self._first, name="mqk-interrupt", daemon=True)
        self.stopping.start()

    def _first(self) -> None:
        try:
            self.on_first()
        except Exception:  # e.g. the session already stopping: the work stops all the same
            logging.getLogger(__name__).exception("on interrupt")

    def _watch(self, reader: socket.socket) -> None:
        while True:
            try:
                signals = reader.recv(64)
            except OSError:  # closed by __exit__
                return
            if not signals:
                return
            for _ in range(signals.count(signal.SIGINT)):
                self._interrupted()

    def __enter__(self) -> Interrupts:
        reader, writer = socket.socketpair()
        writer.setblocking(False)
        self._pair = (reader, writer)
        self._previous = signal.signal(signal.SIGINT, lambda signum, frame: None)
        self._previous_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        threading.Thread(target=self._watch, args=(reader,), name="mqk-sigint", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        signal.set_wakeup_fd(self._previous_fd)
        signal.signal(signal.SIGINT, self._previous)
        if self._pair is not None:
            reader, writer = self._pair
            writer.close()  # the watcher reads the end and returns
            with suppress(OSError):
                reader.shutdown(socket.SHUT_RDWR)
            reader.close()
