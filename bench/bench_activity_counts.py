"""Activity's cost to a replayed publication counted, not timed: the dispatcher's instructions
per publication with activity and without, under valgrind's cachegrind (issue 34 point 4).
Prints figures, asserts nothing.

    python -m bench.bench_activity_counts [--batch 5000] [--batches 3] [--per-ms 20 1]

The in-process dispatcher of ``bench_fanout`` (fan-out 1, the corpus's 256 B publications, its
plans made first) handles batches of ``--batch`` publications, ``--per-ms`` of them sharing a
put millisecond (20: a partition's backlog; 1: a live flow, a put time of its own at each).
Each case runs twice, once handling a warm-up batch and once the warm-up and ``--batches``
more: the difference per publication leaves out the set-up. Timings on the shared 2-core VM
swing more than the effect (bench_service's single pairs 0.71-1.21); instruction counts repeat
(string hashing seeded, the clock faked). The ratio printed is off / on, the instructions'
stand-in for issue 34's "activity at >= 90% of no activity". Needs valgrind on the PATH;
cachegrind runs ~50x slower than the CPU (a few minutes here).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.bench_fanout import CorpusRecord, dispatcher, publications
from mqkafka.activity.blocks import COMPILED, PyBlocks
from mqkafka.activity.builder import MAX_BATCH_BYTES, ActivityRecorder

BASE_MS = 1_800_000_000_000  # put times of the batches: a ms since 1970, as Kafka's
LAG_MS = 40  # the batches are processed this long after their last put time


class Stamped(CorpusRecord):
    """A corpus publication with a put time (the record's timestamp) of its own."""

    def __init__(self, record: CorpusRecord, put_ms: int) -> None:
        super().__init__(record.value(), record.headers(), record.offset())
        self._put_ms = put_ms

    def timestamp(self) -> tuple[int, int]:
        return (1, self._put_ms)


def child(activity: bool, batch: int, batches: int, per_ms: int, python: bool) -> None:
    """Handle a warm-up batch and ``batches`` more (run under cachegrind)."""
    d = dispatcher(1)
    if not activity:
        d.activity = None
    elif python:
        d.activity = ActivityRecorder("mqk-activity", "QM1", "bench", PyBlocks(MAX_BATCH_BYTES))
    pubs = [r for r in publications(batch, 256) if isinstance(r, CorpusRecord)]
    runs = []
    for n in range(1 + max(batches, 3)):  # made alike whatever ``batches`` is
        first = BASE_MS + n * (batch // per_ms + LAG_MS)
        runs.append([Stamped(r, first + i // per_ms) for i, r in enumerate(pubs)])
    clock = iter([(run[-1].timestamp()[1] + LAG_MS) / 1000 for run in runs])
    d.ctx = dataclasses.replace(d.ctx, clock=lambda: next(clock))
    gc.freeze()  # the set-up's objects out of the collections the batches trigger
    handled = 0
    for run in runs[: 1 + batches]:
        handled += len(d.handle(run))
        d.committed()
    print(f"{handled} records")


def _instructions(path: Path) -> int:
    for line in path.read_text().splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise ValueError(f"no summary in {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, default=5000)
    parser.add_argument("--batches", type=int, default=3)
    parser.add_argument("--per-ms", type=int, nargs="+", default=[20, 1])
    parser.add_argument(
        "--python", action="store_true", help="the Python twin of the compiled blocks"
    )
    parser.add_argument("--child", choices=["on", "off"], help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child == "on", args.batch, args.count, args.per_ms[0], args.python)
        return
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    for per_ms in args.per_ms:
        per_pub: dict[str, float] = {}
        with tempfile.TemporaryDirectory() as tmp:
            cases = [(a, c) for a in ("off", "on") for c in (0, args.batches)]
            outputs = {case: Path(tmp) / f"cg.{case[0]}.{case[1]}" for case in cases}
            runs = [
                subprocess.Popen(
                    [
                        "valgrind",
                        "--tool=cachegrind",
                        "--cache-sim=no",
                        f"--cachegrind-out-file={outputs[(on, count)]}",
                        sys.executable,
                        "-m",
                        "bench.bench_activity_counts",
                        f"--child={on}",
                        f"--count={count}",
                        f"--batch={args.batch}",
                        f"--per-ms={per_ms}",
                        *(["--python"] if args.python else []),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env={**os.environ, "PYTHONHASHSEED": "0"},
                )
                for on, count in cases
            ]
            for run in runs:
                if run.wait():
                    sys.exit(f"a cachegrind run failed ({run.returncode})")
            for case in ("off", "on"):
                full = _instructions(outputs[(case, args.batches)])
                base = _instructions(outputs[(case, 0)])
                per_pub[case] = (full - base) / (args.batches * args.batch)
        off, on = per_pub["off"], per_pub["on"]
        print(
            f"{per_ms:>2} publications a put ms: off {off:,.0f}, on {on:,.0f} instructions a"
            f" publication (activity +{on - off:,.0f}); off / on {off / on:.3f}"
            f" (blocks {'compiled' if COMPILED and not args.python else 'in Python'})"
        )


if __name__ == "__main__":
    main()
