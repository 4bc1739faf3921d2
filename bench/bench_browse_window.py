"""How long after a non-syncpoint MQGET another process's browse may still show the message,
and what acknowledging it sooner costs the MQGET rate; prints figures (issue 35).

    python -m bench.bench_browse_window [--n 20000] [--rounds 2] [--gets 15] [--gaps 0.01]
        [--browsed 40000] [--only-browsed]

Uses the broker in $MQK_BOOTSTRAP_SERVERS, or starts a throw-away local one. A browse reads
Kafka's per-record share state, which Kafka writes before it answers an acknowledgement: the
window is the time from MQGET's return until the getter's acknowledgement is answered. For
each ``getter.ACK_GAP`` given (the least time between the keeper's commits of a busy lane),
and for persistent messages (committed before MQGET returns):

- rate: non-syncpoint MQGET of ``n`` messages of 256 bytes in one process, and the process's
  CPU per MQGET (every thread's; steadier than the rate on a shared machine);
- idle: a getter in another OS process gets one message ten times a second and makes no
  further call; the median time from its MQGET's return to the answer of the commit that
  carried it (0 when before the return), and how many browses from this process, made
  after it, still showed the message (must be 0);
- busy: the getter gets back to back for 2 s while this process browses; per MQGET the same
  time: median, p99, largest, and the p99 of a commit's round trip.

Measured on the 2-core development VM (load average 8-29 from other work; one broker, 20,000
gets, medians of 3 rounds), at commit 8a2192d, whose ``getter.ACK_MODE`` (since removed) also
ran the old batching and a strict commit of non-persistent messages:

    acknowledgement                     gets/s  CPU/get  idle    busy: median, p99, max
    keeper at once, ACK_GAP 10 ms       38,255  17.1 us  1.6 ms  8.5, 42, 55 ms   (chosen)
    batched: ACK_FLUSH 0.5 s, on fetch   7,409  25.1 us  279 ms  19.5, 176, 422 ms
    strict: committed before return        855   138 us  0       0
    persistent (always strict)           1,047   162 us  0       0

A run of this version side by side with ACK_GAP 0.5 s (load average 25-50): the busy getter
got 28,229 against 29,153 messages/s, busy p99 78 against 656 ms, idle 2.0 against 279 ms.
A run at a load average of 28: 12 ms idle, busy p99 383 ms, with a
commit's round trip at p99 153 ms (the window is about two of them plus ACK_GAP). Rates
moved 4x between rounds of one setting (28,498 and 13,095 gets/s for the chosen one in
an earlier run); the CPU per get did not. Times across the two processes are ``time.time()``
on the one machine.

Then the browse barrier (mqi/kafkaqm/browsebarrier.py: a browse call asks the getters
elsewhere to commit first), side by side and interleaved: a getter in another process
(devsupport/browsegetter.py) gets ``--browsed`` non-persistent messages flat out alone, and
while this process walks the oldest ten again and again (BROWSE_FIRST and nine
BROWSE_NEXT): through the barrier at every call (``strict``), at BROWSE_FIRST only
(``first``, the code before BROWSE_NEXT was strict), and with no barrier (``none``); the
getter's gets/s, how long a walk of ten took, the barrier's wait per browse call, and the
messages a call showed whose MQGET had returned before that call began, or before the
walk's BROWSE_FIRST began (``--only-browsed`` runs this part alone).

    python -m bench.bench_browse_window --only-browsed --rounds 3 --browsed 40000

at commit 1ba6dc8, 3 rounds, load average 33-45 on the 2-core VM (medians):

    mode     gets/s   walk of 10   barrier per call      shown after MQGET returned,
                                   median, p99           before the call / the walk's first
    alone    11,298
    strict    7,902     3,085 ms    67.1, 387.3 ms        0 / 0     (0 0 0 in the rounds)
    first     7,145       281 ms    82.5, 366.7 ms (*)  109 / 0
    none      3,905       308 ms    -                   205 / 22

A run at commit e6213e5 (held messages named too), 2 rounds, load average 14-21: alone
13,875; strict 9,801, walk 4,216 ms, 81.9 / 359.7 ms a call, 0 / 0 shown; first 11,871,
410 ms, 82.3 / 345.4 ms (*), 55 / 0; none 12,580, 208 ms, 109 / 12.

(*) per BROWSE_FIRST: its BROWSE_NEXT calls waited for nothing. The getter's rate is the
machine's load more than the browse's (rates moved 3,320-15,011 alone between rounds); the
strict walk pays a round per call with the getter at work elsewhere, and then passes over
what the getter got meanwhile (a profile of one walk at a load average of 45: rounds 302 ms
median, the share state read again 135 ms, the reader's next 117 ms). A run before
BROWSE_NEXT was strict (load average 18-24): alone 27,097, first 20,275 (0 shown before the
walk's first), none 14,292 (2). Nobody browsing, the barrier costs nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import astuple, dataclass
from typing import Any

from devsupport.browsegetter import (
    Shown,
    browse_oldest,
    browse_walk,
    getter_process,
    shown_after_first,
    shown_after_get,
)

from bench.bench_mqi_kafka import MAX_DEPTH
from bench.kafka_env import kafka
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD, MQMIError
from mqkafka.mqi.kafkaqm import browsebarrier, browsecursor
from mqkafka.mqi.kafkaqm import getter as getter_module
from mqkafka.mqi.kafkaqm.browsebarrier import Settled
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

GETTER = """
import bisect, statistics, sys, time
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C, GMO, MD, MQMIError
from mqkafka.mqi.kafkaqm import getter, lane
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

bootstrap, namespace, name, gap = sys.argv[1:5]
getter.ACK_GAP = float(gap)
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
        first, start = len(accepted), time.time()
        while time.monotonic() < end:
            try:  # the queue may run dry: a short wait ends it
                queue.get(None, MD(), GMO(Options=gmo.Options, WaitInterval=500))
            except MQMIError as error:
                if error.reason != RC.NO_MSG_AVAILABLE:
                    raise
                break
            returns.append(time.time())
        seconds = returns[-1] - start
        time.sleep(1.0)  # the last ones committed
        pairs = zip(accepted[first:], returns)
        waits = sorted(w for w in (window(a, r) for a, r in pairs) if w is not None)
        p99 = waits[int(len(waits) * 0.99)]
        trips = sorted(e - b for b, e in zip(starts, ends) if b >= returns[0] - 0.01)
        trip = trips[int(len(trips) * 0.99)] if trips else 0.0
        rate = len(returns) / seconds
        print(rate, statistics.median(waits), p99, waits[-1], trip, flush=True)
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


def rate(qmgr: QueueManager, n: int, persistent: bool) -> tuple[float, float]:
    """MQGETs per second, and the process's CPU per MQGET in µs (every thread's: the
    keeper's commits and librdkafka's too; steadier than the rate on a shared machine)."""
    name = f"BENCH.WRATE.{uuid.uuid4().hex[:8].upper()}"
    qmgr.define_queue(name, max_depth=MAX_DEPTH)
    fill(qmgr, name, [b"%0256d" % i for i in range(n)], persistent)
    queue = Queue(qmgr, name, C.MQOO_INPUT_SHARED)
    gmo = GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=10_000)
    queue.get(None, MD(), gmo)  # joining the share group is not measured
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(n - 1):
        queue.get(None, MD(), gmo)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    queue.close()
    return (n - 1) / seconds, cpu * 1e6 / (n - 1)


def windows(
    qmgr: QueueManager, bootstrap: str, gap: float, persistent: bool, gets: int
) -> tuple[float, ...]:
    """Idle: median wait of a get's acceptance for its commit, and browses after it that
    still showed the message (should be none). Busy: rate, median, p99, max wait (ms)."""
    name = f"BENCH.WINDOW.{uuid.uuid4().hex[:8].upper()}"
    qmgr.define_queue(name, max_depth=MAX_DEPTH)
    fill(qmgr, name, [b"w%05d" % i for i in range(gets)], persistent)
    browser = Queue(qmgr, name, C.MQOO_BROWSE)
    namespace = qmgr.connection.settings.namespace
    proc = subprocess.Popen(
        [sys.executable, "-c", GETTER, bootstrap, namespace, name, str(gap)],
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
    return (
        statistics.median(idle) * ms,
        shown_after,
        busy[0],
        *(v * ms for v in busy[1:4]),
        busy[4],
    )


def browsed_getter(qmgr: QueueManager, bootstrap: str, n: int, mode: str) -> Browsed:
    """Another process gets ``n`` messages flat out (``devsupport/browsegetter.py``), with
    this process walking the oldest ten again and again meanwhile, or not (``alone``): its
    gets/s; the walks, the barrier's median and p99 wait per browse call (ms), and the
    messages a call showed whose MQGET had returned before that call began (and before the
    walk's BROWSE_FIRST began). Modes: ``strict`` every call through the barrier (BROWSE_NEXT
    too), ``first`` only BROWSE_FIRST (as before BROWSE_NEXT was strict), ``none`` no
    barrier at all (as before the barrier)."""
    name = f"BENCH.BARRIER.{uuid.uuid4().hex[:8].upper()}"
    qmgr.define_queue(name, max_depth=MAX_DEPTH)
    fill(qmgr, name, [b"g%07d" % i for i in range(n)], False)
    browser = Queue(qmgr, name, C.MQOO_BROWSE)
    browse_oldest(browser, 1)  # the browse's reader made before the run
    waits: list[float] = []
    barrier = browsebarrier.BrowseBarrier.before_browse
    settled = browsecursor.settled_since

    def timed(self: browsebarrier.BrowseBarrier, conn: Any, queue: str) -> Settled:
        began = time.perf_counter()
        try:
            return barrier(self, conn, queue)
        finally:
            waits.append(time.perf_counter() - began)

    def skipped(self: browsebarrier.BrowseBarrier, conn: Any, queue: str) -> Settled:
        return Settled(None)  # as before the barrier

    def first_only(conn: Any, handle: Any, reader: Any) -> None:
        return None  # BROWSE_NEXT as before it was strict: what was fetched since FIRST

    namespace = qmgr.connection.settings.namespace
    walks: list[Shown] = []
    lasted: list[float] = []  # seconds each walk took
    browsebarrier.BrowseBarrier.before_browse = (  # type: ignore[method-assign]
        skipped if mode == "none" else timed
    )
    if mode in ("first", "none"):
        browsecursor.settled_since = first_only
    try:
        with getter_process(bootstrap, namespace, name, idle=1.0) as getter:
            getter.go()
            while mode != "alone":
                began = time.perf_counter()
                walk = browse_walk(browser, 10)
                walks.append(walk)
                if not walk:
                    break
                lasted.append(time.perf_counter() - began)
            run = getter.result()
    finally:
        browsebarrier.BrowseBarrier.before_browse = barrier  # type: ignore[method-assign]
        browsecursor.settled_since = settled
        browser.close()
    waits.sort()
    p99 = waits[int(len(waits) * 0.99)] if waits else 0.0
    median = statistics.median(waits) if waits else 0.0
    late = len(shown_after_get(walks, run.returned))
    return Browsed(
        run.rate,
        len(walks),
        statistics.median(lasted) * 1000 if lasted else 0.0,
        median * 1000,
        p99 * 1000,
        late,
        shown_after_first(walks, run.returned),
    )


@dataclass
class Browsed:
    rate: float
    walks: int
    walk: float  # ms a walk of ten took, median
    median: float  # ms per browse call, in the barrier
    p99: float
    late: int  # shown after their MQGET returned before the call began
    late_first: int  # ... before the walk's BROWSE_FIRST began


def say(
    got: float,
    cpu: float,
    idle: float,
    shown: float,
    busy_rate: float,
    median: float,
    p99: float,
    top: float,
    trip: float,
) -> str:
    return (
        f"{got:>7,.0f} gets/s, {cpu:5.1f} µs CPU each; idle: committed {idle:5.1f} ms after "
        f"MQGET returned (browses showing it after: {shown:g}); busy ({busy_rate:>6,.0f}/s): "
        f"median {median:5.1f} ms, p99 {p99:5.1f} ms, max {top:5.1f} ms "
        f"(a commit's round trip, p99: {trip * 1000:5.1f} ms)"
    )


MODES = ("alone", "strict", "first", "none")


def side_by_side(qmgr: QueueManager, bootstrap: str, n: int, rounds: int) -> None:
    """Another process's gets/s alone, while this one walks through the barrier at every
    call, at BROWSE_FIRST only, and with no barrier (interleaved: the load moves)."""
    print(f"a getter in another process, {n:,} non-persistent messages flat out:")
    rows: dict[str, list[Browsed]] = {m: [] for m in MODES}
    for _ in range(rounds):
        for mode in MODES:
            row = browsed_getter(qmgr, bootstrap, n, mode)
            rows[mode].append(row)
            print(f"  {mode:<7} {say_browsed(row)}", flush=True)
    print("  medians:")
    for mode, kept in rows.items():
        rate, walks, walk, median, p99, late, first = (
            statistics.median(c) for c in zip(*(astuple(r) for r in kept), strict=True)
        )
        row = Browsed(rate, round(walks), walk, median, p99, round(late), round(first))
        print(f"  {mode:<7} {say_browsed(row)}")


def say_browsed(row: Browsed) -> str:
    if not row.walks:
        return f"{row.rate:>7,.0f} gets/s"
    waited = (
        f"barrier per call median {row.median:5.1f} ms, p99 {row.p99:5.1f} ms; "
        if row.median
        else ""
    )
    return (
        f"{row.rate:>7,.0f} gets/s; {row.walks} walks of {row.walk:4.0f} ms, {waited}"
        "shown after their MQGET "
        f"returned: {row.late} before the call, {row.late_first} before the walk's first"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--gets", type=int, default=15)
    parser.add_argument("--gaps", default=f"{getter_module.ACK_GAP},{getter_module.ACK_FLUSH}")
    parser.add_argument("--browsed", type=int, default=40_000, help="messages per browsed run")
    parser.add_argument("--only-browsed", action="store_true", help="the side by side alone")
    args = parser.parse_args()
    settings = [(f"gap {float(gap):g} s", float(gap), False) for gap in args.gaps.split(",")]
    settings.append(("persistent", getter_module.ACK_GAP, True))
    with kafka() as bootstrap:
        namespace = f"benchw{uuid.uuid4().hex[:6]}."
        qmgr = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace)
        print(f"Kafka at {bootstrap}; {args.n:,} gets per rate, {args.gets} idle gets per window")
        results: dict[str, list[tuple[float, ...]]] = {label: [] for label, *_ in settings}
        side_by_side(qmgr, bootstrap, args.browsed, args.rounds)
        for _ in range(0 if args.only_browsed else args.rounds):  # interleaved: the load moves
            for label, gap, persistent in settings:
                saved = getter_module.ACK_GAP
                getter_module.ACK_GAP = gap
                try:
                    got, cpu = rate(qmgr, args.n // 10 if persistent else args.n, persistent)
                finally:
                    getter_module.ACK_GAP = saved
                window = windows(qmgr, bootstrap, gap, persistent, args.gets)
                results[label].append((got, cpu, *window))
                print(f"  {label:<12} {say(got, cpu, *window)}", flush=True)
        print("medians over rounds:")
        for label, rows in results.items():
            if not rows:
                continue
            cols = [statistics.median(col) for col in zip(*rows, strict=True)]
            print(f"  {label:<12} {say(*cols)}")
        qmgr.disconnect()


if __name__ == "__main__":
    main()
