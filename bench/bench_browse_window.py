"""How long another process's browse may show a message got outside syncpoint, and what
the getter's way of acknowledging costs its MQGET rate; prints figures (issue 35).

    python -m bench.bench_browse_window [--n 20000] [--rounds 2] [--gaps 0.01,0.5]

Uses the broker in $MQK_BOOTSTRAP_SERVERS, or starts a throw-away local one. For each
setting of ``getter.ACK_GAP`` (the least time between the keeper's commits of a busy lane;
0.5 is the old batching, ``ACK_FLUSH``), and for persistent messages (acknowledged before
MQGET returns):

- rate: non-syncpoint MQGET of ``n`` messages of 256 bytes, one process (``timed_gets``);
- idle window: a getter in another OS process gets one message and makes no further call;
  this process browses (MQGMO_BROWSE_FIRST) until the message is no longer first. Printed:
  the median, over ``--gets`` messages, of the time from the getter's MQGET returning to the
  end of the first browse that no longer showed it (an upper bound: a browse takes a few ms),
  and the median browse's own duration;
- busy window: the getter gets back to back for a few seconds while this process browses;
  for each browse that showed a message already got, how long after its MQGET had returned
  the browse began (a lower bound of the window): the median and the largest.

Times across the two processes are ``time.time()`` on the one machine.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import uuid

from bench.bench_mqi_kafka import MAX_DEPTH
from bench.kafka_env import kafka
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD, MQMIError
from mqkafka.mqi.kafkaqm import getter as getter_module
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

GETTER = """
import bisect, statistics, sys, time
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C, GMO, MD, MQMIError
from mqkafka.mqi.kafkaqm import getter, lane
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

bootstrap, namespace, name, gap, mode = sys.argv[1:6]
getter.ACK_GAP = float(gap)
if mode:
    getter.ACK_MODE = mode
# when acknowledgements were handed to the client and when Kafka had them (a commit's
# answer, or the end of the poll that carried them); when each MQGET accepted its message
starts, ends, accepted = [], [], []
commit, poll, accept = lane.Lane._commit, lane.Lane.poll, getter.Getter.accept

def timed_commit(self):
    started, had = time.time(), self.unsent
    commit(self)
    if had and self.unsent < had:
        starts.append(started)
        ends.append(time.time())

def timed_poll(self, timeout):
    started, had = time.time(), self.unsent
    try:
        return poll(self, timeout)
    finally:
        if had:
            starts.append(started)
            ends.append(time.time())

def timed_accept(self, taken, **options):
    accepted.append(time.time())
    accept(self, taken, **options)

lane.Lane._commit, lane.Lane.poll, getter.Getter.accept = timed_commit, timed_poll, timed_accept
qmgr = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace)
queue = Queue(qmgr, name, C.MQOO_INPUT_SHARED)
gmo = GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=15000)

def window(accepted_at, returned):
    # the first sending that began after the acceptance carried it
    at = bisect.bisect_left(starts, accepted_at)
    return max(ends[at] - returned, 0.0) if at < len(starts) else None

for line in sys.stdin:
    if line.startswith("busy"):  # back to back: rate, and each get's wait for its commit
        end, returns = time.monotonic() + float(line.split()[1]), []
        first = len(accepted)
        start = time.perf_counter()
        while time.monotonic() < end:
            try:
                queue.get(None, MD(), gmo)
            except MQMIError as error:
                if error.reason != RC.NO_MSG_AVAILABLE:
                    raise
                break
            returns.append(time.time())
        seconds = time.perf_counter() - start
        time.sleep(1.0)  # the last ones committed
        pairs = zip(accepted[first:], returns)
        waits = sorted(w for w in (window(a, r) for a, r in pairs) if w is not None)
        p99 = waits[int(len(waits) * 0.99)]
        print(len(returns) / seconds, statistics.median(waits), p99, waits[-1], flush=True)
        continue
    queue.get(None, MD(), gmo)
    returned = time.time()
    deadline = time.monotonic() + 2
    while window(accepted[-1], returned) is None and time.monotonic() < deadline:
        time.sleep(0.0005)
    print(window(accepted[-1], returned) or 0.0, flush=True)
queue.close()
qmgr.disconnect()
"""


def first_shown(queue: Queue) -> bytes | None:
    try:
        return queue.get(None, MD(), GMO(Options=C.MQGMO_BROWSE_FIRST))
    except MQMIError as error:
        if error.reason != RC.NO_MSG_AVAILABLE:
            raise
        return None


def fill(qmgr: QueueManager, name: str, bodies: list[bytes], persistent: bool) -> None:
    out = Queue(qmgr, name, C.MQOO_OUTPUT)
    for body in bodies:
        out.put(body, MD(Persistence=C.MQPER_PERSISTENT if persistent else C.MQPER_NOT_PERSISTENT))
    qmgr.connection.producer.flush(120)
    out.close()


def rate(qmgr: QueueManager, n: int, persistent: bool) -> float:
    name = f"BENCH.WRATE.{uuid.uuid4().hex[:8].upper()}"
    qmgr.define_queue(name, max_depth=MAX_DEPTH)
    fill(qmgr, name, [b"%0256d" % i for i in range(n)], persistent)
    queue = Queue(qmgr, name, C.MQOO_INPUT_SHARED)
    gmo = GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=10_000)
    queue.get(None, MD(), gmo)  # joining the share group is not measured
    start = time.perf_counter()
    for _ in range(n - 1):
        queue.get(None, MD(), gmo)
    seconds = time.perf_counter() - start
    queue.close()
    return (n - 1) / seconds


def windows(
    qmgr: QueueManager, bootstrap: str, gap: float, mode: str, persistent: bool, gets: int
) -> tuple[float, ...]:
    """Idle: median wait of a get's acceptance for its commit, and browses after it that
    still showed the message (should be none). Busy: rate, median, p99, max wait (ms)."""
    name = f"BENCH.WINDOW.{uuid.uuid4().hex[:8].upper()}"
    qmgr.define_queue(name, max_depth=MAX_DEPTH)
    fill(qmgr, name, [b"w%05d" % i for i in range(gets)], persistent)
    browser = Queue(qmgr, name, C.MQOO_BROWSE)
    namespace = qmgr.connection.settings.namespace
    proc = subprocess.Popen(
        [sys.executable, "-c", GETTER, bootstrap, namespace, name, str(gap), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    idle: list[float] = []
    shown_after = 0
    try:
        for i in range(gets):
            proc.stdin.write("get\n")
            proc.stdin.flush()
            idle.append(float(proc.stdout.readline()))
            if first_shown(browser) == b"w%05d" % i:
                shown_after += 1  # committed, and still shown: browse would be wrong
            time.sleep(0.1)  # a getter of ten messages a second
        fill(qmgr, name, [b"b%05d" % i for i in range(30_000)], persistent)
        proc.stdin.write("busy 2\n")
        proc.stdin.flush()
        busy = [float(v) for v in proc.stdout.readline().split()]
    finally:
        proc.stdin.close()
        proc.wait(60)
        browser.close()
    ms = 1000.0
    return (statistics.median(idle) * ms, shown_after, busy[0], *(v * ms for v in busy[1:]))


def say(
    got: float, idle: float, shown: float, busy_rate: float, median: float, p99: float, top: float
) -> str:
    return (
        f"{got:>7,.0f} gets/s (busy other process {busy_rate:>7,.0f}); idle: committed "
        f"{idle:6.1f} ms after MQGET (shown after: {shown:g}); busy: median {median:6.1f} ms, "
        f"p99 {p99:6.1f} ms, max {top:6.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--gets", type=int, default=15)
    parser.add_argument("--gaps", default=f"{getter_module.ACK_GAP},{getter_module.ACK_FLUSH}")
    parser.add_argument("--modes", default="", help="MEASURING: extra ACK_MODEs (strict)")
    args = parser.parse_args()
    settings: list[tuple[str, float, str, bool]] = [
        (f"ACK_GAP {float(gap):g} s", float(gap), "", False) for gap in args.gaps.split(",")
    ]
    settings += [(f"mode {m}", getter_module.ACK_GAP, m, False) for m in args.modes.split(",") if m]
    settings.append(("persistent", getter_module.ACK_GAP, "", True))
    with kafka() as bootstrap:
        namespace = f"benchw{uuid.uuid4().hex[:6]}."
        qmgr = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace)
        print(f"Kafka at {bootstrap}; {args.n:,} gets per rate, {args.gets} idle gets per window")
        results: dict[str, list[tuple[float, ...]]] = {label: [] for label, *_ in settings}
        for _ in range(args.rounds):  # settings interleaved: the machine's load moves
            for label, gap, mode, persistent in settings:
                saved = getter_module.ACK_GAP, getter_module.ACK_MODE
                getter_module.ACK_GAP = gap
                getter_module.ACK_MODE = mode or saved[1]
                try:
                    n = args.n // 10 if persistent or mode == "strict" else args.n
                    got = rate(qmgr, n, persistent)
                finally:
                    getter_module.ACK_GAP, getter_module.ACK_MODE = saved
                window = windows(qmgr, bootstrap, gap, mode, persistent, args.gets)
                results[label].append((got, *window))
                print(f"  {label:<46} {say(got, *window)}", flush=True)
        print("medians over rounds:")
        for label, rows in results.items():
            cols = [statistics.median(col) for col in zip(*rows, strict=True)]
            print(f"  {label:<46} {say(*cols)}")
        qmgr.disconnect()


if __name__ == "__main__":
    main()
