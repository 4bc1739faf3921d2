"""Issue 19 point 4: static membership and cooperative rebalancing. A worker restarted after
SIGKILL takes its partitions back without waiting out its predecessor; a worker gone for good
has its partitions served by the others; a second worker with an instance id in use stops
with one line, and the first keeps serving; SIGTERM stops cleanly."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

import pytest

from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from tests.integration.service.conftest import MQK, ServiceProcess, wait_until

pytestmark = pytest.mark.kafka


def _assigned(bootstrap: str, group: str) -> dict[str, int]:
    """Per worker (the group.instance.id of its first lane: a member per topic it reads,
    one client id), how many partitions it holds."""
    admin = clients.admin(ClientConfig(bootstrap))
    [future] = admin.describe_consumer_groups([group]).values()
    members = sorted(future.result().members, key=lambda m: len(m.group_instance_id))
    worker: dict[str, str] = {}
    held: dict[str, int] = {}
    for m in members:
        name = worker.setdefault(m.client_id, m.group_instance_id)
        held[name] = held.get(name, 0) + len(m.assignment.topic_partitions)
    return held


def test_a_worker_killed_and_restarted_takes_its_partitions_back_as_the_same_member(
    start_service: Callable[..., ServiceProcess],
    client: KafkaPubSub,
    kafka_bootstrap: str,
    namespace: str,
) -> None:
    service = start_service("solo")
    group, member = f"{namespace}mqk-broker", f"{namespace}mqk-serve-solo"
    assert wait_until(lambda: _assigned(kafka_bootstrap, group).get(member, 0) == 5, 60)
    assert client.register("Before/#", queue="APP.BEFORE").ok  # type: ignore[union-attr]
    service.kill()
    service.log.clear()
    service.start()  # no "in use": the pid in the member's client id is gone
    answer = client.register("After/#", queue="APP.AFTER")
    assert answer is not None and answer.ok, answer
    # one member, itself again: its lanes rejoin one by one (the stream lane may come a moment
    # after the command was answered; until then the killed process's lane is listed), each
    # taking its static member's place, not waiting out the 10 s session of the one killed
    assert wait_until(lambda: _assigned(kafka_bootstrap, group) == {member: 5}, 10), _assigned(
        kafka_bootstrap, group
    )
    # its RocksDB held the last transaction's end: read on from it, not rebuilt from Kafka
    said = service.messages()
    assert any("not closed cleanly: reading on" in line for line in said), said
    assert not any("rebuilding" in line for line in said), said
    gone = client.deregister("Before/#", queue="APP.BEFORE")  # known to the restarted worker
    assert gone is not None and gone.ok, gone


def test_a_second_worker_with_an_instance_id_in_use_stops_and_the_first_serves_on(
    start_service: Callable[..., ServiceProcess],
    client: KafkaPubSub,
    kafka_bootstrap: str,
    namespace: str,
    tmp_path: object,
) -> None:
    first = start_service("same")
    second = subprocess.run(
        [MQK, "serve", "--bootstrap-servers", kafka_bootstrap, "--namespace", namespace,
         "--instance-id", "same", "--in-memory-state"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert second.returncode == 2
    refusal = [line for line in second.stderr.splitlines() if line.startswith("mqk:")]
    assert len(refusal) == 1 and "instance id 'same' is in use" in refusal[0], second.stderr
    assert "Traceback" not in second.stderr
    answer = client.register("Still/#", queue="APP.STILL")
    assert answer is not None and answer.ok, answer
    assert first.proc is not None and first.proc.poll() is None
    assert first.stop() == 0 and "broker stopped cleanly" in first.messages()


def test_a_workers_partitions_go_to_the_other_when_it_is_killed(
    start_service: Callable[..., ServiceProcess],
    client: KafkaPubSub,
    kafka_bootstrap: str,
    namespace: str,
) -> None:
    first, second = start_service("a"), start_service("b")
    group = f"{namespace}mqk-broker"
    assert wait_until(lambda: len(_assigned(kafka_bootstrap, group)) == 2, 60)
    first.kill()  # never comes back: after the session timeout "b" holds everything
    survivor = f"{namespace}mqk-serve-b"
    assert wait_until(lambda: _assigned(kafka_bootstrap, group) == {survivor: 5}, 60)
    for i in range(3):  # commands (one partition) and publications (four) all answered
        answer = client.register(f"Moved/{i}", queue="APP.MOVED")
        assert answer is not None and answer.ok, answer
    published = [client.publish(f"Moved/{i}", b"x") for i in range(3)]
    assert all(p is not None and p.ok for p in published)
    assert second.proc is not None and second.proc.poll() is None
