#!/usr/bin/env bash
# Issue 34's scale-out figures on the lent 16-core machine (../shared/design/device-bench.md):
# bench_service at 256 B, 300,000 publications, warm, with 1, 2 and 4 workers (the relays and
# a run without activity events beside the 1-worker run), one local Kafka 4.2 broker.
#
# The machine starts bare and one call carries 64 MiB at most, so the same script serves three
# steps, each from the repository root:
#   bench/device_scaleout.sh prepare   here: .dev/jre.tgz, .dev/whl, .dev/cache (git-ignored)
#   bench/device_scaleout.sh setup     device call 1, carry [".dev/whl", ".dev/jre.tgz"]
#   bench/device_scaleout.sh run       device call 2 at once, carry [".dev/cache"]; the JSON
#                                      lands in $OUT/scaleout.json, the log in $OUT/
# MQK_WORKERS, MQK_RECORDS and MQK_REPEATS change the run: activity on / off alone, medians of
# 3 (issue 34 point 4): MQK_WORKERS=1 MQK_REPEATS=3 bench/device_scaleout.sh run
# The product runs from the source tree that travels with each call (no wheel of it).
set -euo pipefail

DEV=${MQK_DEV:-/tmp/dev}
KAFKA=4.2.0
step=${1:-run}

case "$step" in
prepare)
    mkdir -p .dev/whl .dev/cache
    grep -qx '.dev/' .git/info/exclude 2>/dev/null || echo '.dev/' >> .git/info/exclude
    if [ ! -f .dev/jre.tgz ]; then
        rm -rf /tmp/jre
        jlink --add-modules java.base,java.management,java.naming,java.security.jgss,java.security.sasl,java.xml,jdk.unsupported,java.logging,java.sql,jdk.management,java.scripting,jdk.crypto.ec,java.desktop \
            --strip-debug --no-header-files --no-man-pages --compress=2 --output /tmp/jre
        tar czf .dev/jre.tgz -C /tmp jre
    fi
    jars="${MQK_CACHE:-$HOME/.cache/mqkafka}/kafka-$KAFKA"
    [ -f "$jars/complete" ] || .venv/bin/python -c "from mqkafka.kafka.brokerjars import ensure_jars; ensure_jars()"
    [ -f ".dev/cache/kafka-$KAFKA/complete" ] || cp -r "$jars" .dev/cache/
    [ "$(ls .dev/whl | wc -l)" -ge 8 ] || python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
        --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 -d .dev/whl confluent-kafka==2.16.1 rocksdict==0.3.29 \
        fastavro==1.13.1 prometheus-client rich markdown-it-py mdurl pygments
    du -sh .dev/whl .dev/jre.tgz .dev/cache
    ;;
setup)
    mkdir -p "$DEV"
    tar xzf .dev/jre.tgz -C "$DEV"
    python3 -m venv --without-pip "$DEV/venv"
    python3 -m pip install -q --no-index --no-deps --target "$DEV/site" .dev/whl/*.whl
    site=$("$DEV/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    echo "$DEV/site" > "$site/dev-site.pth"
    printf '#!%s\nimport sys\nfrom mqkafka.cli import main\nsys.exit(main())\n' \
        "$DEV/venv/bin/python" > "$DEV/venv/bin/mqk"
    chmod +x "$DEV/venv/bin/mqk"
    "$DEV/venv/bin/python" -c "import confluent_kafka, rocksdict, fastavro; print('setup done')"
    ;;
run)
    out=${OUT:-/tmp/dev/out}
    mkdir -p "$out"
    site=$("$DEV/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    echo "$PWD/service" > "$site/mqk-source.pth"  # this call's copy of the tree
    export PATH="$DEV/jre/bin:$PATH" MQK_CACHE="$PWD/.dev/cache" MQK_HOME="$DEV/home"
    nproc; "$DEV/venv/bin/python" -c "import mqkafka; print(mqkafka.__file__)"
    bootstrap=$("$DEV/venv/bin/mqk" kafka start | tail -1)
    export MQK_BOOTSTRAP_SERVERS="$bootstrap"
    trap '"$DEV/venv/bin/mqk" kafka stop || true' EXIT
    timeout 470 "$DEV/venv/bin/python" -m bench.bench_service --only throughput --sizes 256 \
        --records "${MQK_RECORDS:-300000}" --warm --workers ${MQK_WORKERS:-1 2 4} --activity-off \
        --repeats "${MQK_REPEATS:-1}" \
        > "$out/scaleout.json" 2> "$out/scaleout.log" || echo "bench exit $?"
    grep '^{"256' "$out/scaleout.json" || tail -30 "$out/scaleout.log"
    ;;
*)
    echo "usage: $0 prepare|setup|run" >&2
    exit 2
    ;;
esac
