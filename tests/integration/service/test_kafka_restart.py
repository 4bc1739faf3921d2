"""Issue 19 point 2: the service rides through its Kafka stopped and started again: it stays
up, says so in a few lines (not a flood), serves again when Kafka is back, and nothing put
before, during or after is lost or delivered twice. Also: what no waiting cures (a fenced
transactional id) ends it with one line and exit code 3.

One broker of the module's own (the session's broker is shared with other tests, and this
module stops it): killed (SIGKILL of the JVM) and then stopped cleanly (SIGTERM), each time
started again on the same port and data directory.
"""

from __future__ import annotations

import calendar
import collections
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from mqkafka.client.kafka_pubsub import KafkaPubSub, command_message
from mqkafka.kafka import clients
from mqkafka.kafka.brokerjars import BrokerError
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import KafkaError, NewTopic
from mqkafka.kafka.lanes import TopicLanes, lane_instance_id
from mqkafka.kafka.localbroker import LocalBroker, port_in_use
from mqkafka.kafka.provision import apply_catalogue
from mqkafka.kafka.txcalls import close_in_background
from mqkafka.kafka.txloop import TransactionalLoop
from mqkafka.kafka.txrecords import OutRecord
from mqkafka.mq.commands import DEFAULT_STREAM
from mqkafka.mq.mqmd import MQMD, MQPER
from mqkafka.wire.headers import mqmd_to_headers
from mqkafka.wire.names import queue_to_topic
from tests.integration.delivered import read_everything
from tests.integration.service.conftest import ServiceProcess, wait_until

pytestmark = pytest.mark.kafka
OUTAGE = 15.0  # seconds Kafka stays down (the benchmark keeps it down 60 s)


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalBroker]:
    local = LocalBroker(tmp_path_factory.mktemp("restart") / "kafka", heap="512m")
    local.start(timeout=180)
    try:
        yield local
    finally:
        local.stop()


def _start_again(broker: LocalBroker, port: int) -> None:
    """On the same port and data directory; a JVM that dies while starting on this loaded
    machine is started once more."""
    assert wait_until(lambda: not port_in_use(port), 60)  # the killed JVM's sockets go
    try:
        broker.start(port=port, timeout=180)
    except BrokerError:
        broker.start(port=port, timeout=180)


def _stacks(service: ServiceProcess) -> str:
    """Where a service that does not answer is (py-spy, when installed): what to fix."""
    spy = Path(sys.executable).with_name("py-spy")
    if service.proc is None or not spy.exists():
        return ""
    dump = subprocess.run([spy, "dump", "--pid", str(service.proc.pid)], capture_output=True)
    return dump.stdout.decode(errors="replace") + dump.stderr.decode(errors="replace")


def _group(bootstrap: str, group: str, topics: list[str]) -> str:
    """The service's group as Kafka sees it (state, each member's instance id, client and
    partitions) and, for ``topics`` (partition 0), the group's committed offset, the last
    stable offset and the end: for a service that does not answer, which lane waits for what
    (no partition, a transaction left open, or a command read and its reply not)."""
    try:
        admin = clients.admin(ClientConfig(bootstrap))
        found = admin.describe_consumer_groups([group], request_timeout=10)[group].result(15)
        members = [
            f"{m.group_instance_id} {m.member_id} {m.client_id} "
            f"{[(tp.topic, tp.partition) for tp in m.assignment.topic_partitions]}"
            for m in found.members or []
        ]
        asked = [clients.ConsumerGroupTopicPartitions(group)]
        committed = admin.list_consumer_group_offsets(asked)[group].result(15)
        offsets = {f"{tp.topic}[{tp.partition}]": tp.offset for tp in committed.topic_partitions}
        ends = {}
        for level in (
            clients.IsolationLevel.READ_COMMITTED,
            clients.IsolationLevel.READ_UNCOMMITTED,
        ):
            request = {clients.TopicPartition(t, 0): clients.OffsetSpec.latest() for t in topics}
            answers = admin.list_offsets(request, isolation_level=level)
            ends[str(level)] = {tp.topic: f.result(15).offset for tp, f in answers.items()}
    except Exception as error:  # a diagnosis only: never the test's failure itself
        return f"{group}: not described ({error})"
    return f"{group}: {found.state} {found.coordinator} {members} {offsets} {ends}"


def _said_since(service: ServiceProcess, went: int, start: str) -> bool:
    return any(m.startswith(start) for m in service.messages()[went:])


def _assert_said_in_few_lines(said: list[dict[str, object]], since: float) -> None:
    """Issue 19 point 2's lines, from Kafka's stop to its return being said: one
    line when Kafka goes, one when it is back ("Kafka is back", once), at most one per 30 s
    between (librdkafka's own lines included: rate-limited); the service's recovery (new
    clients taking over) is said in the back line, not in lines of its own; so are the
    transactions it aborted (the dispatcher says an abort only when it is news)."""
    shown = json.dumps(said, indent=1)
    back = [e for e in said if str(e.get("msg", "")).startswith("Kafka is back")]
    assert len(back) == 1, shown
    said = said[: said.index(back[0]) + 1]  # after it: serving (the answer's queue made, ...)
    assert not [e for e in said if str(e.get("msg", "")).startswith("transaction aborted")], shown
    others = [e for e in said if e not in back]
    times = [_seconds(e) - since for e in others]  # the first says it went
    crowded = [t for t in times if sum(1 for u in times if t <= u < t + 30.0) > 1]
    assert not crowded, shown
    assert not [e for e in said if "took over" in str(e.get("msg", "")) and e not in back], shown


def _seconds(entry: dict[str, object]) -> float:
    """A log entry's time ("ts", UTC, ms) as seconds since the epoch."""
    stamp = str(entry["ts"]).rstrip("Z")
    whole, _, millis = stamp.partition(".")
    return calendar.timegm(time.strptime(whole, "%Y-%m-%dT%H:%M:%S")) + int(millis or 0) / 1000


@pytest.mark.timeout(1200)  # two JVM restarts: minutes on a loaded machine
def test_the_service_rides_through_kafka_restarts_and_loses_nothing(
    broker: LocalBroker, tmp_path: Path
) -> None:
    info = broker.info()
    assert info is not None
    bootstrap, port = info.bootstrap, info.port
    ns = f"k{uuid.uuid4().hex[:6]}."
    apply_catalogue(bootstrap, prefix=ns)
    service = ServiceProcess(bootstrap, ns, tmp_path / "state", "1").start(120.0)
    client = KafkaPubSub(bootstrap, namespace=ns, user="tester")
    # an application's producer: it keeps what it cannot send yet, and is idempotent (without
    # that, Kafka itself may write a record twice when a broker dies under its retries)
    producer = clients.producer(ClientConfig(bootstrap), {"enable.idempotence": True})
    stream = queue_to_topic(DEFAULT_STREAM, ns)
    sent = 0

    def publish(count: int) -> None:
        nonlocal sent
        for _ in range(count):
            md, value = command_message(
                [("Command", "Publish"), ("Topic", "Orders/x")],
                body=f"order-{sent}".encode(),
                md=MQMD(Persistence=MQPER.PERSISTENT),
            )
            producer.produce(stream, value, b"one-key", headers=mqmd_to_headers(md))
            producer.poll(0)
            sent += 1

    try:
        assert client.register("Orders/#", queue="APP.ORDERS").ok  # type: ignore[union-attr]
        for how in ("SIGKILL", "SIGTERM"):
            publish(200)
            went = len(service.log)
            stopped = time.time()
            if how == "SIGKILL":  # the JVM lost at once, mid-stream
                running = broker.info()
                assert running is not None
                os.kill(running.pid, signal.SIGKILL)
                broker.stop()  # forgets the dead JVM
            else:
                assert broker.stop()
            deadline = time.monotonic() + OUTAGE
            while time.monotonic() < deadline:  # puts go on while Kafka is away (buffered)
                publish(20)
                time.sleep(1.0)
            _start_again(broker, port)
            assert service.proc is not None and service.proc.poll() is None, how
            publish(200)
            assert producer.flush(120) == 0
            # serving again: a command is answered (the benchmark times how soon; the wait is
            # only where a test that must end gives up)
            try:
                answer = client.register(f"Back/{how}", queue="APP.BACK", wait=300.0)
            except TimeoutError:
                queues = ("SYSTEM.BROKER.CONTROL.QUEUE", "APP.BACK", "MQK.CLIENT.REPLY")
                group = _group(bootstrap, f"{ns}mqk-broker", [f"{ns}{q}" for q in queues])
                raise AssertionError(
                    (how, service.messages()[went:], group, _stacks(service))
                ) from None
            assert answer is not None and answer.ok, (how, answer)
            assert wait_until(partial(_said_since, service, went, "Kafka is back"))
            _assert_said_in_few_lines(service.log[went:], since=stopped)
        # everything it delivers: read once the service has taken every publication
        bodies = [m.body for m in read_everything(bootstrap, ns, "APP.ORDERS")]
        twice = sorted(b for b, n in collections.Counter(bodies).items() if n > 1)
        if len(bodies) != sent:  # what the service did meanwhile, and where it is
            queues = ("SYSTEM.BROKER.CONTROL.QUEUE", DEFAULT_STREAM, "APP.ORDERS")
            group = _group(bootstrap, f"{ns}mqk-broker", [f"{ns}{q}" for q in queues])
            said = service.messages()[went:]
            raise AssertionError((f"{len(bodies)} delivered of {sent}; twice: {twice}", said,
                                  group, _stacks(service)))  # fmt: skip
        assert sorted(bodies) == sorted(f"order-{i}".encode() for i in range(sent))
        assert service.proc is not None and service.proc.poll() is None
        assert not [e for e in service.log if e.get("level") in ("error", "critical")
                    and "librdkafka" not in str(e.get("logger"))], service.log  # fmt: skip
    finally:
        client.close()
        service.kill()


def test_a_fenced_transactional_id_ends_the_service_in_one_line_with_exit_3(
    broker: LocalBroker, tmp_path: Path
) -> None:
    """Another producer takes the service's transactional id (what a second worker started
    with the same instance id somewhere the instance check cannot see would do)."""
    info = broker.info()
    assert info is not None
    bootstrap = info.bootstrap
    ns = f"f{uuid.uuid4().hex[:6]}."
    apply_catalogue(bootstrap, prefix=ns)
    service = ServiceProcess(bootstrap, ns, tmp_path / "state", "1").start(120.0)
    client = KafkaPubSub(bootstrap, namespace=ns, user="tester")
    try:
        intruder = clients.producer(
            ClientConfig(bootstrap), {"transactional.id": f"{ns}mqk-serve-1"}
        )
        intruder.init_transactions(30)  # fences the service's producer
        client.register("Fenced/#", queue="APP.FENCED", wait=None)  # its next transaction
        assert service.proc is not None
        assert service.proc.wait(60) == 3
        time.sleep(0.5)  # the log reader's last lines
        said = [m for m in service.messages() if "fenced by a newer instance" in m]
        assert len(said) == 1 and "the broker service stopped" in said[0], said
        assert "Traceback" not in "\n".join(service.messages())
    finally:
        client.close()
        service.kill()


def test_a_consumer_fenced_by_a_successor_with_its_instance_id_is_closed(
    broker: LocalBroker,
) -> None:
    """The loop closes a consumer the group fenced after its own rejoin, on a thread of its
    own (it kept every one, never closed, for fear the close would hang): with a real group
    the close of a fenced static member returns."""
    info = broker.info()
    assert info is not None
    config = ClientConfig(info.bootstrap)
    topic = f"fenced-{uuid.uuid4().hex[:6]}"
    admin = clients.admin(config)
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(60)
    settings = {
        "group.id": f"g-{topic}",
        "group.instance.id": "worker-1",
        "session.timeout.ms": 10_000,
        "partition.assignment.strategy": "cooperative-sticky",
    }
    fenced = clients.consumer(config, settings)
    fenced.subscribe([topic])
    assert wait_until(lambda: bool(fenced.consume(10, 0.2) or fenced.assignment()), 120)
    successor = clients.consumer(config, settings)
    successor.subscribe([topic])
    errors: list[KafkaError] = []

    def fenced_now() -> bool:
        successor.consume(10, 0.1)
        errors.extend(m.error() for m in fenced.consume(10, 0.1) if m.error() is not None)
        return any(e.code() == KafkaError._FATAL for e in errors)

    try:
        assert wait_until(fenced_now, 120), errors
        closed = close_in_background(fenced, wait=0)
        closed.result(120)  # a close that hung would leave this future undone
    finally:
        successor.close()


class _Echo:
    """A loop's handler: each record's value to ``out``."""

    def __init__(self, out: str) -> None:
        self.out = out

    def handle(self, batch: Sequence[Any]) -> list[OutRecord]:
        return [OutRecord(self.out, m.value()) for m in batch]


def _members(admin: Any, group: str) -> dict[str, str]:
    """The group's static members as Kafka sees them: instance id -> member id."""
    found = admin.describe_consumer_groups([group], request_timeout=10)[group].result(15)
    return {m.group_instance_id: m.member_id for m in found.members or []}


def test_a_fenced_lane_is_replaced_alone_and_the_other_lanes_keep_their_membership(
    broker: LocalBroker,
) -> None:
    """A lane (a consumer per input topic) the group fenced after its own rejoin is replaced
    by a new client with its instance id; the other lanes stay the members they were (the
    same member ids, their partitions kept), and the loop serves every topic after. The
    whole lane set was replaced before, the unfenced lanes left to close unwaited: still
    members, each could rejoin under its successor's instance id and fence it."""
    info = broker.info()
    assert info is not None
    config = ClientConfig(info.bootstrap)
    tag = uuid.uuid4().hex[:6]
    control, stream, out = f"lc-{tag}", f"ls-{tag}", f"lo-{tag}"
    admin = clients.admin(config)
    for topic in (control, stream, out):
        admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(60)
    group = f"g-{tag}"
    loop = TransactionalLoop(
        client=config, group_id=group, topics=[control, stream], handler=_Echo(out),
        transactional_id=f"tx-{tag}", instance_id="w", lane_per_topic=True,
    )  # fmt: skip
    lanes = loop.consumer
    assert isinstance(lanes, TopicLanes)
    failed: list[BaseException] = []
    running = threading.Thread(target=_run_catching, args=(loop, failed), daemon=True)
    running.start()
    intruder = None
    try:
        assert wait_until(lambda: len(lanes.assignment()) == 2, 120), failed
        before = _members(admin, group)
        stream_id = lane_instance_id("w", stream, False)
        assert set(before) == {"w", stream_id}
        # the outage the fence belongs to, and a lane made a session ago: its own rejoin's
        loop._back_at = time.monotonic()
        lanes.made_at[stream] -= 60.0
        loop._consumer_at -= 60.0
        kept, fenced = lanes.lane_of(control), lanes.lane_of(stream)
        intruder = clients.consumer(config, {"group.id": group, "group.instance.id": stream_id,
                                             "partition.assignment.strategy":
                                             "cooperative-sticky"})  # fmt: skip
        intruder.subscribe([stream])  # takes the lane's instance id: the lane is fenced

        def replaced() -> bool:
            intruder.consume(10, 0.1)  # served, it joins
            return loop.consumer.lane_of(stream) is not fenced

        assert wait_until(replaced, 120), failed

        def rejoined() -> bool:  # the loop's lane for the stream is the member with its id
            lane = loop.consumer.lane_of(stream)
            return bool(_members(admin, group).get(stream_id) == lane.memberid())

        assert wait_until(rejoined, 120), failed
        after = _members(admin, group)
        assert loop.consumer.lane_of(control) is kept and after["w"] == before["w"], failed
        assert not failed and running.is_alive()
        producer = clients.producer(config)
        for topic in (control, stream):
            producer.produce(topic, f"after-{topic}".encode())
        assert producer.flush(60) == 0
        reader = clients.consumer(
            config,
            {
                "group.id": f"r-{tag}",
                "isolation.level": "read_committed",
                "auto.offset.reset": "earliest",
            },
        )
        reader.subscribe([out])
        seen: set[bytes] = set()

        def both_served() -> bool:
            seen.update(m.value() for m in reader.consume(10, 0.5) if m.error() is None)
            return {f"after-{t}".encode() for t in (control, stream)} <= seen

        try:
            assert wait_until(both_served, 120), (seen, failed)
        finally:
            reader.close()
    finally:
        loop.stop()
        running.join(60)
        if intruder is not None:
            close_in_background(intruder, wait=0)


def _run_catching(loop: TransactionalLoop, failed: list[BaseException]) -> None:
    try:
        loop.run()
    except BaseException as error:  # the test's to see
        failed.append(error)
