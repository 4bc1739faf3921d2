"""Cold fan-out: how long the first publication after a start takes to reach every one of
many subscriber queues (issue 35 point 10: 1,000 queues took more than 30 s after a rebuild).

    python -m bench.bench_cold_fanout [--queues 1000] [--keep-state]

Registers ``--queues`` subscriptions to one topic (each its own queue, the topics made first
in one request), stops the service, removes its state directory (the next start rebuilds
RocksDB from the compacted topics: ``--keep-state`` keeps it), starts it again and, as soon as
it says it is ready, publishes once. Prints the seconds from the publication to the last of
the copies committed on the queues, and the same for a second publication (warm).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
import uuid
from pathlib import Path

from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic, OffsetSpec

from bench.kafka_env import kafka, kafka_settings
from mqkafka.cli.serveprocess import ServeProcess
from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.kafka.clients import IsolationLevel
from mqkafka.kafka.provision import apply_catalogue
from mqkafka.wire.names import queue_to_topic

TOPIC = "Cold/Fan"


def serve(bootstrap: str, namespace: str, state: Path) -> ServeProcess:
    """``mqk serve``, returned once it says it is ready (a rebuild of many subscriptions'
    state may take minutes)."""
    return ServeProcess(bootstrap, namespace, state, timeout=300)


def ends(admin: AdminClient, topics: list[str]) -> dict[str, int]:
    """Each queue's last stable offset (a committed delivery moves it past its record and
    its transaction's marker)."""
    request = {TopicPartition(t, 0): OffsetSpec.latest() for t in topics}
    futures = admin.list_offsets(
        request, isolation_level=IsolationLevel.READ_COMMITTED, request_timeout=30
    )
    return {tp.topic: f.result().offset for tp, f in futures.items()}


def until_delivered(admin: AdminClient, before: dict[str, int], began: float) -> float:
    """Seconds from ``began`` until every queue's end moved past ``before``."""
    topics = list(before)
    while True:
        now = ends(admin, topics)
        if all(now[t] > before[t] for t in topics):
            return time.monotonic() - began
        if time.monotonic() - began > 300:
            raise RuntimeError("not delivered within 300 s")
        time.sleep(0.02)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queues", type=int, default=1000)
    parser.add_argument("--keep-state", action="store_true")
    args = parser.parse_args()
    with kafka() as bootstrap, tempfile.TemporaryDirectory(prefix="mqk-cold-") as home:
        namespace = f"cf{uuid.uuid4().hex[:6]}."
        apply_catalogue(bootstrap, prefix=namespace)
        admin = AdminClient(kafka_settings(bootstrap))
        queues = [f"COLD.Q{i:04d}" for i in range(args.queues)]
        topics = [queue_to_topic(q, namespace) for q in queues]
        for future in admin.create_topics(
            [NewTopic(t, 1, 1) for t in topics], operation_timeout=120
        ).values():
            future.result()
        state = Path(home) / "state"
        proc = serve(bootstrap, namespace, state)
        client = KafkaPubSub(bootstrap, namespace=namespace, user="bench")
        for queue in queues[:-1]:
            client.register(TOPIC, queue=queue, wait=None)
        last = client.register(TOPIC, queue=queues[-1], wait=120)
        assert last is not None and last.ok, last
        proc.stop(120)
        if not args.keep_state:
            shutil.rmtree(state)
        began = time.monotonic()
        proc = serve(bootstrap, namespace, state)
        ready = time.monotonic() - began
        try:
            before = ends(admin, topics)
            published = time.monotonic()
            client.publish(TOPIC, b"cold", wait=None)
            cold = until_delivered(admin, before, published)
            before = ends(admin, topics)
            published = time.monotonic()
            client.publish(TOPIC, b"warm", wait=None)
            warm = until_delivered(admin, before, published)
        finally:
            client.close()
            proc.stop(120)
        kind = "kept" if args.keep_state else "rebuilt"
        print(
            f"{args.queues} subscriber queues, state {kind}: ready {ready:.1f} s after the "
            f"start; first publication on every queue {cold:.2f} s after it was put, the "
            f"second {warm:.2f} s"
        )


if __name__ == "__main__":
    main()
