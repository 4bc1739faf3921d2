"""The matcher's work per publication counted, not timed: instructions and cache misses under
valgrind's cachegrind. Prints figures, asserts nothing.

    python -m bench.bench_matcher_counts [--subs 200000] [--pubs 40000] [--ll-mb 4]

Timings on a shared machine swing by 1.5x between identical runs (bench_matcher's cold
figure: 11.6 to 15 µs in one hour), which hides any change smaller than that. Cachegrind
simulates the caches, so its counts repeat exactly (string hashing seeded): it runs the
same build of ``--subs`` subscriptions (bench_matcher's mix, seed 7) twice, once matching
no publication and once ``--pubs`` random ones, and the difference per publication is the
matcher's: instructions (the interpretation part), L1 data misses, and last-level misses
(the part that goes to memory). The last level is scaled down with the index (200,000
subscriptions in 4 MB, as 1,000,000 in 20 MB) so that the run takes minutes, not an hour;
cachegrind runs ~50x slower than the CPU. Needs valgrind on the PATH (a system package,
not a dependency); not in the default ``make bench``: ``make bench BENCH=bench_matcher_counts``.
Cachegrind models no hardware prefetch: a change that saves a cache line next to one read
anyway shows more here than in time.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from bench.bench_matcher import build_index, publications, subscriptions
from mqkafka.mq.topics import DEFAULT_STREAM

SEED = 7
TOPIC_POOL = 40_000  # publications drawn whatever --pubs is, so that both runs draw alike


def child(subs: int, pubs: int) -> None:
    """Build the index, then match the first ``pubs`` publications (run under cachegrind)."""
    rnd = random.Random(SEED)
    index = build_index(subscriptions(subs, rnd))
    topics = publications(max(TOPIC_POOL, pubs), subs, rnd)[:pubs]
    gc.freeze()
    matched = sum(len(index.match(DEFAULT_STREAM, topic)) for topic in topics)
    print(f"matched {matched} keys for {pubs} publications")


def _counts(path: Path) -> tuple[dict[str, int], dict[str, Counter[str]]]:
    """The summary counts and the counts per function of a cachegrind output file."""
    events: list[str] = []
    per_function: dict[str, Counter[str]] = {}
    function = ""
    summary: dict[str, int] = {}
    for line in path.read_text().splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("fn="):
            function = line[3:]
        elif line.startswith("summary:"):
            summary = dict(zip(events, map(int, line.split()[1:]), strict=True))
        elif line[:1].isdigit() and function:
            counts = per_function.setdefault(function, Counter())
            counts.update(dict(zip(events, map(int, line.split()[1:]), strict=False)))
    return summary, per_function


def _ll_misses(counts: Mapping[str, float]) -> float:
    """Last-level misses, reads and writes."""
    return counts.get("DLmr", 0) + counts.get("DLmw", 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--subs", type=int, default=200_000)
    parser.add_argument("--pubs", type=int, default=40_000)
    parser.add_argument("--ll-mb", type=int, default=4, help="simulated last-level cache")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.subs, args.pubs)
        return
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        outputs = {pubs: Path(tmp) / f"cachegrind.{pubs}" for pubs in (0, args.pubs)}
        runs = [
            subprocess.Popen(
                [
                    "valgrind",
                    "--tool=cachegrind",
                    "--cache-sim=yes",
                    f"--LL={args.ll_mb * 1024 * 1024},16,64",
                    f"--cachegrind-out-file={output}",
                    sys.executable,
                    "-m",
                    "bench.bench_matcher_counts",
                    "--child",
                    f"--subs={args.subs}",
                    f"--pubs={pubs}",
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={**os.environ, "PYTHONHASHSEED": "0"},  # the same dict layouts each run
            )
            for pubs, output in outputs.items()
        ]
        for run in runs:
            run.wait()
            if run.returncode:
                sys.exit(f"a cachegrind run failed ({run.returncode})")
        (base, base_functions), (full, full_functions) = (
            _counts(outputs[0]),
            _counts(outputs[args.pubs]),
        )
    per_pub = {event: (full[event] - base[event]) / args.pubs for event in full}
    print(
        f"{args.subs:,} subscriptions, {args.pubs:,} random publications, last level"
        f" {args.ll_mb} MB: per publication {per_pub['Ir']:,.0f} instructions,"
        f" {per_pub['D1mr'] + per_pub['D1mw']:.1f} L1 data misses,"
        f" {_ll_misses(per_pub):.2f} last-level misses"
    )
    misses = {
        function: (_ll_misses(counts) - _ll_misses(base_functions.get(function, Counter())))
        / args.pubs
        for function, counts in full_functions.items()
    }
    print("last-level misses per publication by function (CPython's C functions):")
    for function, count in sorted(misses.items(), key=lambda item: -item[1])[:8]:
        print(f"    {count:6.2f}  {function}")


if __name__ == "__main__":
    main()
