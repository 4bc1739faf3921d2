"""Benchmarks' access to Kafka: the broker in $MQK_BOOTSTRAP_SERVERS, or a throw-away local one."""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from mqkafka.kafka.clientconfig import load_client_config
from mqkafka.kafka.localbroker import LocalBroker

Headers = list[tuple[str, bytes]]


def kafka_settings(bootstrap: str) -> dict[str, Any]:
    """Client settings for ``bootstrap`` with the user's (``MQK_KAFKA_CONFIG``,
    ``MQK_KAFKA_<SETTING>``): a benchmark runs against a secured Kafka as the product does."""
    return load_client_config(bootstrap).client_settings()


@contextlib.contextmanager
def kafka() -> Iterator[str]:
    external = os.environ.get("MQK_BOOTSTRAP_SERVERS")
    if external:
        yield external
        return
    with tempfile.TemporaryDirectory(prefix="mqk-bench-") as home:
        broker = LocalBroker(Path(home), heap="2g")
        info = broker.start(timeout=180)
        try:
            yield info.bootstrap
        finally:
            broker.stop()


def create_topic(bootstrap: str, partitions: int = 1, prefix: str = "bench", **config: str) -> str:
    name = f"{prefix}-{uuid.uuid4().hex[:10]}"
    admin = AdminClient(kafka_settings(bootstrap))
    topic = NewTopic(
        name, partitions, 1, config={k.replace("_", "."): v for k, v in config.items()}
    )
    admin.create_topics([topic], operation_timeout=30)[name].result()
    return name


def fill(
    bootstrap: str,
    topic: str,
    count: int,
    size: int = 256,
    headers: Headers | Callable[[int], Headers] | None = None,
    value: bytes | None = None,
) -> None:
    """``count`` copies of ``value`` (default: ``size`` bytes of x) keyed over 64 keys;
    ``headers`` a list, or a function of the record's number giving its list."""
    headers_of = headers if callable(headers) else (lambda i: headers)
    producer = Producer(
        {
            **kafka_settings(bootstrap),
            "linger.ms": 20,
            "batch.num.messages": 10000,
            "queue.buffering.max.messages": 1000000,
            "compression.type": "lz4",
        }
    )
    payload = b"x" * size if value is None else value
    for i in range(count):
        while True:
            try:
                producer.produce(
                    topic, value=payload, key=str(i % 64).encode(), headers=headers_of(i)
                )
                break
            except BufferError:
                producer.poll(0.05)
    producer.flush(60)


def committed_reader(bootstrap: str) -> Consumer:
    """A consumer of its own group that reads committed records from the beginning."""
    return Consumer(
        {
            **kafka_settings(bootstrap),
            "group.id": uuid.uuid4().hex,
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
        }
    )


def drain_count(bootstrap: str, topic: str, expect: int, timeout: float = 300.0) -> float:
    """Read ``expect`` committed records from ``topic``; the time the last one was appended."""
    consumer = committed_reader(bootstrap)
    consumer.subscribe([topic])
    seen, last_ts, deadline = 0, 0.0, time.monotonic() + timeout
    try:
        while seen < expect and time.monotonic() < deadline:
            for message in consumer.consume(10000, 0.5):
                if message.error() is None:
                    seen += 1
                    last_ts = max(last_ts, message.timestamp()[1] / 1000.0)
    finally:
        consumer.close()
    if seen < expect:
        raise RuntimeError(f"only {seen} of {expect} records arrived on {topic}")
    return last_ts


def cpu_seconds(stat: str) -> float:
    """User + system CPU seconds from a /proc stat file."""
    fields = Path(stat).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def local_broker_pid(bootstrap: str) -> int | None:
    """The process listening on the first bootstrap address's port when it runs on this
    machine (a broker elsewhere, or one this user cannot see: None)."""
    port = int(bootstrap.split(",")[0].rsplit(":", 1)[1])
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as rows:
            for row in list(rows)[1:]:
                fields = row.split()  # local address hex ip:port, state 0A = LISTEN
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(f"socket:[{fields[9]}]")
    if not inodes:
        return None
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if any(os.readlink(fd) in inodes for fd in (entry / "fd").iterdir()):
                    return int(entry.name)
    return None
