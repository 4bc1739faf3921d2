"""Kafka-native queues and publications through ``mqk serve`` on a real Kafka (issue 37).

Side by side in one run, on one broker: fan-out 1 to an MQ-format subscriber queue and to a
Kafka-native one (the same RFH2 Publish commands); and Kafka-native publications (the body,
``mqpsc.Topic`` and ``mqmd.Format`` headers) beside RFH2 Publish commands, to an MQ-format
queue. 256-byte bodies that do not repeat, over 100 topics; the stream is filled while the
service is stopped, and each figure is timed from the first to the last copy it wrote
(``bench_service.delivered_span``). Each variant runs ``--rounds`` times, interleaved; the
best is printed with the others.

Before them, the same four in-process (the dispatcher alone, ``bench_fanout``'s setup): the
Python thread's microseconds per publication, replayed plans and through the engine, best of
``--rounds`` interleaved: the figure a busy machine disturbs least.

Run: ``python -m bench.bench_kafka_native [--records N] [--rounds R] [--in-process-only]``.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from confluent_kafka import Producer

from bench.bench_fanout import CorpusRecord, NoReplica, TopicsExist
from bench.bench_service import (
    Service,
    delivered_span,
    namespace_for,
    wait_committed,
)
from bench.kafka_env import kafka, kafka_settings
from mqkafka.activity.builder import ActivityRecorder
from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.engine.context import EngineConfig, EngineContext
from mqkafka.engine.state import EngineState
from mqkafka.kafka.clientconfig import load_client_config
from mqkafka.mq.commands import DEFAULT_STREAM
from mqkafka.mq.mqmd import MQMD, MQMT, MQPER
from mqkafka.mq.pscommands import command_message
from mqkafka.mqi.rules.catalogue import CATALOGUE_TOPIC, KAFKA_FORMAT, QueueDefinition
from mqkafka.selectors import SelectorFilterPort
from mqkafka.service.config import ServiceConfig
from mqkafka.service.dispatcher import Dispatcher
from mqkafka.service.metrics import Metrics
from mqkafka.service.outputs import Outputs
from mqkafka.service.queues import QueueDirectory
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


class Formats:
    """The catalogue as the service reads it: ``QUEUE`` Kafka-native or not."""

    def __init__(self, native: bool) -> None:
        self.changes = 1
        self.native = frozenset({QUEUE} if native else ())

    def kafka_native_names(self) -> frozenset[str]:
        return self.native


def in_process(count: int, *, native_input: bool, kafka_queue: bool, plans: bool) -> float:
    """The dispatcher's process-time microseconds per publication, fan-out 1."""
    filters = SelectorFilterPort()
    queues = QueueDirectory(TopicsExist())
    outputs = Outputs(ServiceConfig(bootstrap="unused:9092"), queues, formats=Formats(kafka_queue))
    d = Dispatcher(
        state=EngineState(filters=filters),
        ctx=EngineContext(config=EngineConfig(), filters=filters, queues=queues),
        replica=NoReplica(),  # type: ignore[arg-type]
        outputs=outputs, metrics=Metrics(), activity=ActivityRecorder("mqk-activity", "QM1", "b"),
        plans=plans,
    )  # fmt: skip
    pairs = [("Command", "RegSub"), ("Topic", "Bench/Native/#"), ("QName", QUEUE)]
    reg_md, reg = command_message(pairs, md=MQMD(MsgType=MQMT.REQUEST, ReplyToQ="BENCH.R"))
    d.handle([CorpusRecord(reg, mqmd_to_headers(reg_md), 0)])
    d.committed()
    batch = [CorpusRecord(v, h, i) for i, (v, h) in enumerate(records(count, native_input))]
    d.handle(batch[: len(TOPICS)])  # each topic once: the plans are made
    d.committed()
    began = time.process_time()
    for at in range(len(TOPICS), count, 1000):
        d.handle(batch[at : at + 1000])
        d.committed()
    return (time.process_time() - began) / (count - len(TOPICS)) * 1e6


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
    parser.add_argument("--in-process-only", action="store_true")
    args = parser.parse_args()
    cost: dict[tuple[str, bool], list[float]] = {}
    for _ in range(max(args.rounds, 3)):
        for name, (native_input, kafka_queue) in VARIANTS.items():
            for plans in (True, False):
                micros = in_process(
                    5000, native_input=native_input, kafka_queue=kafka_queue, plans=plans
                )
                cost.setdefault((name, plans), []).append(micros)
    print("in-process, the dispatcher's CPU per publication (best), replayed / through the engine:")
    for name in VARIANTS:
        replayed, engine = min(cost[name, True]), min(cost[name, False])
        print(f"  {name:47s} {replayed:5.1f} us / {engine:5.1f} us")
    if args.in_process_only:
        return
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
