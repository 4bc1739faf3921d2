"""``make bench``: every benchmark in turn, each printing its own figures."""

from __future__ import annotations

import subprocess
import sys

BENCHES = [
    "bench_codecs",
    "bench_matcher",
    "bench_engine",
    "bench_identity",
    "bench_selectors",
    "bench_state",
    "bench_mqi",
    "bench_relay",
    "bench_fanout",
    "bench_service",
    "bench_listing",
    "bench_cold_fanout",
    "bench_kafka_native",
    "bench_deploy",
    "bench_resilience",
    "bench_faust",
]

if __name__ == "__main__":
    # make bench BENCH=resilience or BENCH=bench_resilience
    chosen = [n if n.startswith("bench_") else f"bench_{n}" for n in sys.argv[1:]] or BENCHES
    failed = []
    for name in chosen:
        print(f"\n=== {name} ===", flush=True)
        if subprocess.run([sys.executable, "-m", f"bench.{name}"], check=False).returncode:
            failed.append(name)
    sys.exit(1 if failed else 0)
