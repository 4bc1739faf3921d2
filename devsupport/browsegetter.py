"""A getter in another OS process and a browse walk beside it, as the browse barrier's test
and benchmark both drive them (tests/integration/mqi/test_mqi_browse_barrier.py,
bench/bench_browse_window.py; issue 35 point 4).

The getter joins the queue's share group with one MQGET (not timed), says
``ready``, and on a line of input gets every message flat out (non-persistent, outside
syncpoint) until a get waits ``idle`` seconds for nothing; it answers its rate and, per body,
when its MQGET returned. The walk stamps when each browse call began. Both stamp
``time.time()``: one machine, one clock; the check is the order of the stamps, not how long
anything took.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import IO

from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD, MQMIError
from mqkafka.mqi.kafkaqm.queue import Queue

PROGRAM = """
import json, sys, time
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C, GMO, MD, MQMIError
from mqkafka.mqi.kafkaqm import getter
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

bootstrap, namespace, name, idle, gap, flush, pause = sys.argv[1:8]
pause = float(pause)
if gap:
    getter.ACK_GAP, getter.ACK_FLUSH = float(gap), float(flush)
qmgr = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace)
queue = Queue(qmgr, name, C.MQOO_INPUT_SHARED)
gmo = GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=15000)
first = queue.get(None, MD(), gmo).decode()  # joined the share group: not timed
returned = [(first, time.time())]
print("ready", flush=True)
sys.stdin.readline()
gmo.WaitInterval = int(float(idle) * 1000)
start = time.time()
while True:
    try:
        body = queue.get(None, MD(), gmo)
    except MQMIError as error:
        if error.reason != RC.NO_MSG_AVAILABLE:
            raise
        break
    returned.append((body.decode(), time.time()))  # after MQGET returned
    if pause:
        time.sleep(pause)
rate = (len(returned) - 1) / (returned[-1][1] - start) if len(returned) > 1 else 0.0
print(json.dumps([rate, returned]), flush=True)
queue.close()
qmgr.disconnect()
"""


@dataclass
class GetterRun:
    """What the getter answered: its gets per second, and when each body's MQGET returned."""

    rate: float
    returned: dict[str, float]


class GetterProcess:
    """The getter, started and ready: :meth:`go` starts its run, :meth:`result` waits for it."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self._proc, self._stdin, self._stdout = proc, proc.stdin, proc.stdout

    def ready(self) -> str:
        return self._stdout.readline().strip()

    def finish(self) -> int:
        self._stdin.close()
        return self._proc.wait(60)

    def go(self) -> None:
        self._stdin.write("go\n")
        self._stdin.flush()

    def result(self) -> GetterRun:
        rate, pairs = json.loads(self._stdout.readline())
        return GetterRun(float(rate), dict(pairs))


@contextmanager
def getter_process(
    bootstrap: str,
    namespace: str,
    name: str,
    *,
    idle: float = 3.0,
    ack_gap: float | None = None,
    ack_flush: float = 5.0,
    pause: float = 0.0,
) -> Iterator[GetterProcess]:
    """The getter on queue ``name``, ready. ``ack_gap``: the least time between its keeper's
    commits of a busy lane (``getter.ACK_GAP``; wider than the default, a browse that did not
    wait for the barrier would show what it got). ``pause``: seconds it sleeps after each
    MQGET (a test's getter still at work when a walk that waits for it begins, however
    loaded the machine). It must end cleanly."""
    args = [bootstrap, namespace, name, str(idle), "" if ack_gap is None else str(ack_gap)]
    proc = subprocess.Popen(
        [sys.executable, "-c", PROGRAM, *args, str(ack_flush), str(pause)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    getter = GetterProcess(proc)
    try:
        said = getter.ready()
        if said != "ready":
            raise RuntimeError(f"the getter did not start: {said!r}")
        yield getter
    finally:
        code = getter.finish()
        if code != 0:
            raise RuntimeError(f"the getter ended with {code}")


Commanded = Callable[[str], str]  # a line to a commanded process -> the line it answers


@contextmanager
def commanded(
    program: str, *args: str, env: dict[str, str] | None = None, rc: int = 0
) -> Iterator[tuple[Commanded, IO[str]]]:
    """A Python ``program`` in another OS process that answers each line given it with one
    line (the tests' getters: a command, then the bodies got), and its output (for what it
    says before its first answer). Its input is closed at the end, and it must end with
    ``rc`` (one told to crash has closed its input already)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", program, *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def ask(line: str) -> str:
        stdin.write(line + "\n")
        stdin.flush()
        return stdout.readline().strip()

    try:
        yield ask, stdout
    finally:
        with suppress(BrokenPipeError):
            stdin.close()
        assert proc.wait(60) == rc


Shown = list[tuple[float, str]]  # each message a walk showed, with when its call began


def browse_walk(queue: Queue, count: int) -> Shown:
    """MQGMO_BROWSE_FIRST, then BROWSE_NEXT, up to ``count`` messages (the oldest: those the
    getter is about to get or just got), each with the ``time.time()`` its call began."""
    shown: Shown = []
    option = C.MQGMO_BROWSE_FIRST
    while len(shown) < count:
        began = time.time()
        try:
            body = queue.get(None, MD(), GMO(Options=option)).decode()
        except MQMIError as error:
            if error.reason != RC.NO_MSG_AVAILABLE:
                raise
            break
        shown.append((began, body))
        option = C.MQGMO_BROWSE_NEXT
    return shown


def browse_oldest(queue: Queue, count: int) -> list[str]:
    """The bodies of :func:`browse_walk`."""
    return [body for _, body in browse_walk(queue, count)]


def shown_after_get(walks: Iterable[Shown], returned: dict[str, float]) -> list[tuple[str, float]]:
    """Each message a browse call showed although its MQGET had returned before the call
    began, with how long before (seconds): none, if browse is MQ's browse."""
    return [
        (body, began - returned[body])
        for walk in walks
        for began, body in walk
        if body in returned and returned[body] < began
    ]


def shown_after_first(walks: Iterable[Shown], returned: dict[str, float]) -> int:
    """The messages a walk showed whose MQGET had returned before its BROWSE_FIRST began
    (what the barrier held before BROWSE_NEXT was strict)."""
    late = 0
    for walk in walks:
        if walk:
            first = walk[0][0]
            late += sum(1 for _, body in walk if returned.get(body, first) < first)
    return late


__all__ = [
    "Commanded",
    "GetterProcess",
    "GetterRun",
    "Shown",
    "browse_oldest",
    "browse_walk",
    "commanded",
    "getter_process",
    "shown_after_first",
    "shown_after_get",
]


def mqi_browse(queue: Queue) -> list[bytes]:
    """Every message BROWSE_FIRST then BROWSE_NEXT shows, until 2033."""
    shown: list[bytes] = []
    option = C.MQGMO_BROWSE_FIRST
    while True:
        try:
            shown.append(queue.get(None, MD(), GMO(Options=option)))
        except MQMIError as error:
            assert error.reason == RC.NO_MSG_AVAILABLE
            return shown
        option = C.MQGMO_BROWSE_NEXT
