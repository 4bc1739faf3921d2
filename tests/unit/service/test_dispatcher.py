"""The dispatcher without Kafka: replayed publication plans equal the engine's answers, record
for record; an aborted batch leaves the state as it was."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import fastavro
import pytest

from mqkafka.activity.builder import ActivityRecorder
from mqkafka.activity.events import batch_schema
from mqkafka.client.kafka_pubsub import command_message
from mqkafka.engine.context import CountingIds, EngineConfig, EngineContext
from mqkafka.engine.state import EngineState
from mqkafka.kafka.txloop import OutRecord
from mqkafka.mq.commands import CONTROL_QUEUE, DEFAULT_STREAM
from mqkafka.mq.mqmd import MQMD, MQMT, MQPER
from mqkafka.selectors import SelectorFilterPort
from mqkafka.service.config import ServiceConfig
from mqkafka.service.dispatcher import Dispatcher
from mqkafka.service.metrics import Metrics
from mqkafka.service.outputs import Outputs
from mqkafka.service.queues import QueueDirectory
from mqkafka.wire.headers import mqmd_to_headers
from mqkafka.wire.names import queue_to_topic

ACTIVITY = fastavro.parse_schema(batch_schema())


@dataclass
class Message:
    """What the dispatcher reads of a confluent-kafka Message."""

    _topic: str
    _value: bytes
    _headers: list[tuple[str, bytes]]
    _offset: int
    _timestamp: int = 1_700_000_000_000

    def topic(self) -> str:
        return self._topic

    def value(self) -> bytes:
        return self._value

    def headers(self) -> list[tuple[str, bytes]]:
        return list(self._headers)  # a new list each call, as confluent-kafka gives

    def offset(self) -> int:
        return self._offset

    def partition(self) -> int:
        return 0

    def timestamp(self) -> tuple[int, int]:
        return (1, self._timestamp)


class EveryTopicExists:
    @dataclass
    class _Found:
        error: Any = None

    @dataclass
    class _Metadata:
        topics: dict[str, Any] = field(default_factory=dict)

    def list_topics(self, topic: str, timeout: float) -> Any:
        return self._Metadata({topic: self._Found()})


class NoReplica:
    def catch_up(self) -> int:
        return 0


def dispatcher(
    *,
    plans: bool,
    limits: Any = None,
    activity: bool = True,
    clock: Callable[[], float] = lambda: 1_700_000_000.25,
) -> Dispatcher:
    filters = SelectorFilterPort()
    queues = QueueDirectory(EveryTopicExists())
    ctx = EngineContext(
        config=EngineConfig(),
        filters=filters,
        queues=queues,
        ids=CountingIds(),
        clock=clock,
    )
    return Dispatcher(
        state=EngineState(filters=filters),
        ctx=ctx,
        replica=NoReplica(),  # type: ignore[arg-type]
        outputs=Outputs(ServiceConfig(bootstrap="unused:9092"), queues, limits),
        metrics=Metrics(),
        activity=ActivityRecorder("mqk-activity", "QM1", "w1") if activity else None,
        plans=plans,
    )


_offsets = iter(range(1_000_000))


def put(queue: str, pairs: list[tuple[str, str]], body: bytes = b"", **md: Any) -> Message:
    mqmd, value = command_message(pairs, body=body, md=MQMD(**md))
    return Message(queue_to_topic(queue), value, mqmd_to_headers(mqmd), next(_offsets))


def register(queue: str, topic: str, *extra: tuple[str, str], correl: bytes = b"") -> Message:
    pairs = [("Command", "RegSub"), ("Topic", topic), ("QName", queue), *extra]
    md: dict[str, Any] = {"MsgType": MQMT.REQUEST, "ReplyToQ": "APP.REPLIES"}
    if correl:
        pairs.append(("RegOpt", "CorrelAsId"))
        md["CorrelId"] = correl.ljust(24, b"\0")
    return put(CONTROL_QUEUE, pairs, **md)


def publish(topic: str, body: bytes, *extra: tuple[str, str], **md: Any) -> Message:
    return put(DEFAULT_STREAM, [("Command", "Publish"), ("Topic", topic), *extra], body, **md)


def run(d: Dispatcher, batches: list[list[Message]]) -> list[OutRecord]:
    out: list[OutRecord] = []
    for batch in batches:
        out += d.handle(batch)
        d.committed()
    return out


def activity_events(records: list[OutRecord]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for record in records:
        if record.topic == "mqk-activity":
            events += fastavro.schemaless_reader(io.BytesIO(record.value or b""), ACTIVITY)[
                "events"
            ]
    return events


def scenario() -> list[list[Message]]:
    """Publications repeated with new bodies, while the subscriptions change between them."""
    a = [register("APP.A", "Sport/#"), register("APP.B", "Sport/Soccer", correl=b"B1")]
    first = [publish("Sport/Soccer", f"goal {i}".encode()) for i in range(5)]
    persistent = [
        publish("Sport/Soccer", b"p%d" % i, Persistence=MQPER.PERSISTENT) for i in range(3)
    ]
    filtered = [register("APP.F", "Sport/Soccer", ("Filter", "Body.score > 2"))]
    json_bodies = [publish("Sport/Soccer", b'{"score": %d}' % i) for i in range(5)]
    retained = [publish("Sport/Tennis", b"r%d" % i, ("PubOpt", "RetainPub")) for i in range(3)]
    nobody = [publish("Weather/Rain", b"w%d" % i) for i in range(3)]
    mq_style = [  # MQ gives every message a new MsgId: the plans hold for any
        publish("Sport/Golf", b"g%d" % i, MsgId=b"MSG%d" % i + bytes(20)) for i in range(4)
    ]
    later = [register("APP.C", "Sport/Rugby")]  # (APP.F's filter reads every Sport/Soccer one)
    again = [publish("Sport/Rugby", f"after {i}".encode()) for i in range(4)]
    return [a, first, persistent, filtered + json_bodies, retained, nobody, mq_style, later + again]


def test_replayed_plans_write_exactly_what_the_engine_writes() -> None:
    planned, engine_only = dispatcher(plans=True), dispatcher(plans=False)
    with_plans = run(planned, scenario())
    without = run(engine_only, scenario())
    assert planned.plans is not None and planned.plans.hits == 14  # the plans were used
    # activity events are the same events, grouped in other Avro array blocks
    assert activity_events(with_plans) == activity_events(without)
    assert [r for r in with_plans if r.topic != "mqk-activity"] == [
        r for r in without if r.topic != "mqk-activity"
    ]
    # and what they wrote is what the engine decides: copies per subscription
    copies = [r for r in without if r.topic.startswith("APP.") and r.topic != "APP.REPLIES"]
    assert {r.topic for r in copies} == {"APP.A", "APP.B", "APP.F", "APP.C"}


@pytest.mark.parametrize("encoding", [546, 273], ids=["little-endian", "big-endian"])
def test_plans_hold_for_topics_of_every_length_interleaved(encoding: int) -> None:
    """A tree's topics differ in length, so their RFH2 headers do: each topic's second
    publication is replayed (issue 21), and writes what the engine writes."""
    topics = ["T/A", "T/Bb/Long/Name", "T/Ccc", "T/A/Deeper/Still/X", "T/Bb"]

    def rounds() -> list[list[Message]]:
        pubs = [
            publish(t, b"%d %s" % (n, t.encode()), MsgId=b"M%d%d" % (n, i) + bytes(21),
                    Encoding=encoding)
            for n in range(2) for i, t in enumerate(topics)
        ]  # fmt: skip
        return [[register("APP.A", "T/#")], pubs]

    planned, engine_only = dispatcher(plans=True), dispatcher(plans=False)
    with_plans, without = run(planned, rounds()), run(engine_only, rounds())
    assert planned.plans is not None and planned.plans.hits == len(topics)
    assert activity_events(with_plans) == activity_events(without)
    assert [r for r in with_plans if r.topic != "mqk-activity"] == [
        r for r in without if r.topic != "mqk-activity"
    ]


def test_a_content_filter_is_evaluated_for_every_publication_even_when_plans_exist() -> None:
    d = dispatcher(plans=True)
    run(d, [[register("APP.F", "Sport/Soccer", ("Filter", "Body.score > 2"))]])
    out = run(d, [[publish("Sport/Soccer", b'{"score": %d}' % i) for i in range(6)]])
    bodies = [r.value[-12:] for r in out if r.topic == "APP.F"]  # type: ignore[index]
    assert [b.endswith((b"3}", b"4}", b"5}")) for b in bodies] == [True] * 3


def test_a_new_subscription_reaches_publications_after_a_plan_was_made() -> None:
    d = dispatcher(plans=True)
    run(d, [[register("APP.A", "News/#")], [publish("News/Today", b"one")] * 3])
    out = run(d, [[register("APP.B", "News/Today"), publish("News/Today", b"two")]])
    copies = [r.topic for r in out if r.topic.startswith("APP.") and r.topic != "APP.REPLIES"]
    assert sorted(copies) == ["APP.A", "APP.B"]


def test_activity_events_of_replayed_plans_name_each_copy_and_the_publication() -> None:
    d = dispatcher(plans=True)
    run(d, [[register("APP.A", "Sport/#"), register("APP.B", "Sport/#")]])
    out = run(d, [[publish("Sport/Golf", b"x" * n) for n in (10, 20, 30)]])
    assert d.plans is not None and d.plans.hits == 2
    events = activity_events(out)
    kinds = [(e["kind"], e["queue"]) for e in events]
    assert kinds == [
        ("COMMAND", DEFAULT_STREAM), ("DELIVERY", "APP.A"), ("DELIVERY", "APP.B"),
    ] * 3  # fmt: skip
    sizes = [e["bytes"] for e in events if e["kind"] == "COMMAND"]
    assert sizes[1] - sizes[0] == 10 and sizes[2] - sizes[1] == 10


def test_an_aborted_batch_undoes_its_registrations() -> None:
    d = dispatcher(plans=True)
    run(d, [[register("APP.A", "Sport/#")]])
    d.handle([register("APP.B", "Sport/#"), publish("Sport/Golf", b"x")])
    assert len(d.state.subscriptions) == 2
    d.aborted()
    assert len(d.state.subscriptions) == 1
    out = run(d, [[publish("Sport/Golf", b"y")]])
    assert [r.topic for r in out if r.topic.startswith("APP.")] == ["APP.A"]


def test_a_malformed_msg_id_is_dead_lettered_even_when_a_plan_exists() -> None:
    d = dispatcher(plans=True)
    run(d, [[register("APP.A", "Sport/#")], [publish("Sport/Golf", b"x")] * 2])
    bad = publish("Sport/Golf", b"y")
    bad._headers = [*bad._headers, ("mqmd.MsgId", b"too short")]
    twice = publish("Sport/Golf", b"z", MsgId=b"M" * 24)
    twice._headers = [*twice._headers, ("mqmd.MsgId", b"N" * 24)]
    out = run(d, [[bad, twice]])
    assert [r.topic for r in out if r.topic != "mqk-activity"] == ["SYSTEM.DEAD.LETTER.QUEUE"] * 2
    assert {dict(r.headers or ())["mqk.reason"] for r in out if r.headers} == {b"2026"}


def test_the_publications_msg_id_is_in_its_activity_events() -> None:
    d = dispatcher(plans=True)
    run(d, [[register("APP.A", "Sport/#")]])
    ids = [b"ID%02d" % i + bytes(20) for i in range(3)]
    out = run(d, [[publish("Sport/Golf", b"x", MsgId=msg_id) for msg_id in ids]])
    assert d.plans is not None and d.plans.hits == 2
    events = activity_events(out)
    assert [e["msg_id"] for e in events] == [i for i in ids for _ in range(2)]
