"""The broker service on a real Kafka: throughput, fan-out, latency, state backends, restart.

Every figure comes from one run on one broker, side by side, so the ratios hold on a noisy
machine. The service runs as a real ``mqk serve`` subprocess; publications are pre-filled on
the stream queue as datagrams (no replies) while it is stopped, and the run is timed from the
first to the last delivery committed on the subscriber queues.

The runs themselves (the workers, the timing, what each measured) are ``bench.service_run``'s;
this module makes the figures from them.

Run: ``python -m bench.bench_service [--records N] [--only NAME ...]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from confluent_kafka import Producer

from bench import corpus
from bench import latency as lat
from bench.bench_relay import RELAYS
from bench.kafka_env import (
    create_topic,
    kafka,
    kafka_settings,
)
from bench.service_run import (
    CPU_SPLIT,
    CPU_US,
    LAST_RELAYS,
    LAST_RSS,
    LAST_WORKERS,
    MQK,
    Service,
    create_topic_named,
    delivered_span,
    holdings,
    namespace_for,
    partitions_of,
    relay_baseline,
    throughput,
    wait_committed,
    wait_members,
)
from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.kafka.clientconfig import load_client_config
from mqkafka.mq.commands import DEFAULT_STREAM
from mqkafka.wire.names import queue_to_topic

# what other benchmarks take from here (the runs are service_run's)
__all__ = [
    "CPU_SPLIT",
    "CPU_US",
    "LAST_RELAYS",
    "LAST_RSS",
    "LAST_WORKERS",
    "MQK",
    "Service",
    "create_topic_named",
    "delivered_span",
    "holdings",
    "main",
    "namespace_for",
    "partitions_of",
    "relay_baseline",
    "side_by_side",
    "throughput",
    "wait_committed",
    "wait_members",
]


def latency(bootstrap: str, rate: int, seconds: float, size: int, warm: bool = False) -> Any:
    """Put-to-delivery latency at a steady ``rate`` through the service (one subscriber)
    and, in the same run, through the identity relay on the service's loop
    (``bench/latency.py``): p50 / p99 / max (ms) and their parts.

    In a full run this comes after the throughput runs, on a warm broker. Alone
    (``--only latency``) on a broker just started, it measures the broker's JVM warming up:
    p99 of seconds, whatever the service does; give such a broker a few minutes of load
    (``MQK_BOOTSTRAP_SERVERS`` to reuse it) before reading the figure."""
    ns = namespace_for(bootstrap)
    with tempfile.TemporaryDirectory() as state:
        service = Service(bootstrap, ns, Path(state))
        service.start()
        client = KafkaPubSub(load_client_config(bootstrap), namespace=ns)
        corpus.subscribe(client, ["BENCH.LAT"])
        client.close()
        stream = queue_to_topic(DEFAULT_STREAM, ns)
        if warm:  # the service has seen every topic of the tree once: its plans are made
            warmed = corpus.fill_warm_up(bootstrap, stream)
            wait_committed(bootstrap, ns + "mqk-broker", stream, warmed)
        topic = queue_to_topic("BENCH.LAT", ns)
        samples, total = lat.measure(bootstrap, stream, topic, rate, seconds, size)
        service.stop()
    source, target = create_topic(bootstrap, partitions=4), create_topic(bootstrap)
    with lat.relay_process(bootstrap, source, target):
        relayed, relay_total = lat.measure(bootstrap, source, target, rate, seconds, size)
    if os.environ.get("MQK_BENCH_DEBUG"):
        print("service p99 per second (ms):", lat.per_second_p99(samples, rate), flush=True)
        print("relay p99 per second (ms):", lat.per_second_p99(relayed, rate), flush=True)
    figures = {k: round(v, 1) for k, v in lat.summary(samples, total, rate).items()}
    return {
        "service": figures,
        "identity relay on the service's loop (exactly once)": {
            k: round(v, 1) for k, v in lat.summary(relayed, relay_total, rate).items()
        },
    }


def restart(bootstrap: str, retained: int, subscriptions: int) -> dict[str, float]:
    """Serving again with the RocksDB directory kept, and the rebuild when it is lost."""
    from mqkafka.engine.identity import Identity
    from mqkafka.engine.records import Publication, Subscription, SubscriptionKey
    from mqkafka.engine.topicspace import ROOT
    from mqkafka.mq.commands import Interface, PublicationContent, RegOpt
    from mqkafka.mq.topics import Scheme, TopicFilter, TopicString
    from mqkafka.state import recordcodec as codec

    ns = namespace_for(bootstrap)
    producer = Producer(
        {
            **kafka_settings(bootstrap),
            "linger.ms": 50,
            "batch.num.messages": 10000,
            "queue.buffering.max.messages": 2000000,
            "compression.type": "lz4",
        }
    )

    def send(topic: str, key: bytes, value: bytes) -> None:
        while True:
            try:
                producer.produce(topic, key=key, value=value)
                return
            except BufferError:
                producer.poll(0.05)

    content = PublicationContent(body=b"x" * 64)
    for i in range(retained):
        pub = Publication(ROOT, TopicString(f"State/{i % 1000}/{i}"), content, Interface.RFH2, 0, 0)
        send(
            ns + "mqk-retained",
            codec.retained_key(ROOT, pub.topic.text),
            codec.encode_retained(pub),
        )
    for i in range(subscriptions):
        key = SubscriptionKey(
            ROOT, Identity(f"Q{i % 500}", "QM1", None), TopicFilter(f"Sub/{i}/#", Scheme.TOPIC)
        )
        sub = Subscription(
            key, "bench", RegOpt.NONE, Interface.RFH2, b"MQKC" + i.to_bytes(20, "big")
        )
        send(ns + "mqk-subscriptions", codec.subscription_key(key), codec.encode_subscription(sub))
    producer.flush(300)
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as state:
        service = Service(bootstrap, ns, Path(state))
        figures["rebuild from Kafka (no RocksDB)"] = service.start()
        service.stop()
        figures["restart with RocksDB kept"] = service.start()
        service.stop()
    return figures


def cpu_per_copy(label: str, runs: list[tuple[float, float, float | None]]) -> dict[str, Any]:
    """Where a copy's CPU goes (medians of the runs). The Python thread holds one core; what
    the client threads and a local broker do runs beside it, so on a 2-core machine their sum
    bounds the copies per second even if the Python thread cost nothing."""
    main = statistics.median(run[0] for run in runs)
    clients = statistics.median(run[1] for run in runs)
    jvms = [run[2] for run in runs if run[2] is not None]
    figures: dict[str, Any] = {
        f"{label} CPU µs per copy: service's Python thread": main,
        f"{label} CPU µs per copy: service's librdkafka threads": clients,
    }
    if jvms:
        jvm = statistics.median(jvms)
        figures[f"{label} CPU µs per copy: local broker JVM"] = jvm
        figures[f"{label} copies/s the second core allows (librdkafka + JVM)"] = 1e6 / (
            clients + jvm
        )
    return figures


def side_by_side(
    bootstrap: str,
    records: int,
    size: int,
    repeats: int,
    warm: bool = False,
    workers: int = 1,
    relays: bool = True,
    activity: bool = True,
) -> dict[str, Any]:
    """Fan-out 1 on the corpus with the relays reading the same stream, ``repeats`` times
    (medians): publications/s, the ratios, CPU per publication and per record (the process,
    its Python thread, the broker's JVM)."""
    runs: dict[str, list[float]] = {"service": [], "cpu": [], "main": [], "jvm": []}
    for name in RELAYS:
        runs[name], runs[f"{name} cpu"], runs[f"{name} main"], runs[f"{name} jvm"] = [], [], [], []
    for _ in range(repeats):
        runs["service"].append(
            throughput(
                bootstrap,
                records,
                size,
                1,
                relays=relays,
                warm=warm,
                workers=workers,
                activity=activity,
            )
        )
        runs["cpu"].append(CPU_US[-1])
        main, _, jvm = CPU_SPLIT[-1]  # per copy: at fan-out 1, per publication
        runs["main"].append(main)
        runs["jvm"].extend([] if jvm is None else [jvm])
        for name, relay in LAST_RELAYS.items():
            runs[name].append(relay.rate)
            runs[f"{name} cpu"].append(relay.cpu)
            runs[f"{name} main"].append(relay.main)
            runs[f"{name} jvm"].extend([] if relay.jvm is None else [relay.jvm])
    med = {k: round(statistics.median(v), 1) for k, v in runs.items() if v}
    figures: dict[str, Any] = {
        "records": records,
        "service workers": workers,
        "activity events": activity,
        "service publications/s": round(med["service"]),
        "service CPU µs per publication (all workers)": med["cpu"],
        "workers (the last run)": list(LAST_WORKERS),
        "service peak RSS MB": round(LAST_RSS[0] / 1024),
    }
    if relays:
        plain = med["plain relay"]
        figures |= {
            **{f"{name} records/s": round(med[name]) for name in RELAYS},
            **{f"service / {name}": round(med["service"] / med[name], 3) for name in RELAYS},
            f"{' / '.join(RELAYS)} / plain relay": [round(med[n] / plain, 3) for n in RELAYS],
            "runs (service, then each relay)": [
                [round(r) for r in runs[k]] for k in ("service", *RELAYS)
            ],
        }
    # CPU µs per publication or record: the process, its Python thread, the broker's JVM
    for name, key in (("service", ""), *((n, f"{n} ") for n in RELAYS if relays)):
        cpu = [med.get(f"{key}cpu"), med.get(f"{key}main"), med.get(f"{key}jvm")]
        figures[f"{name} CPU µs (process, Python thread, broker JVM)"] = cpu
    return figures


def activity_side_by_side(
    bootstrap: str, records: int, size: int, repeats: int, warm: bool, workers: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``side_by_side`` with activity events and without, in turns (on, off; then off, on;
    ...), after one untimed run that warms the broker up: the first run after the broker's
    start paid its JIT (2-3x the broker CPU per publication), and it was always the run with
    activity. Medians of ``repeats`` each; the relays beside the runs with activity."""
    throughput(bootstrap, max(records // 4, 1000), size, 1, warm=warm, workers=workers)
    runs: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
    for repeat in range(repeats):
        for activity in (True, False) if repeat % 2 == 0 else (False, True):
            figures = side_by_side(
                bootstrap, records, size, 1, warm, workers, relays=activity, activity=activity
            )
            runs[activity].append(figures)
    on, off = _medians(runs[True]), _medians(runs[False])
    rate = "service publications/s"
    off["activity on / off"] = round(on[rate] / off[rate], 3)
    cpu = "service CPU µs (process, Python thread, broker JVM)"
    off["Python thread µs per publication, on / off"] = [on[cpu][1], off[cpu][1]]
    # the CPU measures side by side: off / on is the share of a worker activity leaves (the
    # issue's >= 0.90), each repeat's pair too (in turns, so a pair saw the same machine)
    pairs = list(zip(runs[True], runs[False], strict=True))
    for j, name in enumerate(("process", "Python thread")):
        ratios = [round(b[cpu][j] / a[cpu][j], 3) for a, b in pairs if a[cpu][j] and b[cpu][j]]
        off[f"CPU per publication off / on, {name}: median, each pair"] = [
            round(statistics.median(ratios), 3) if ratios else None,
            ratios,
        ]
    off["publications/s on / off, each pair"] = [round(a[rate] / b[rate], 3) for a, b in pairs]
    return on, off


def _medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Figures of several runs as one: each number's median (lists element by element)."""
    return {key: _median([run[key] for run in runs]) for key in runs[0]}


def _median(values: list[Any]) -> Any:
    first = values[0]
    if isinstance(first, bool) or not all(isinstance(v, (int, float, list)) for v in values):
        return values[-1]
    if isinstance(first, list):
        if any(not isinstance(v, list) or len(v) != len(first) for v in values):
            return values[-1]
        return [
            [x for v in values for x in v[j]]
            if isinstance(first[j], list)
            else _median([v[j] for v in values])
            for j in range(len(first))
        ]
    middle = statistics.median(values)
    return round(middle, 3) if isinstance(first, float) else round(middle)


def large(
    bootstrap: str, size: int = 4_000_000, fanout: int = 10, counts: tuple[int, ...] = (5, 20)
) -> dict[str, Any]:
    """Publications of ``size`` random bytes, each to ``fanout`` subscribers, with
    ``max.message.bytes`` raised on the stream and the subscriber queues (a run per count
    of ``counts``, every copy checked delivered); the service's peak RSS in each (its
    start-up state included): the same whatever the count when the path's memory is
    bounded (the loop's chunks of input, the producer's queue, the consumer's prefetch)."""
    corpus.POOL_BYTES = size  # one distinct body is enough here
    figures: dict[str, Any] = {}
    for count in counts:
        rate = throughput(bootstrap, count, size, fanout, max_message_bytes=size + (1 << 20))
        figures[f"{count} × {size:,} B to {fanout} subscribers"] = {
            "publications/s": round(rate, 2),
            "service CPU ms per publication": round(CPU_US[-1] / 1000, 1),
            "service peak RSS MB": round(LAST_RSS[0] / 1024),
        }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=100_000, help="at 256 B; fewer above")
    parser.add_argument("--sizes", type=int, nargs="*", default=list(corpus.SIZES.values()))
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--warm", action="store_true", help="the service sees each topic once before timing"
    )
    parser.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=[1],
        help="mqk serve processes sharing the stream: a run per count (the relays with the first)",
    )
    parser.add_argument(
        "--activity-off",
        action="store_true",
        help="with the first worker count, runs without activity events too, in turns with"
        " the runs with them, after one that warms the broker up (medians of --repeats each)",
    )
    parser.add_argument("--retained", type=int, default=1_000_000)
    parser.add_argument("--subscriptions", type=int, default=100_000)
    parser.add_argument(
        "--only",
        nargs="*",
        default=None,
        help="of: throughput fanout10 latency large best restart (default: all)",
    )
    args = parser.parse_args()

    def want(name: str) -> bool:
        return args.only is None or name in args.only

    def label(size: int) -> str:
        return (
            next(k for k, v in corpus.SIZES.items() if v == size)
            if size in corpus.SIZES.values()
            else f"{size} B"
        )

    results: dict[str, Any] = {"corpus": corpus.__doc__.split("\n\n")[1].replace("\n", " ")}
    with kafka() as bootstrap:
        fan1: dict[int, float] = {}
        if want("throughput"):
            for size in args.sizes:
                n = corpus.records_for(size, most=args.records)
                for i, count in enumerate(args.workers):
                    name = label(size) + ("" if count == 1 else f", {count} workers")
                    off = None
                    if i == 0 and args.activity_off:
                        figures, off = activity_side_by_side(
                            bootstrap, n, size, args.repeats, args.warm, count
                        )
                    else:
                        figures = side_by_side(
                            bootstrap, n, size, args.repeats, args.warm, count, relays=i == 0
                        )
                    fan1.setdefault(size, figures["service publications/s"])
                    results[f"fan-out 1, {name}"] = figures
                    print(json.dumps({name: figures}, ensure_ascii=False), flush=True)
                    if off is not None:
                        results[f"fan-out 1, {name}, no activity"] = off
                        print(json.dumps({f"{name}, no activity": off}, ensure_ascii=False))
        if want("fanout10"):
            for size in [s for s in args.sizes if s in (256, 4096)]:
                n = corpus.records_for(size, most=args.records) // 5  # 2 copies per record
                one = fan1.get(size) or throughput(bootstrap, n * 5, size, 1, warm=args.warm)
                ten = throughput(bootstrap, n, size, 10, warm=args.warm)
                figures = {
                    "fan-out 10 copies/s": round(ten * 10),
                    "fan-out 1 publications/s": round(one),
                    "copies / fan-out 1 publications": round(ten * 10 / one, 2),
                    "service CPU µs per publication (10 copies)": round(CPU_US[-1], 1),
                    **{
                        k: round(v, 1)
                        for k, v in cpu_per_copy("fan-out 10", [CPU_SPLIT[-1]]).items()
                    },
                }
                results[f"fan-out 10, {label(size)}"] = figures
                print(json.dumps({f"fan-out 10 {label(size)}": figures}), flush=True)
        if want("best"):
            n = args.records
            best = throughput(bootstrap, n, 256, 1, best=True, relays=True)
            results[f"{corpus.BEST_CASE}, 256 B, fan-out 1"] = {
                "service publications/s": round(best),
                "plain relay records/s": round(LAST_RELAYS["plain relay"].rate),
                "service / plain relay": round(best / LAST_RELAYS["plain relay"].rate, 3),
            }
        if want("latency"):
            figures = latency(bootstrap, 1000, 10.0, 0, args.warm)
            results["latency at 1,000 publications/s, the corpus's mix"] = figures
            print(json.dumps({"latency": figures}, ensure_ascii=False), flush=True)
        if want("large"):
            results["large messages"] = large(bootstrap)
        if want("restart"):
            results |= {
                f"{k} (s)": v
                for k, v in restart(bootstrap, args.retained, args.subscriptions).items()
            }
    print(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
