"""Kafka-native subscriber queues and publications through the dispatcher, without Kafka
(issue 37): a KAFKA-format queue gets the publisher's data alone with its topic, properties
and MQMD as headers; a record with no RFH but ``mqpsc.*`` headers is a Publish; replayed
plans write what the engine writes for both (Hypothesis, against the plain path)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqkafka.activity.builder import ActivityRecorder
from mqkafka.engine.context import CountingIds, EngineConfig, EngineContext
from mqkafka.engine.state import EngineState
from mqkafka.kafka.txloop import OutRecord
from mqkafka.mq.commands import CONTROL_QUEUE, DEFAULT_STREAM
from mqkafka.mq.mqmd import MQMD, MQMT
from mqkafka.mq.pscommands import command_message
from mqkafka.mq.reasons import RC
from mqkafka.selectors import SelectorFilterPort
from mqkafka.service.config import ServiceConfig
from mqkafka.service.dispatcher import Dispatcher
from mqkafka.service.limits import FixedLimits
from mqkafka.service.metrics import Metrics
from mqkafka.service.outputs import Outputs
from mqkafka.service.queues import QueueDirectory
from mqkafka.wire.headers import mqmd_to_headers
from mqkafka.wire.names import queue_to_topic
from tests.unit.service.test_dispatcher import (
    EveryTopicExists,
    Message,
    NoReplica,
    activity_events,
    publish,
    put,
    register,
    run,
)

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
USR = "<usr><Colour>red</Colour><Size dt='i4'>3</Size><a><b dt='boolean'>true</b></a></usr>"


class Formats:
    """The catalogue's answer: which queues are KAFKA format."""

    def __init__(self, *native: str) -> None:
        self.native = frozenset(native)
        self.changes = 1

    def kafka_native_names(self) -> frozenset[str]:
        return self.native


def dispatcher(
    *native: str, plans: bool = True, formats: Formats | None = None, limits: Any = None
) -> Dispatcher:
    filters = SelectorFilterPort()
    queues = QueueDirectory(EveryTopicExists())
    ctx = EngineContext(
        config=EngineConfig(), filters=filters, queues=queues, ids=CountingIds(),
        clock=lambda: 1_700_000_000.25,
    )  # fmt: skip
    config = ServiceConfig(bootstrap="unused:9092")
    outputs = Outputs(config, queues, limits, formats=formats or Formats(*native))
    return Dispatcher(
        state=EngineState(filters=filters), ctx=ctx, replica=NoReplica(),  # type: ignore[arg-type]
        outputs=outputs, metrics=Metrics(), activity=ActivityRecorder("mqk-activity", "QM1", "w1"),
        plans=plans,
    )  # fmt: skip


def native(body: bytes, *headers: tuple[str, bytes], **md: Any) -> Message:
    """A record as a Kafka producer writes it: the data, its topic and the rest in headers."""
    return Message(
        queue_to_topic(DEFAULT_STREAM), body, [*mqmd_to_headers(MQMD(**md)), *headers], 0
    )


def on(records: list[OutRecord], queue: str) -> list[OutRecord]:
    return [r for r in records if r.topic == queue]


def headers_of(record: OutRecord) -> dict[str, bytes]:
    names = [name for name, _ in record.headers or ()]
    assert len(names) == len(set(names)), f"a header written twice: {names}"
    return {name: value for name, value in record.headers or ()}  # type: ignore[misc]


def test_a_kafka_native_queue_gets_the_data_alone_and_an_mq_queue_its_rfh2() -> None:
    d = dispatcher("APP.K")
    run(d, [[register("APP.K", "Sport/#"), register("APP.M", "Sport/#")]])
    out = run(d, [[publish("Sport/Golf", b'{"hole": 1}')]])
    (mq,) = on(out, "APP.M")
    assert mq.value is not None and mq.value.startswith(b"RFH ")
    (copy,) = on(out, "APP.K")
    assert copy.value == b'{"hole": 1}'
    h = headers_of(copy)
    assert h["mqpsc.Topic"] == b"Sport/Golf"
    assert "mqpsc.Command" not in h and h["mqmd.Format"] == b"MQSTR"
    assert h["mqmd.PutApplType"] == b"26"  # the broker put it, as for an MQ subscriber


def test_properties_of_an_rfh2_publication_are_mqprop_headers_on_a_native_queue() -> None:
    d = dispatcher("APP.K")
    run(d, [[register("APP.K", "T")]])
    md, value = command_message([("Command", "Publish"), ("Topic", "T")], body=b"data",
                                folders=[USR])  # fmt: skip
    message = Message(queue_to_topic(DEFAULT_STREAM), value, mqmd_to_headers(md), 0)
    (copy,) = on(run(d, [[message]]), "APP.K")
    h = headers_of(copy)
    assert copy.value == b"data" and h["mqmd.Format"] == b"MQSTR"
    assert (h["mqprop.Colour"], h["mqprop.Size"], h["mqtype.Size"]) == (b"red", b"3", b"i4")
    assert (h["mqprop.a.b"], h["mqtype.a.b"]) == (b"true", b"boolean")
    assert "mqtype.Colour" not in h


def test_retained_copies_and_request_update_answers_follow_the_queue_format() -> None:
    d = dispatcher("APP.K")
    run(d, [[publish("News", b"kept", ("PubOpt", "RetainPub"))]])
    out = run(d, [[register("APP.K", "News", ("RegOpt", "InformIfRet"))]])
    (copy,) = on(out, "APP.K")
    assert copy.value == b"kept" and headers_of(copy)["mqpsc.PubOpt"] == b"IsRetainedPub"
    run(d, [[register("APP.K", "Other", ("RegOpt", "PubOnReqOnly"))]])
    run(d, [[publish("Other", b"other", ("PubOpt", "RetainPub"))]])
    request = [("Command", "ReqUpdate"), ("Topic", "Other"), ("QName", "APP.K")]
    asked = run(d, [[put(CONTROL_QUEUE, request, MsgType=MQMT.REQUEST, ReplyToQ="APP.R")]])
    (answer,) = on(asked, "APP.K")
    assert answer.value == b"other" and headers_of(answer)["mqpsc.Topic"] == b"Other"


def test_a_reply_to_a_kafka_native_queue_is_its_pscr_in_headers() -> None:
    d = dispatcher("APP.REPLIES")
    (reply,) = on(run(d, [[register("APP.A", "News")]]), "APP.REPLIES")
    assert reply.value == b""
    h = headers_of(reply)
    assert h["mqpscr.Completion"] == b"ok" and h["mqmd.MsgType"] == b"2"


def test_a_dead_letter_queue_of_kafka_format_holds_no_mqdlh() -> None:
    d = dispatcher(DLQ)
    (dead,) = on(run(d, [[native(b"lost")]]), DLQ)
    assert dead.value == b"lost"
    h = headers_of(dead)
    assert h["mqk.reason"] == str(int(RC.CF_MD_FORMAT_ERROR)).encode()
    assert b"mqpsc.Topic" in h["mqk.detail"]


def test_a_copy_too_large_for_a_native_queue_is_dead_lettered_as_that_queue_holds_it() -> None:
    limits = FixedLimits()
    limits.set("APP.K", 20_000)
    d = dispatcher("APP.K", limits=limits)
    run(d, [[register("APP.K", "News")]])
    (dead,) = on(run(d, [[publish("News", b"x" * 50_000)]]), DLQ)
    assert dead.value is not None and dead.value.startswith(b"DLH ")
    assert dead.value.endswith(b"x" * 50_000) and b"RFH " not in dead.value
    h = headers_of(dead)
    assert (h["mqpsc.Topic"], h["mqk.queue"]) == (b"News", b"APP.K")


def test_a_record_with_the_topic_header_is_a_publication_to_mq_and_native_queues() -> None:
    d = dispatcher("APP.K")
    run(d, [[register("APP.K", "Sport/#"), register("APP.M", "Sport/#")]])
    message = native(
        b'{"hole": 2}', ("mqpsc.Topic", b"Sport/Golf"), ("mqprop.Colour", b"red"),
        ("mqprop.Size", b"3"), ("mqtype.Size", b"i4"), ("traceparent", b"00-abc"),
        Format="MQSTR   ",
    )  # fmt: skip
    out = run(d, [[message]])
    (copy,) = on(out, "APP.K")
    assert copy.value == b'{"hole": 2}'
    h = headers_of(copy)
    assert (h["mqpsc.Topic"], h["mqprop.Colour"], h["mqtype.Size"]) == (
        b"Sport/Golf", b"red", b"i4",
    )  # fmt: skip
    assert h["traceparent"] == b"00-abc" and h["mqmd.Format"] == b"MQSTR"
    (mq,) = on(out, "APP.M")
    assert mq.value is not None and mq.value.endswith(b'{"hole": 2}')
    assert b"<Topic>Sport/Golf</Topic>" in mq.value
    assert b"<Colour>red</Colour>" in mq.value and b'<Size dt="i4">3</Size>' in mq.value
    assert not any(name.startswith("mqpsc.") for name, _ in mq.headers or ())


def test_publish_options_in_headers_retain_and_identity_rules_hold() -> None:
    d = dispatcher()
    retained = native(b"v1", ("mqpsc.Topic", b"Price"), ("mqpsc.PubOpt", b"RetainPub"))
    run(d, [[retained]])
    assert len(d.state.retained) == 1
    out = run(d, [[register("APP.A", "Price")]])
    (copy,) = on(out, "APP.A")
    assert copy.value is not None and copy.value.endswith(b"v1")


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ([], RC.CF_MD_FORMAT_ERROR),  # neither an RFH nor the topic header
        ([("mqpsc.PubOpt", b"RetainPub")], RC.RFH_PARM_MISSING),  # no Topic
        ([("mqpsc.Topic", b"\xff\xfe")], RC.RFH_STRING_ERROR),
        ([("mqpsc.Topic", b"T"), ("mqpsc.PubOpt", b"Nonsense")], None),
    ],
    ids=["no-header", "no-topic", "not-utf8", "bad-option"],
)
def test_a_bad_kafka_native_publication_is_dead_lettered_with_its_reason(
    headers: list[tuple[str, bytes]], reason: int | None
) -> None:
    d = dispatcher()
    out = run(d, [[native(b"data", *headers)]])
    (dead,) = [r for r in out if r.topic != "mqk-activity"]
    assert dead.topic == DLQ and dead.value is not None and dead.value.endswith(b"data")
    found = int(headers_of(dead)["mqk.reason"])
    assert found != 0 and (reason is None or found == reason)


def test_a_bad_kafka_native_publication_with_a_reply_queue_is_answered() -> None:
    d = dispatcher()
    message = native(
        b"x", ("mqpsc.Topic", b"A/#"), MsgType=MQMT.REQUEST, ReplyToQ="APP.R", MsgId=b"I" * 24
    )
    (reply,) = on(run(d, [[message]]), "APP.R")
    assert reply.value is not None and b"<Completion>error</Completion>" in reply.value


# ---- replayed plans against the engine, differentially -----------------------------------

TOPICS = [b"Sport/Soccer", b"Sport/Tennis", b"News"]
publication = st.tuples(
    st.just("pub"),
    st.sampled_from(TOPICS),
    st.sampled_from([b"", b"x", b'{"a": 1}', b"y" * 30]),
    st.booleans(),  # Kafka-native (else an RFH2 Publish)
    st.booleans(),  # retained
    st.sampled_from([None, b"red", b"blue"]),  # a property
    st.sampled_from([None, b"M1"]),  # MsgId
)
registration = st.tuples(
    st.just("reg"), st.sampled_from(["APP.K", "APP.M"]), st.sampled_from(["Sport/#", "News", "#"])
)
batches = st.lists(
    st.tuples(st.lists(st.one_of(publication, publication, registration), min_size=1, max_size=6),
              st.booleans()),
    min_size=1, max_size=5,
)  # fmt: skip


def message(op: tuple[Any, ...]) -> Message:
    if op[0] == "reg":
        return register(op[1], op[2])
    _, topic, body, kafka, retained, colour, msg_id = op
    md: dict[str, Any] = {"MsgId": msg_id.ljust(24, b"\0")} if msg_id else {}
    if kafka:
        headers = [("mqpsc.Topic", topic)]
        if retained:
            headers.append(("mqpsc.PubOpt", b"RetainPub"))
        if colour:
            headers.append(("mqprop.Colour", colour))
        return native(body, *headers, **md)
    extra = [("PubOpt", "RetainPub")] if retained else []
    return publish(topic.decode(), body, *extra, **md)


def play(d: Dispatcher, plan: list[tuple[list[tuple[Any, ...]], bool]]) -> list[OutRecord]:
    out: list[OutRecord] = []
    for ops, commit in plan:
        out += d.handle([message(op) for op in ops])
        d.committed() if commit else d.aborted()
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches)
def test_replayed_plans_write_what_the_engine_writes_for_native_records(
    plan: list[tuple[list[tuple[Any, ...]], bool]],
) -> None:
    planned, engine_only = dispatcher("APP.K", plans=True), dispatcher("APP.K", plans=False)
    with_plans, without = play(planned, plan), play(engine_only, plan)
    assert [r for r in with_plans if r.topic != "mqk-activity"] == [
        r for r in without if r.topic != "mqk-activity"
    ]
    assert activity_events(with_plans) == activity_events(without)


def test_kafka_native_publications_are_replayed() -> None:
    d = dispatcher("APP.K")
    op = ("pub", b"News", b"x", True, False, None, None)
    play(d, [([("reg", "APP.K", "News"), ("reg", "APP.M", "News")], True), ([op] * 3, True)])
    assert d.plans is not None and d.plans.hits == 2


def test_a_queue_changing_format_is_not_served_from_an_old_plan() -> None:
    formats = Formats()
    d = dispatcher(formats=formats)
    run(d, [[register("APP.A", "News")], [publish("News", b"one")] * 2])
    formats.native, formats.changes = frozenset({"APP.A"}), 2
    d.before_batch()
    (copy,) = on(run(d, [[publish("News", b"two")]]), "APP.A")
    assert copy.value == b"two"


# ---- identity assurance: a Kafka-native publication's command is signed -------------------


def test_a_signed_kafka_native_publications_topic_cannot_be_changed() -> None:
    from mqkafka.engine.authority import AclPolicy
    from mqkafka.identity.guard import IdentityGuard, Refused, Verified
    from mqkafka.identity.keys import UserKey
    from mqkafka.identity.signing import signed_headers

    alice = UserKey("alice", bytes(range(32)))
    guard = IdentityGuard({"alice": alice}, AclPolicy.parse("allow * * *"), 300.0)
    stream, now = queue_to_topic(DEFAULT_STREAM), 1_800_000_000.0
    mine = [("mqmd.MsgId", b"M" * 24), ("mqpsc.Topic", b"Prices/Mine")]
    headers = signed_headers(alice, stream, b"1.5", mine, now)
    assert isinstance(guard.check(stream, b"1.5", headers, now), Verified)
    moved = [(n, b"Prices/Yours" if n == "mqpsc.Topic" else v) for n, v in headers]
    refused = IdentityGuard({"alice": alice}, AclPolicy.parse("allow * * *"), 300.0)
    assert isinstance(refused.check(stream, b"1.5", moved, now), Refused)


def test_kafka_pubsub_reads_a_kafka_native_copy_with_its_topic() -> None:
    from mqkafka.client.kafka_pubsub import parse_received

    d = dispatcher("APP.K")
    run(d, [[register("APP.K", "News/#")]])
    (copy,) = on(run(d, [[publish("News/Today", b"read me", ("PubOpt", "RetainPub"))]]), "APP.K")
    received = parse_received(copy.value or b"", copy.headers)
    assert (received.topic, received.body, received.psc["Command"]) == (
        "News/Today", b"read me", ["Publish"],
    )  # fmt: skip


def test_a_faust_agent_reads_a_kafka_native_copy_with_its_topic_and_typed_properties() -> None:
    from mqkafka.faust.mqschema import decode_publication

    d = dispatcher("APP.K")
    run(d, [[register("APP.K", "News/#")]])
    message = native(b"b", ("mqpsc.Topic", b"News/Now"), ("mqprop.n", b"7"), ("mqtype.n", b"i4"))
    (copy,) = on(run(d, [[message]]), "APP.K")
    publication = decode_publication(copy.value, copy.headers)
    assert (publication.topic, publication.body, dict(publication.properties)) == (
        "News/Now", b"b", {"n": 7},
    )  # fmt: skip


@pytest.mark.parametrize("kafka", [False, True], ids=["rfh2", "kafka-native"])
def test_authority_judges_a_kafka_native_publication_as_its_rfh2_twin(kafka: bool) -> None:
    from mqkafka.engine.authority import AclPolicy

    d = dispatcher("APP.K")
    d.ctx = dataclasses.replace(
        d.ctx, authority=AclPolicy.parse("deny publish * Secret/#\nallow * * *")
    )
    run(d, [[register("APP.K", "#")]])
    request: dict[str, Any] = {"MsgType": MQMT.REQUEST, "ReplyToQ": "APP.R", "MsgId": b"P" * 24}
    for topic in ("Secret/Plans", "Open/Plans"):
        message = (
            native(b"x", ("mqpsc.Topic", topic.encode()), **request)
            if kafka
            else publish(topic, b"x", **request)
        )
        out = run(d, [[message]])
        (reply,) = on(out, "APP.R")
        secret = topic.startswith("Secret")
        assert (b"<Reason>3081</Reason>" in (reply.value or b"")) is secret
        assert len(on(out, "APP.K")) == (0 if secret else 1)
