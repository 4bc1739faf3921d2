"""Issue 34: workers share the control queue and each stream evenly, and a worker leaving or
joining moves only what it must, while publications go on exactly once.

Four workers over the default stream's four partitions each hold one of them, and one of them
the control queue too (the control queue is nobody's share of the stream). One leaves: only
its partition moves; one joins: it takes one partition from the worker holding two, the
others keep theirs. Publications put from eight publishers all the while are each delivered
once."""

from __future__ import annotations

import os
import subprocess
import threading
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest

from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.mq.commands import DEFAULT_STREAM
from mqkafka.resources import catalogue_text
from mqkafka.wire.names import queue_to_topic
from tests.integration.service.conftest import MQK, ServiceProcess, wait_until

pytestmark = pytest.mark.kafka

PUBLICATIONS = 400


def holdings(bootstrap: str, group: str) -> dict[str, set[tuple[str, int]]]:
    """Per worker (its client id's instance), the partitions it holds, over all its lanes."""
    admin = clients.admin(ClientConfig(bootstrap))
    [future] = admin.describe_consumer_groups([group]).values()
    held: dict[str, set[tuple[str, int]]] = defaultdict(set)
    for member in future.result().members:
        worker = member.client_id.split("@")[0]
        tps = member.assignment.topic_partitions if member.assignment else []
        held[worker].update((tp.topic, tp.partition) for tp in tps)
    return dict(held)


def stream_share(held: dict[str, set[tuple[str, int]]], stream: str) -> dict[str, set[int]]:
    return {w: {p for t, p in tps if t == stream} for w, tps in held.items()}


def test_four_workers_hold_a_stream_partition_each_and_a_leave_and_join_move_only_one(
    start_service: Callable[..., ServiceProcess],
    kafka_bootstrap: str,
    namespace: str,
    tmp_path: Path,
) -> None:
    group = f"{namespace}mqk-broker"
    stream = queue_to_topic(DEFAULT_STREAM, namespace)
    workers = {name: start_service(name) for name in ("w0", "w1", "w2", "w3")}

    def spread() -> dict[str, set[int]]:
        return stream_share(holdings(kafka_bootstrap, group), stream)

    def balanced(count: int) -> bool:
        share = spread()
        sizes = sorted(len(p) for p in share.values())
        return len(share) == count and sum(sizes) == 4 and sizes[-1] - sizes[0] <= 1

    assert wait_until(lambda: balanced(4), 120), holdings(kafka_bootstrap, group)
    before = spread()
    assert all(len(p) == 1 for p in before.values()), before
    control = [w for w, tps in holdings(kafka_bootstrap, group).items() if any(
        t.endswith("SYSTEM.BROKER.CONTROL.QUEUE") for t, _ in tps
    )]  # fmt: skip
    assert len(control) == 1, holdings(kafka_bootstrap, group)

    subscriber = KafkaPubSub(kafka_bootstrap, namespace=namespace, user="scaler")
    assert subscriber.register("Scale/#", queue="APP.SCALE").ok  # type: ignore[union-attr]
    publishers = [
        KafkaPubSub(kafka_bootstrap, namespace=namespace, user=f"pub{i}") for i in range(8)
    ]
    moving = threading.Event()

    def publish() -> None:
        for i in range(PUBLICATIONS):
            publishers[i % 8].publish(f"Scale/{i % 8}", str(i).encode(), wait=None)
            if i == PUBLICATIONS // 4:
                moving.set()
            threading.Event().wait(0.05)  # spread over the leave and the join

    putting = threading.Thread(target=publish, daemon=True)
    putting.start()
    assert moving.wait(60)

    gone = "mqk-serve-w3"
    assert workers["w3"].stop() == 0  # a static member: its partition waits out its session
    assert wait_until(lambda: balanced(3), 90), holdings(kafka_bootstrap, group)
    after_leave = spread()
    for worker, kept in before.items():  # the others kept what they had
        if worker != gone:
            assert kept <= after_leave[worker], (before, after_leave)

    start_service("w4")
    assert wait_until(lambda: balanced(4), 90), holdings(kafka_bootstrap, group)
    after_join = spread()
    assert all(len(p) == 1 for p in after_join.values()), after_join
    moved = sum(1 for w, p in after_join.items() if w in after_leave and p != after_leave[w])
    assert moved <= 1, (after_leave, after_join)  # only the one the newcomer took

    putting.join(120)
    bodies = [m.body for m in subscriber.read_queue("APP.SCALE", count=PUBLICATIONS, timeout=30)]
    assert len(bodies) == PUBLICATIONS, len(bodies)
    assert sorted(int(b) for b in bodies) == list(range(PUBLICATIONS))  # once each

    # How far it scales is the catalogue's: the stream raised to 8 partitions on the running
    # cluster (mqk topics apply) gives each worker two, each keeping the one it had.
    catalogue = tmp_path / "catalogue.toml"
    text = catalogue_text()
    at = text.index('name = "SYSTEM.BROKER.DEFAULT.STREAM"')
    catalogue.write_text(text[:at] + text[at:].replace("partitions = 4", "partitions = 8", 1))
    applied = subprocess.run(
        [MQK, "topics", "apply", "--bootstrap-servers", kafka_bootstrap, "--namespace", namespace],
        env={**os.environ, "MQK_TOPICS": str(catalogue)},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert applied.returncode == 0, applied.stderr
    assert f"raised partitions of {stream}" in applied.stdout + applied.stderr, applied

    def doubled() -> bool:
        share = spread()
        return len(share) == 4 and all(len(p) == 2 for p in share.values())

    assert wait_until(doubled, 90), holdings(kafka_bootstrap, group)
    for worker, had in after_join.items():
        assert had <= spread()[worker], (after_join, spread())
    for client in (subscriber, *publishers):
        client.close()
