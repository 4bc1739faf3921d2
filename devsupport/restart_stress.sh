#!/usr/bin/env bash
# The Kafka-restart test over and over, librdkafka's group debug lines (debug=cgrp) of every
# client kept per run, optionally beside CPU burners (the suite's load on a small machine).
#   devsupport/restart_stress.sh RUNS [BURNERS] [OUTDIR] [TEST]
# Prints one line per run (pass/fail, seconds, load average); a failed run's pytest output
# and its debug file stay in OUTDIR (a passed run's debug file is removed).
set -u
runs=${1:-10}
burners=${2:-0}
out=${3:-/tmp/restart-stress}
test=${4:-tests/integration/service/test_kafka_restart.py::test_the_service_rides_through_kafka_restarts_and_loses_nothing}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
pids=()
for ((b = 0; b < burners; b++)); do
    nice -n 5 python3 -c 'while True: pass' &
    pids+=($!)
done
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done' EXIT
passed=0
for ((i = 1; i <= runs; i++)); do
    debug="$out/run$i.cgrp.log"
    : >"$debug"
    start=$(date +%s)
    MQK_KAFKA_DEBUG=cgrp MQK_RDKAFKA_DEBUG_FILE="$debug" \
        PYTHONPATH="$here/devsupport/rdkafka_debug${PYTHONPATH:+:$PYTHONPATH}" \
        "$here/.venv/bin/python" -m pytest -q -p no:cacheprovider -x "$test" \
        >"$out/run$i.out" 2>&1
    rc=$?
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    if ((rc == 0)); then
        passed=$((passed + 1))
        rm -f "$debug"
        verdict=pass
    else
        verdict="FAIL (rc $rc: $out/run$i.out, $debug)"
    fi
    echo "run $i: $verdict in $(($(date +%s) - start)) s, load $load"
done
echo "passed $passed of $runs"
