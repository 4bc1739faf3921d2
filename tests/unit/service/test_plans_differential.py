"""Plan replay against the plain engine path, differentially (issue 22 point 3): for random
sequences of registrations, deregistrations and publications, in batches that commit or
abort, a dispatcher that replays publication plans writes exactly the records, and the same
activity events, as one that takes every message through the engine."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqkafka.kafka.txloop import OutRecord
from mqkafka.mq.commands import CONTROL_QUEUE
from mqkafka.mq.mqmd import MQMT
from mqkafka.service.dispatcher import Dispatcher
from tests.unit.service.test_dispatcher import (
    Message,
    activity_events,
    dispatcher,
    publish,
    put,
)

QUEUES = ["APP.A", "APP.B"]
FILTERS = ["Sport/#", "Sport/Soccer", "Weather", "+/Tennis"]
TOPICS = ["Sport/Soccer", "Sport/Tennis", "Weather"]
BODIES = [b"", b"x", b'{"score": 1}', b'{"score": 5}', b"y" * 40]

register = st.tuples(
    st.just("reg"),
    st.sampled_from(QUEUES),
    st.sampled_from(FILTERS),
    st.booleans(),  # with a content filter
    st.booleans(),  # CorrelAsId
)
deregister = st.tuples(st.just("dereg"), st.sampled_from(QUEUES), st.sampled_from(FILTERS))
publication = st.tuples(
    st.just("pub"),
    st.sampled_from(TOPICS),
    st.sampled_from(BODIES),
    st.booleans(),  # persistent
    st.booleans(),  # retained
    st.sampled_from([None, b"M1", b"M2"]),  # MsgId (None: the MQMD default)
    st.sampled_from([546, 273]),
)
operation = st.one_of(publication, publication, register, deregister)
batches = st.lists(
    st.tuples(st.lists(operation, min_size=1, max_size=6), st.booleans()),  # (ops, commit)
    min_size=1,
    max_size=6,
)


def message(op: tuple[Any, ...]) -> Message:
    if op[0] == "pub":
        _, topic, body, persistent, retained, msg_id, encoding = op
        extra = [("PubOpt", "RetainPub")] if retained else []
        md: dict[str, Any] = {"Persistence": int(persistent), "Encoding": encoding}
        if msg_id is not None:
            md["MsgId"] = msg_id.ljust(24, b"\0")
        return publish(topic, body, *extra, **md)
    request: dict[str, Any] = {"MsgType": MQMT.REQUEST, "ReplyToQ": "APP.REPLIES"}
    if op[0] == "reg":
        _, queue, topic, filtered, correl = op
        pairs = [("Command", "RegSub"), ("Topic", topic), ("QName", queue)]
        if filtered:
            pairs.append(("Filter", "Body.score > 2"))
        if correl:
            pairs.append(("RegOpt", "CorrelAsId"))
            request["CorrelId"] = b"C".ljust(24, b"\0")
        return put(CONTROL_QUEUE, pairs, **request)
    _, queue, topic = op
    pairs = [("Command", "DeregSub"), ("Topic", topic), ("QName", queue)]
    return put(CONTROL_QUEUE, pairs, **request)


def play(d: Dispatcher, plan: list[tuple[list[tuple[Any, ...]], bool]]) -> list[OutRecord]:
    """Every batch's records; those of an aborted batch too (what the loop would have
    written had it committed), so that a wrong replay is seen wherever it happens."""
    out: list[OutRecord] = []
    for ops, commit in plan:
        out += d.handle([message(op) for op in ops])
        if commit:
            d.committed()
        else:
            d.aborted()
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches)
def test_replayed_plans_write_what_the_engine_writes(
    plan: list[tuple[list[tuple[Any, ...]], bool]],
) -> None:
    planned, engine_only = dispatcher(plans=True), dispatcher(plans=False)
    with_plans, without = play(planned, plan), play(engine_only, plan)
    assert [r for r in with_plans if r.topic != "mqk-activity"] == [
        r for r in without if r.topic != "mqk-activity"
    ]
    assert activity_events(with_plans) == activity_events(without)
    assert list(planned.state.subscriptions) == list(engine_only.state.subscriptions)


def test_the_differential_test_does_replay_plans() -> None:
    """The sequences above do reach the replay path: a publication repeated is replayed."""
    planned = dispatcher(plans=True)
    op = ("pub", "Sport/Soccer", b"x", False, False, None, 546)
    play(planned, [([("reg", "APP.A", "Sport/#", False, False)], True), ([op, op, op], True)])
    assert planned.plans is not None and planned.plans.hits == 2
