"""``mqk serve``'s two runtimes side by side, in one run on one broker (issue 36 point 4):
fan-out 1 publications/s and the service's CPU µs per publication, and the time to serve
again after a SIGKILL with many subscriptions.

    python -m bench.bench_faust_runtime [--records 3000] [--subscriptions 100000]

Fan-out 1 is measured as ``bench_service`` measures it: the corpus's subscriptions, its
publications put on the stream in one open transaction while the worker runs, committed at
once; timed from the first to the last delivery the service wrote, CPU from /proc.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from confluent_kafka import Producer

from bench import corpus
from bench.bench_service import Service, delivered_span, namespace_for, wait_committed
from bench.kafka_env import kafka, kafka_settings
from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.engine.identity import Identity
from mqkafka.engine.records import Subscription, SubscriptionKey
from mqkafka.engine.topicspace import ROOT
from mqkafka.kafka.clientconfig import load_client_config
from mqkafka.mq.commands import DEFAULT_STREAM, Interface, RegOpt
from mqkafka.mq.topics import Scheme, TopicFilter
from mqkafka.state import recordcodec as codec
from mqkafka.wire.names import queue_to_topic

RUNTIMES = ("loop", "faust")  # both serve as the consumer group mqk-broker


def fanout1(bootstrap: str, runtime: str, records: int, size: int) -> dict[str, float]:
    ns = namespace_for(bootstrap)
    stream = queue_to_topic(DEFAULT_STREAM, ns)
    with tempfile.TemporaryDirectory() as state:
        service = Service(bootstrap, ns, Path(state), env={"MQK_RUNTIME": runtime})
        service.start()
        client = KafkaPubSub(load_client_config(bootstrap), namespace=ns)
        corpus.subscribe(client, ["BENCH.SUB0"])
        client.close()
        _, release = corpus.fill_held(bootstrap, stream, records, size)
        cpu_before, began = service.cpu_seconds(), time.monotonic()
        release()
        wait_committed(bootstrap, ns + "mqk-broker", stream, records, interval=0.05)
        cpu = service.cpu_seconds() - cpu_before
        seconds = time.monotonic() - began
        service.stop()
    seen, timed, span = delivered_span(bootstrap, [queue_to_topic("BENCH.SUB0", ns)], records)
    assert seen == records, f"{seen} of {records} delivered"
    return {
        "publications/s (first to last delivery)": round(timed / max(span, 1e-3)),
        "publications/s (release to offsets committed)": round(records / seconds),
        "CPU µs per publication": round(cpu / records * 1e6),
    }


def seed_subscriptions(bootstrap: str, ns: str, count: int) -> None:
    """``count`` subscriptions written straight to mqk-subscriptions, as the service writes
    them."""
    producer = Producer({**kafka_settings(bootstrap), "linger.ms": 50, "compression.type": "lz4"})
    for i in range(count):
        key = SubscriptionKey(
            ROOT, Identity(f"Q{i % 500}", "QM1", None), TopicFilter(f"Sub/{i}/#", Scheme.TOPIC)
        )
        sub = Subscription(
            key, "bench", RegOpt.NONE, Interface.RFH2, b"MQKC" + i.to_bytes(20, "big")
        )
        while True:
            try:
                producer.produce(
                    ns + "mqk-subscriptions",
                    key=codec.subscription_key(key),
                    value=codec.encode_subscription(sub),
                )
                break
            except BufferError:
                producer.poll(0.05)
    producer.flush(300)


def restart_after_sigkill(bootstrap: str, runtime: str, subscriptions: int) -> dict[str, float]:
    ns = namespace_for(bootstrap)
    seed_subscriptions(bootstrap, ns, subscriptions)
    with tempfile.TemporaryDirectory() as state:
        service = Service(bootstrap, ns, Path(state), env={"MQK_RUNTIME": runtime})
        first = service.start()
        assert service.proc is not None
        service.proc.kill()
        service.proc.wait(30)
        again = service.start()
        service.stop()
    return {"first start (s)": round(first, 1), "ready again after SIGKILL (s)": round(again, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=3000)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--subscriptions", type=int, default=100_000)
    args = parser.parse_args()
    figures: dict[str, dict[str, dict[str, float]]] = {}
    with kafka() as bootstrap:
        for runtime in RUNTIMES:
            figures.setdefault(runtime, {})["fan-out 1"] = fanout1(
                bootstrap, runtime, args.records, args.size
            )
        for runtime in RUNTIMES:
            figures[runtime][f"restart, {args.subscriptions:,} subscriptions"] = (
                restart_after_sigkill(bootstrap, runtime, args.subscriptions)
            )
    print(json.dumps(figures, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
