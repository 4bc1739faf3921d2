"""Kafka-native queues and publications through ``mqk serve`` on a real Kafka (issue 37).

Side by side in one run, on one broker: fan-out 1 to an MQ-format subscriber queue and to a
Kafka-native one (the same RFH2 Publish commands); and Kafka-native publications (the body,
``mqpsc.Topic`` and ``mqmd.Format`` headers) beside RFH2 Publish commands, to an MQ-format
queue. 256-byte bodies that do not repeat, over 100 topics; the stream is filled while the
service is stopped, and each figure is timed from the first to the last copy it wrote
(``bench_service.delivered_span``). Each variant runs ``--rounds`` times, interleaved; the
best is printed with the others.

Run: ``python -m bench.bench_kafka_native [--records N] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path

from confluent_kafka import Producer

from bench.bench_service import (
    Service,
    delivered_span,
    namespace_for,
    wait_committed,
)
from bench.kafka_env import kafka, kafka_settings
from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.kafka.clientconfig import load_client_config
from mqkafka.mq.commands import DEFAULT_STREAM
from mqkafka.mq.mqmd import MQMD, MQPER
from mqkafka.mq.pscommands import command_message
from mqkafka.mqi.rules.catalogue import CATALOGUE_TOPIC, KAFKA_FORMAT, QueueDefinition
from mqkafka.wire.headers import mqmd_to_headers
from mqkafka.wire.names import queue_to_topic

TOPICS = [f"Bench/Native/{n:03d}" for n in range(100)]
QUEUE = "BENCH.NATIVE.SUB"
SIZE = 256

Record = tuple[bytes, list[tuple[str, bytes]]]


def records(count: int, native: bool, seed: int = 37) -> Iterator[Record]:
    """``count`` publications, RFH2 Publish commands or Kafka-native records, each with its
    own MsgId and a body of its own."""
    rng = random.Random(seed)
    md = MQMD(Persistence=MQPER.NOT_PERSISTENT, Format="MQSTR")
    native_md = [(n, v) for n, v in mqmd_to_headers(md) if n != "mqmd.MsgId"]
    command_md, _ = command_message([], body=b"-", md=md)
    rfh2_md = [(n, v) for n, v in mqmd_to_headers(command_md) if n != "mqmd.MsgId"]
    heads = {
        t: command_message([("Command", "Publish"), ("Topic", t)], body=b"-", md=md)[1][:-1]
        for t in TOPICS
    }
    for i in range(count):
        topic = TOPICS[i % len(TOPICS)]
        body = i.to_bytes(8, "big") + rng.randbytes(SIZE - 8)
        msg_id = [("mqmd.MsgId", rng.randbytes(24))]
        if native:
            yield body, [*msg_id, *native_md, ("mqpsc.Topic", topic.encode())]
        else:
            yield heads[topic] + body, [*msg_id, *rfh2_md]


def run(
    bootstrap: str, count: int, *, native_input: bool, kafka_queue: bool
) -> tuple[float, float]:
    """Publications per second through one service, fan-out 1, and the service's CPU
    microseconds per publication (less at the mercy of a busy machine than the rate)."""
    ns = namespace_for(bootstrap)
    producer = Producer({**kafka_settings(bootstrap), "linger.ms": 20})
    if kafka_queue:  # the queue's definition, as mqk queue define --message-format kafka
        definition = QueueDefinition(QUEUE, message_format=KAFKA_FORMAT)
        producer.produce(ns + CATALOGUE_TOPIC, definition.encode(), QUEUE.encode())
        producer.flush(30)
    stream = queue_to_topic(DEFAULT_STREAM, ns)
    with tempfile.TemporaryDirectory() as state:
        service = Service(bootstrap, ns, Path(state))
        service.start()
        client = KafkaPubSub(load_client_config(bootstrap), namespace=ns)
        result = client.register(["Bench/Native/#"], queue=QUEUE, wait=60)
        assert result is not None and result.ok, result
        client.close()
        service.stop()
        for value, headers in records(count, native_input):
            producer.produce(stream, value, headers=headers)
            producer.poll(0)
        producer.flush(120)
        service.start()
        before = service.cpu_seconds()
        wait_committed(bootstrap, ns + "mqk-broker", stream, count, interval=0.05)
        cpu = service.cpu_seconds() - before
        service.stop()
        seen, timed, span = delivered_span(bootstrap, [queue_to_topic(QUEUE, ns)], count)
    assert seen == count, f"{seen} of {count} delivered"
    return timed / max(span, 1e-3), cpu / count * 1e6


VARIANTS = {
    "RFH2 Publish -> MQ-format queue": (False, False),
    "RFH2 Publish -> Kafka-native queue": (False, True),
    "Kafka-native publication -> MQ-format queue": (True, False),
    "Kafka-native publication -> Kafka-native queue": (True, True),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=30_000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    rates: dict[str, list[tuple[float, float]]] = {name: [] for name in VARIANTS}
    with kafka() as bootstrap:
        for _ in range(args.rounds):
            for name, (native_input, kafka_queue) in VARIANTS.items():
                rates[name].append(
                    run(bootstrap, args.records, native_input=native_input, kafka_queue=kafka_queue)
                )
    base = max(rate for rate, _ in rates["RFH2 Publish -> MQ-format queue"])
    base_cpu = min(cpu for _, cpu in rates["RFH2 Publish -> MQ-format queue"])
    print(f"fan-out 1, {args.records} publications of {SIZE} B over {len(TOPICS)} topics:")
    for name, found in rates.items():
        best, cpu = max(r for r, _ in found), min(c for _, c in found)
        runs = " / ".join(f"{r:,.0f}" for r, _ in found)
        print(
            f"  {name:47s} best {best:>7,.0f}/s ({best / base:.2f}x), service CPU "
            f"{cpu:.1f} us/pub ({cpu / base_cpu:.2f}x); runs {runs}"
        )


if __name__ == "__main__":
    main()
