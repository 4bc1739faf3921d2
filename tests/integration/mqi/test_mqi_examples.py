"""The pymqi example programs under examples/pymqi/, each run as its own process against
the test Kafka (and ``mqk serve`` for pub/sub), as a user runs them after ``make run``.

The programs name MQ's developer container (``localhost(1414)``, QM1, DEV.QUEUE.1 ...);
they reach the test's Kafka because ``MQK_BOOTSTRAP_SERVERS`` wins over a program's
connection name. The queues they use are defined here as the developer container defines
them. Each case is a script of steps; the looping programs (subscribe, respond) run in the
background and stop at Ctrl-C, as their README says.
"""

from __future__ import annotations

import json
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
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

pytestmark = pytest.mark.kafka

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "pymqi"
GETTING_STARTED = "getting_started.py"
PUT, GET = "put.py", "get.py"
PUBLISH, SUBSCRIBE = "publish.py", "subscribe.py"
REQUEST, RESPOND = "request.py", "respond.py"
QUEUE, BACKOUT_QUEUE = "DEV.QUEUE.1", "DEV.QUEUE.2"  # QUEUE_NAME, BACKOUT_QUEUE defaults
LOCAL_QUEUES = (QUEUE, BACKOUT_QUEUE, "DEV.QUEUE.3", "DEV.DEAD.LETTER.QUEUE")
MODEL_QUEUE = "DEV.APP.MODEL.QUEUE"  # MODEL_QUEUE_NAME's default
SUBSCRIPTION = b"EXAMPLES.DEV.SUB"  # SUBSCRIPTION_NAME's default
ENOUGH = 180.0  # seconds before a step that never comes fails the test (not a timing)
POISON = b'{"factorise": "twelve"}'  # a request respond.py cannot answer, and no ReplyToQ
THRESHOLD = 5  # respond.py's BACKOUT_THRESHOLD default


# ---- the steps of a case ----


@dataclass(frozen=True)
class Start:
    """A program that loops until Ctrl-C, in the background, once it says ``ready``."""

    program: str
    ready: str


@dataclass(frozen=True)
class Run:
    """A program run to its end (exit 0)."""

    program: str
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Await:
    """Until the background program has said ``text`` ``count`` times."""

    program: str
    text: str
    count: int = 1


@dataclass(frozen=True)
class Interrupt:
    """Ctrl-C to the background program: it closes what it opened and exits 0."""

    program: str


@dataclass(frozen=True)
class Put:
    """A message the test itself puts (no program sends a poison request)."""

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
    """What each program printed (one text per run) and the MsgIds of what the test put."""

    runs: dict[str, list[str]] = field(default_factory=dict)
    msg_ids: list[bytes] = field(default_factory=list)

    def of(self, program: str) -> list[str]:
        return self.runs[program]


class Background:
    """A running program and the lines it has printed so far."""

    def __init__(self, program: str, env: dict[str, str]) -> None:
        self.program = program
        self.proc = subprocess.Popen(
            [sys.executable, str(EXAMPLES / program)], env=env, text=True,
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

    def await_text(self, text: str, count: int = 1) -> None:
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


def after(output: str, prefix: str) -> list[str]:
    """The rest of each line that starts with ``prefix``, in order."""
    return [line[len(prefix) :] for line in output.splitlines() if line.startswith(prefix)]


def json_after(output: str, prefix: str) -> list[object]:
    return [json.loads(rest) for rest in after(output, prefix)]


def ended_well(output: str, last: str, *, interrupted: bool = False) -> None:
    """No traceback, ``last`` as its last line, and Ctrl-C seen when it was sent."""
    assert "Traceback" not in output, output
    lines = output.splitlines()
    assert lines and lines[-1].startswith(last), output
    assert ("interrupted" in lines) == interrupted, output


def check_getting_started(out: Outputs, admin: QueueManager) -> None:
    (printed,) = out.of(GETTING_STARTED)
    assert "Traceback" not in printed, printed
    (put,), (got,) = after(printed, "Put: "), after(printed, "Got: ")
    assert put == got == "Hello from a pymqi program!", printed  # put, then got back


def check_put_get(out: Outputs, admin: QueueManager) -> None:
    (put,), (got,) = out.of(PUT), out.of(GET)
    ended_well(put, "MsgId ")
    (sent,) = json_after(put, f"put to {QUEUE}: ")
    assert isinstance(sent, dict) and sent["text"] == "an order from put.py"
    ended_well(got, f"no more messages on {QUEUE} (1 received)")  # waited, then 2033
    assert json_after(got, f"got from {QUEUE}: ") == [sent]  # the one put, and no other


def check_publish_subscribe(out: Outputs, admin: QueueManager) -> None:
    published = []
    for output in out.of(PUBLISH):
        ended_well(output, "published on dev/: ")
        published += json_after(output, "published on dev/: ")
    first, second = out.of(SUBSCRIBE)
    ended_well(first, "closed; subscription EXAMPLES.DEV.SUB kept", interrupted=True)
    ended_well(second, "closed; subscription EXAMPLES.DEV.SUB kept")
    assert "1 publications read" in second.splitlines(), second  # the count it was given
    # the first while it waited; the second published while nobody read, kept by the
    # durable managed subscription that the second run resumed (MQSO_CREATE + MQSO_RESUME)
    received = json_after(first, "publication: ") + json_after(second, "publication: ")
    assert received == published, (first, second)
    assert isinstance(published[0], dict) and isinstance(published[1], dict)
    assert published[0]["stamp"] < published[1]["stamp"]
    pcf = pymqi.PCFExecute(admin)
    subs = pcf.MQCMD_INQUIRE_SUBSCRIPTION({pymqi.CMQCFC.MQCACF_SUB_NAME: SUBSCRIPTION})
    assert [s[C.MQCA_TOPIC_STRING] for s in subs] == [b"dev/"]  # kept at MQCLOSE (KEEP_SUB)


def is_prime(n: int) -> bool:
    return n > 1 and all(n % d for d in range(2, int(n**0.5) + 1))


def check_request_response(out: Outputs, admin: QueueManager) -> None:
    (requested,), (responded,) = out.of(REQUEST), out.of(RESPOND)
    ended_well(requested, "reply: ")
    ended_well(responded, "closed", interrupted=True)
    (reply_queue,) = after(requested, "reply queue ")  # the temporary dynamic queue
    assert reply_queue.startswith("APP.REPLIES."), requested
    (question,) = [
        json.loads(r.split(" (MsgId ")[0]) for r in after(requested, f"request to {QUEUE}: ")
    ]
    (reply,) = json_after(requested, "reply: ")
    assert json_after(responded, f"replied to {reply_queue}: ") == [reply]
    assert after(responded, "request (backed out 0 times): ") == [json.dumps(question)]
    assert isinstance(question, dict) and isinstance(reply, dict)
    factors = reply["prime_factors"]
    assert reply["number"] == question["factorise"] == prod(factors)
    assert all(is_prime(f) for f in factors), factors
    assert admin.display_queue(reply_queue) is None  # deleted as request.py closed it


def prod(numbers: list[int]) -> int:
    result = 1
    for n in numbers:
        result *= n
    return result


def check_backout(out: Outputs, admin: QueueManager) -> None:
    (responded,) = out.of(RESPOND)
    ended_well(responded, "closed", interrupted=True)
    # got under syncpoint, backed out THRESHOLD times (BackoutCount 0..4), moved at the next
    got = [
        after(responded, f"request (backed out {count} times): ") for count in range(THRESHOLD + 1)
    ]
    assert got == [[POISON.decode()]] * (THRESHOLD + 1), responded
    assert len(after(responded, "backed out: ")) == THRESHOLD, responded
    assert after(responded, f"moved to {BACKOUT_QUEUE} ") == [f"(MsgId {out.msg_ids[0].hex()})"]
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
        "getting_started put/get to localhost(1414)",
        (Run(GETTING_STARTED), Depth(QUEUE, 0)),
        check_getting_started,
    ),
    Case(
        "put then get",
        (Run(PUT), Depth(QUEUE, 1), Run(GET), Depth(QUEUE, 0)),
        check_put_get,
    ),
    Case(
        "publish to subscribe, durable and resumed",
        (
            Start(SUBSCRIBE, "waiting for publications"),
            Run(PUBLISH),
            Await(SUBSCRIBE, "publication: "),
            Interrupt(SUBSCRIBE),
            Run(PUBLISH),  # nobody reads: the durable subscription's queue keeps it
            Run(SUBSCRIBE, ("1",)),  # resumes the subscription, ends after one publication
        ),
        check_publish_subscribe,
        pubsub=True,
    ),
    Case(
        "request to respond over a temporary dynamic queue, with syncpoint",
        (
            Start(RESPOND, "answering requests"),
            Run(REQUEST),
            Depth(QUEUE, 0),  # the request's MQGET was committed
            Interrupt(RESPOND),
        ),
        check_request_response,
    ),
    Case(
        "respond backs out a poison request five times, then moves it",
        (
            Start(RESPOND, "answering requests"),
            Put(QUEUE, POISON),
            Await(RESPOND, f"moved to {BACKOUT_QUEUE}"),
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
def program_env(kafka_bootstrap: str, namespace: str) -> dict[str, str]:
    """What a user has after ``make run``: where Kafka is, and the namespace."""
    unset = ("MQSERVER", "MQCCDTURL", "MQK_KAFKA_CONFIG")
    return {
        **{k: v for k, v in os.environ.items() if k not in unset},
        "MQK_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "MQK_NAMESPACE": namespace,
        "PYTHONUNBUFFERED": "1",
        "REPLY_WAIT_SECONDS": str(ENOUGH),  # request.py's wait for its reply
    }


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_pymqi_example(
    case: Case, admin: QueueManager, program_env: dict[str, str], request: pytest.FixtureRequest
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
                running[step.program] = Background(step.program, program_env)
                running[step.program].await_text(step.ready)
            elif isinstance(step, Run):
                done = subprocess.run(
                    [sys.executable, str(EXAMPLES / step.program), *step.args], env=program_env,
                    text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=ENOUGH,
                )  # fmt: skip
                assert done.returncode == 0, done.stdout
                out.runs.setdefault(step.program, []).append(done.stdout)
            elif isinstance(step, Await):
                running[step.program].await_text(step.text, step.count)
            elif isinstance(step, Interrupt):
                printed = running.pop(step.program).interrupt()
                out.runs.setdefault(step.program, []).append(printed)
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
