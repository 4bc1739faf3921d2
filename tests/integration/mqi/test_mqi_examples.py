"""IBM's pymqi samples under examples/ibm/, run as published but for the import line, each as
its own process, against the test Kafka (and ``mqk serve`` for pub/sub).

The samples read ``examples/ibm/env.json`` (MQ's developer container: ``localhost(1414)``,
DEV.QUEUE.1 ...) and the getting-started one hard-codes ``localhost(1414)``; they reach the
test's Kafka because ``MQK_BOOTSTRAP_SERVERS`` wins over a program's connection name, as
it would for a user after ``make run``. The queues they use are defined here as MQ's
developer container defines them. Each case is a script of steps; the looping samples
(basicsubscribe, basicresponse) run in the background and stop at Ctrl-C, as IBM's README
says.
"""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import mqkafka.mqi as pymqi
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.queue import QueueManager

pytestmark = pytest.mark.kafka

IBM = Path(__file__).resolve().parents[3] / "examples" / "ibm"
GETTING_STARTED = "gettingStarted/python/sample.py"
PUT, GET = "Python/basicput.py", "Python/basicget.py"
PUBLISH, SUBSCRIBE = "Python/basicpublish.py", "Python/basicsubscribe.py"
REQUEST, RESPOND = "Python/basicrequest.py", "Python/basicresponse.py"
QUEUE, BACKOUT_QUEUE = "DEV.QUEUE.1", "DEV.QUEUE.2"  # env.json's QUEUE_NAME, BACKOUT_QUEUE
LOCAL_QUEUES = (QUEUE, BACKOUT_QUEUE, "DEV.QUEUE.3", "DEV.DEAD.LETTER.QUEUE")
MODEL_QUEUE = "DEV.APP.MODEL.QUEUE"  # env.json's MODEL_QUEUE_NAME
MAIN = ("INFO:__main__:", "ERROR:__main__:")
ENOUGH = 180.0  # seconds before a step that never comes fails the test (not a timing)
GREETING = "{'Greeting': 'Hello from Python! "  # how a sample logs a message it got
POISON = b'{"Greeting": "poison", "value": 12}'  # a request without a ReplyToQ


# ---- the steps of a case ----


@dataclass(frozen=True)
class Start:
    """A sample that loops until Ctrl-C, in the background, once it says ``ready``."""

    program: str
    ready: str


@dataclass(frozen=True)
class Run:
    """A sample run to its end (exit 0)."""

    program: str


@dataclass(frozen=True)
class Await:
    """Until the background sample has said ``line`` ``count`` times."""

    program: str
    line: str
    count: int = 1


@dataclass(frozen=True)
class Interrupt:
    """Ctrl-C to the background sample: it closes what it opened and exits 0."""

    program: str


@dataclass(frozen=True)
class Put:
    """A message the test itself puts (no sample sends a poison message)."""

    queue: str
    data: bytes


@dataclass(frozen=True)
class Depth:
    """Until the queue's CURDEPTH is ``expected`` (a message got under syncpoint counts
    until MQCMIT, as in MQ: 0 after a get says it was committed)."""

    queue: str
    expected: int


Step = Start | Run | Await | Interrupt | Put | Depth


@dataclass
class Outputs:
    """What each sample said (its log and prints, one text per run) and what the test put."""

    runs: dict[str, list[str]] = field(default_factory=dict)
    msg_ids: list[bytes] = field(default_factory=list)

    def of(self, program: str) -> list[str]:
        return self.runs[program]


class Background:
    """A running sample and the lines it has said so far."""

    def __init__(self, program: str, env: dict[str, str]) -> None:
        self.program = program
        self.proc = subprocess.Popen(
            [sys.executable, str(IBM / program)], env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            # Ctrl-C as at a terminal, even when the test runner's own SIGINT is ignored
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )  # fmt: skip
        self.lines: list[str] = []
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def await_line(self, text: str, count: int = 1) -> None:
        def said() -> bool:
            return sum(text in line for line in self.lines) >= count

        with self.changed:
            if not self.changed.wait_for(lambda: said() or self.proc.poll() is not None, ENOUGH):
                raise AssertionError(f"{self.program} never said {text!r}:\n{self.text()}")
            if not said():
                self.proc.wait()
                raise AssertionError(f"{self.program} ended before {text!r}:\n{self.text()}")

    def interrupt(self) -> str:
        self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(ENOUGH)
        self.reader.join(ENOUGH)  # its last lines
        assert code == 0, f"{self.program} exited {code}:\n{self.text()}"
        return self.text()

    def text(self) -> str:
        return "".join(self.lines)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


# ---- the checks ----


def said(output: str) -> list[str]:
    """What the sample itself logged (``logging``'s default format), in order."""
    return [line.split(":", 2)[2] for line in output.splitlines() if line.startswith(MAIN)]


def logged(output: str, after: str) -> list[object]:
    """The Python values (dicts, bytes) the sample logged right after each ``after``."""
    lines = said(output)
    return [ast.literal_eval(lines[i + 1]) for i, line in enumerate(lines[:-1]) if line == after]


def ended_well(output: str, *, interrupted: bool | None = False) -> None:
    """It closed what it opened and said so; ``interrupted``: whether it said Ctrl-C came
    (None: either - the backout path's bare ``except:`` may take it for a failed move)."""
    assert "Traceback" not in output, output
    lines = said(output)
    assert lines[-1] == "Application is closing", output
    if interrupted is not None:
        assert ("Have received a keyboard interrupt" in lines) == interrupted, output


def check_getting_started(out: Outputs, admin: QueueManager) -> None:
    (printed,) = out.of(GETTING_STARTED)
    assert "Hello from Python!" in printed.splitlines(), printed  # put, then got back


def check_put_get(out: Outputs, admin: QueueManager) -> None:
    (put,), (got,) = out.of(PUT), out.of(GET)
    for output in (put, got):
        ended_well(output)
    assert "Put message successful" in said(put)
    (message,) = logged(got, "Have message from Queue")  # the one put, and no other
    assert isinstance(message, dict) and message["Greeting"].startswith("Hello from Python! ")
    assert "No more messages found on this connection" in said(got)  # waited, then 2033


def check_publish_subscribe(out: Outputs, admin: QueueManager) -> None:
    for output in out.of(PUBLISH):
        ended_well(output)
        assert "Publish message successful" in said(output)
    first, second = out.of(SUBSCRIBE)
    received = []
    for output in (first, second):
        ended_well(output, interrupted=True)
        (publication,) = logged(output, "Have message from Queue")
        assert isinstance(publication, dict)
        received.append(publication["Greeting"])
    # the first while it waited; the second published while nobody read, kept by the
    # durable managed subscription that the second run resumed (MQSO_CREATE + MQSO_RESUME)
    assert received[0] < received[1] and all(g.startswith("Hello from Python! ") for g in received)
    pcf = pymqi.PCFExecute(admin)
    subs = pcf.MQCMD_INQUIRE_SUBSCRIPTION({pymqi.CMQCFC.MQCACF_SUB_NAME: b"MySub"})
    assert [s[C.MQCA_TOPIC_STRING] for s in subs] == [b"dev/"]  # kept at MQCLOSE (KEEP_SUB)


def check_request_response(out: Outputs, admin: QueueManager) -> None:
    (requested,), (responded,) = out.of(REQUEST), out.of(RESPOND)
    ended_well(requested)
    ended_well(responded, interrupted=True)
    (request,) = logged(responded, "Have message from Queue")
    (reply,) = logged(requested, "Have reply message from Queue")
    assert isinstance(request, dict) and isinstance(reply, dict)
    assert request["Greeting"].startswith("Hello from Python! ")
    assert reply["Greeting"].startswith("Reply from Python! ")
    factors = reply["value"]  # the responder's factors of the request's value
    assert isinstance(factors, list) and all(request["value"] % f == 0 for f in factors)
    (dynamic,) = logged(requested, "Dynamic Queue Details are")  # the temporary reply queue
    assert isinstance(dynamic, bytes) and dynamic.startswith(b"APP.REPLIES.")


def check_backout(out: Outputs, admin: QueueManager) -> None:
    (responded,) = out.of(RESPOND)
    ended_well(responded, interrupted=None)
    # got under syncpoint, backed out five times (BackoutCount 0..4), moved at the sixth
    assert logged(responded, "Have message from Queue") == [{"Greeting": "poison", "value": 12}] * 6
    assert said(responded).count("POSIONING MESSAGE DETECTED! ") == 1
    queue = pymqi.Queue(admin, BACKOUT_QUEUE, C.MQOO_INPUT_AS_Q_DEF)
    md = pymqi.MD()
    data = queue.get(None, md, pymqi.GMO(Options=C.MQGMO_WAIT, WaitInterval=int(ENOUGH * 1000)))
    queue.close()
    assert data == POISON and md.MsgId == out.msg_ids[0]  # the request itself, its MsgId kept


@dataclass(frozen=True)
class Case:
    id: str
    steps: tuple[Step, ...]
    check: Callable[[Outputs, QueueManager], None]
    pubsub: bool = False  # needs the broker service


CASES = [
    Case(
        "getting-started put/get to localhost(1414)",
        (Run(GETTING_STARTED), Depth(QUEUE, 0)),
        check_getting_started,
    ),
    Case(
        "basicput then basicget",
        (Run(PUT), Depth(QUEUE, 1), Run(GET), Depth(QUEUE, 0)),
        check_put_get,
    ),
    Case(
        "basicpublish to basicsubscribe, durable and resumed",
        (
            Start(SUBSCRIBE, "Attempting gets from Subscription"),
            Run(PUBLISH),
            Await(SUBSCRIBE, GREETING),
            Interrupt(SUBSCRIBE),
            Run(PUBLISH),  # nobody reads: the durable subscription's queue keeps it
            Start(SUBSCRIBE, "Attempting gets from Subscription"),
            Await(SUBSCRIBE, GREETING),
            Interrupt(SUBSCRIBE),
        ),
        check_publish_subscribe,
        pubsub=True,
    ),
    Case(
        "basicrequest to basicresponse over a temporary dynamic queue, with syncpoint",
        (
            Start(RESPOND, "Attempting gets from Queue"),
            Run(REQUEST),
            Depth(QUEUE, 0),  # the request's MQGET was committed
            Interrupt(RESPOND),
        ),
        check_request_response,
    ),
    Case(
        "basicresponse backs out a poison request five times, then moves it",
        (
            Start(RESPOND, "Attempting gets from Queue"),
            Put(QUEUE, POISON),
            Await(RESPOND, "Message sent to the backout queue"),
            Depth(BACKOUT_QUEUE, 1),  # moved and committed
            Interrupt(RESPOND),
            Depth(QUEUE, 0),
        ),
        check_backout,
    ),
]


# ---- fixtures and the test ----


@pytest.fixture(scope="module")
def admin(kafka_bootstrap: str, namespace: str) -> Iterator[QueueManager]:
    """The queues of MQ's developer container, defined in this module's namespace."""
    qmgr = QueueManager("QM1", bootstrap_servers=kafka_bootstrap, namespace=namespace)
    for name in LOCAL_QUEUES:
        qmgr.define_queue(name)
    qmgr.define_queue(
        MODEL_QUEUE, queue_type=C.MQQT_MODEL, definition_type=C.MQQDT_TEMPORARY_DYNAMIC
    )
    yield qmgr
    qmgr.disconnect()


def drain(qmgr: QueueManager, name: str) -> None:
    queue = pymqi.Queue(qmgr, name, C.MQOO_INPUT_AS_Q_DEF)
    try:
        while True:
            queue.get(None, pymqi.MD(), pymqi.GMO(Options=C.MQGMO_NO_WAIT))
    except pymqi.MQMIError as error:
        assert error.reason == RC.NO_MSG_AVAILABLE
    finally:
        queue.close()


def depth(qmgr: QueueManager, name: str) -> int:
    queue = pymqi.Queue(qmgr, name, C.MQOO_INQUIRE)
    try:
        return int(queue.inquire(C.MQIA_CURRENT_Q_DEPTH))
    finally:
        queue.close()


def await_depth(qmgr: QueueManager, name: str, expected: int) -> None:
    end = time.monotonic() + ENOUGH
    while (found := depth(qmgr, name)) != expected:
        assert time.monotonic() < end, f"{name}: CURDEPTH {found}, never {expected}"
        time.sleep(0.2)


@pytest.fixture
def sample_env(kafka_bootstrap: str, namespace: str) -> dict[str, str]:
    """What a user has after ``make run``: where Kafka is, and the namespace."""
    unset = ("MQSERVER", "MQCCDTURL", "MQK_KAFKA_CONFIG")
    return {
        **{k: v for k, v in os.environ.items() if k not in unset},
        "MQK_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "MQK_NAMESPACE": namespace,
        "PYTHONUNBUFFERED": "1",
    }


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_ibm_sample(
    case: Case, admin: QueueManager, sample_env: dict[str, str], request: pytest.FixtureRequest
) -> None:
    if case.pubsub:
        request.getfixturevalue("broker_service")
    for name in (QUEUE, BACKOUT_QUEUE):
        drain(admin, name)
    out = Outputs()
    running: dict[str, Background] = {}
    try:
        for step in case.steps:
            if isinstance(step, Start):
                running[step.program] = Background(step.program, sample_env)
                running[step.program].await_line(step.ready)
            elif isinstance(step, Run):
                done = subprocess.run(
                    [sys.executable, str(IBM / step.program)], env=sample_env, text=True,
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=ENOUGH,
                )  # fmt: skip
                assert done.returncode == 0, done.stdout
                out.runs.setdefault(step.program, []).append(done.stdout)
            elif isinstance(step, Await):
                running[step.program].await_line(step.line, step.count)
            elif isinstance(step, Interrupt):
                said = running.pop(step.program).interrupt()
                out.runs.setdefault(step.program, []).append(said)
            elif isinstance(step, Put):
                md = pymqi.MD(Format=C.MQFMT_STRING)
                admin.put1(step.queue, step.data, md)
                out.msg_ids.append(md.MsgId)
            else:
                await_depth(admin, step.queue, step.expected)
    finally:
        for background in running.values():
            background.kill()
    case.check(out, admin)
