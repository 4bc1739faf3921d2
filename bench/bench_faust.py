"""A subscriber queue read by a Faust agent (mqkafka.faust) and by a confluent-kafka consumer:
records/s, side by side in one run on one broker, on the same queue.

The queue holds ``--records`` delivered publications as the service writes them (an MQRFH2
``<psc>`` folder with the topic, ``mqmd.*`` headers, a random body that does not compress).
Each reader decodes every record into a :class:`~mqkafka.faust.Publication` with the same
codec; the plain reader is also timed without decoding (Kafka's own ceiling here). The Faust
agent runs in a worker process of its own, as a Faust application would, with Faust's defaults.

Run: ``python -m bench.bench_faust [--records N] [--size BYTES]`` (``MQK_BOOTSTRAP_SERVERS``:
an existing broker; else a throw-away local one).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid

from confluent_kafka import Consumer, Producer

from bench.kafka_env import create_topic, kafka, kafka_settings
from mqkafka.client.kafka_pubsub import command_message
from mqkafka.faust import decode_publication, encode_record
from mqkafka.mq.mqmd import MQMD


def fill_queue(bootstrap: str, topic: str, count: int, size: int) -> None:
    """``count`` delivered publications with random bodies of ``size`` bytes."""
    pool = os.urandom(size * 1024 + size)
    producer = Producer(
        {
            **kafka_settings(bootstrap),
            "linger.ms": 20,
            "batch.num.messages": 10000,
            "queue.buffering.max.messages": 1000000,
            "compression.type": "lz4",  # as the service writes
        }
    )
    for number in range(count):
        start = random.randrange(size * 1024)
        md = MQMD(CorrelId=number.to_bytes(24, "big"))
        pairs = [("Command", "Publish"), ("Topic", f"Sport/Match{number % 100}")]
        md, value = command_message(pairs, body=pool[start : start + size], md=md)
        value, headers = encode_record(md, value)
        while True:
            try:
                producer.produce(topic, value=value, headers=headers)
                break
            except BufferError:
                producer.poll(0.05)
    producer.flush(120)


def plain_rate(bootstrap: str, topic: str, count: int, decode: bool) -> float:
    consumer = Consumer(
        {
            **kafka_settings(bootstrap),
            "group.id": uuid.uuid4().hex,
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
            "enable.auto.commit": True,  # a subscriber's ordinary setting
        }
    )
    consumer.subscribe([topic])
    seen, started = 0, 0.0
    try:
        while seen < count:
            for message in consumer.consume(1000, 0.5):
                if message.error() is not None:
                    continue
                if not seen:
                    started = time.perf_counter()
                if decode:
                    decode_publication(message.value(), message.headers())
                seen += 1
    finally:
        consumer.close()
    return (count - 1) / (time.perf_counter() - started)


def faust_rate(bootstrap: str, topic: str, count: int, decode: bool) -> float:
    """The agent's rate, from its worker process (first record to the last)."""
    with tempfile.TemporaryDirectory(prefix="mqk-bench-faust-") as datadir:
        child = subprocess.run(
            [sys.executable, "-m", "bench.bench_faust", "--faust-child", bootstrap, topic,
             str(count), datadir, "mq" if decode else "raw"],
            capture_output=True, text=True, check=False, timeout=900,
        )  # fmt: skip
    found = re.search(r"faust-rate (\d+)", child.stdout + child.stderr)  # Faust logs prints
    if found:
        return float(found.group(1))
    raise RuntimeError(f"the Faust worker gave no rate:\n{child.stderr[-2000:]}")


def run_faust_child(bootstrap: str, topic: str, count: int, datadir: str, decode: bool) -> None:
    import faust

    from mqkafka.faust import MQSchema, make_app
    from mqkafka.kafka.clientconfig import load_client_config

    app = make_app(f"bench-{uuid.uuid4().hex[:8]}", load_client_config(bootstrap), datadir=datadir)
    started = 0.0

    # MQPubSub.queue() makes this topic for a queue's name; the bench's topic has no MQ name.
    schema = MQSchema() if decode else faust.Schema(key_serializer="raw", value_serializer="raw")

    @app.agent(app.topic(topic, schema=schema))
    async def read(stream):  # type: ignore[no-untyped-def]
        nonlocal started
        seen = 0
        async for _ in stream:
            if not seen:
                started = time.perf_counter()
            seen += 1
            if seen == count:
                print(f"faust-rate {(count - 1) / (time.perf_counter() - started):.0f}", flush=True)
                os.kill(os.getpid(), signal.SIGTERM)

    faust.Worker(app, loglevel="warning", quiet=True).execute_from_commandline()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--faust-child", nargs=5, metavar=("BOOTSTRAP", "TOPIC", "N", "DIR", "HOW"))
    args = parser.parse_args()
    if args.faust_child:
        bootstrap, topic, count, datadir, how = args.faust_child
        run_faust_child(bootstrap, topic, int(count), datadir, how == "mq")
        return
    with kafka() as bootstrap:
        topic = create_topic(bootstrap, prefix="bench-faust")
        fill_queue(bootstrap, topic, args.records, args.size)
        raw = plain_rate(bootstrap, topic, args.records, decode=False)
        plain = plain_rate(bootstrap, topic, args.records, decode=True)
        agent_raw = faust_rate(bootstrap, topic, args.records, decode=False)
        agent = faust_rate(bootstrap, topic, args.records, decode=True)
    print(f"subscriber queue, {args.records} publications of {args.size} random bytes, one run:")
    print(f"  confluent-kafka consumer, no decoding    {raw:>10,.0f} records/s")
    print(f"  confluent-kafka consumer + Publication   {plain:>10,.0f} records/s")
    print(f"  Faust agent, raw bytes                   {agent_raw:>10,.0f} records/s")
    print(f"  Faust agent on MQSchema (Publication)    {agent:>10,.0f} records/s")
    print(f"  ratio plain/Faust, no decoding           {raw / agent_raw:>10.1f}x")
    print(f"  ratio plain/Faust, both decoding         {plain / agent:>10.1f}x")


if __name__ == "__main__":
    main()
