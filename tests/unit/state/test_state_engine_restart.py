"""A broker restarted on a reopened RocksState is the broker it was: the engine's indexes,
rebuilt from the RocksDB stores, match and deliver as the original did."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mqkafka.engine.context import EngineConfig
from mqkafka.engine.identity import Identity
from mqkafka.engine.state import EngineState
from mqkafka.engine.topicspace import ROOT, Namespace, TopicString
from mqkafka.mq.commands import DEFAULT_STREAM
from mqkafka.mq.reasons import RC
from mqkafka.state.rocks import RocksState
from tests.unit.engine.driver import QMGR, BrokerDriver

A = b"A" * 24
CONFIG = EngineConfig(qmgr_name=QMGR, streams=frozenset({DEFAULT_STREAM, "NEWS.STREAM"}))
NEWS = Namespace.stream("NEWS.STREAM")
TOPICS = [
    (ROOT, "Sport/Soccer/Results"),
    (ROOT, "Sport/Tennis"),
    (ROOT, "Sport/Soccer/Scores/T1"),
    (ROOT, "Weather"),
    (NEWS, "World/Europe"),
    (Namespace.subpoint("SP"), "Sport/Soccer/Results"),
]


def broker_on(state: RocksState) -> BrokerDriver:
    engine = EngineState(
        subscriptions=state.subscriptions, retained=state.retained, publishers=state.publishers
    )
    return BrokerDriver(state=engine, config=CONFIG)


def populate(broker: BrokerDriver) -> None:
    """A little of everything the state holds: identities with and without CorrelId, names,
    subscriber identities, RFH1 streams, subpoints, filters, retained publications and
    publisher registrations."""
    commands = [
        broker.register_subscriber("Sport/#", queue="RESULTS", correl_id=A),
        broker.register_subscriber("Sport/Soccer/+", queue="SCORES", sub_name="soccer"),
        broker.register_subscriber(
            "Sport/Tennis",
            queue="SHARED",
            sub_name="tennis",
            sub_identity="app1",
            options="JoinShared",
        ),
        broker.register_subscriber(
            "Sport/Tennis",
            queue="SHARED",
            sub_name="tennis",
            sub_identity="app2",
            options="JoinShared",
        ),
        broker.register_subscriber("World/*", queue="NEWSQ", rfh1=True, stream="NEWS.STREAM"),
        broker.register_subscriber("Sport/#", queue="SPQ", sub_point="SP"),
        broker.register_subscriber("Sport/Soccer/#", queue="FILTERED", filter="colour = 'red'"),
        broker.register_subscriber("Sport/Soccer/Scores/#", queue="ONREQ", options="PubOnReqOnly"),
        broker.publish("Sport/Soccer/Scores/T1", body=b"1-0", retain=True),
        broker.publish("Sport/Soccer/Scores/T2", body=b"2-2", retain=True),
        broker.publish(
            "World/Europe",
            body=b"news",
            retain=True,
            rfh1=True,
            stream="NEWS.STREAM",
            queue_put="NEWS.STREAM",
        ),
        broker.register_publisher("Sport/Soccer", queue="PUBQ", stream="NEWS.STREAM"),
    ]
    assert all(outcome.ok for outcome in commands), commands


def matched(engine: EngineState) -> dict[tuple[Namespace, str], set[object]]:
    return {
        (ns, topic): {live.sub for live in engine.matching(ns, TopicString(topic))}
        for ns, topic in TOPICS
    }


def delivered(broker: BrokerDriver, topic: str) -> list[tuple[str, bytes, bytes]]:
    outcome = broker.publish(topic, body=b"after")
    return sorted((d.queue, d.md.CorrelId, d.content.body) for d in outcome.deliveries)


@pytest.fixture
def path(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "state"


def test_the_engine_keeps_an_empty_rocks_store(path: Path) -> None:
    """``EngineState`` must use the stores it is given even while they are empty (it writes
    ``store or default``), or nothing would reach RocksDB."""
    with RocksState(path) as state:
        engine = broker_on(state).state
        assert engine.subscriptions is state.subscriptions
        assert engine.retained is state.retained
        assert engine.publishers is state.publishers


def test_a_rebuilt_engine_matches_the_same_subscriptions(path: Path) -> None:
    with RocksState(path) as state:
        original = broker_on(state)
        populate(original)
        before = matched(original.state)
        sent = {topic: delivered(original, topic) for _, topic in TOPICS[:4]}
        names = original.state.named(ROOT, "soccer")
        state.flush()
        state.mark_clean()
    with RocksState(path) as state:
        assert state.was_clean()
        restarted = broker_on(state)
        restarted.state.check_invariants()
        assert matched(restarted.state) == before
        assert any(before.values())
        assert restarted.state.named(ROOT, "soccer") == names is not None
        assert {topic: delivered(restarted, topic) for _, topic in TOPICS[:4]} == sent
        assert all(sent[topic] for topic in ("Sport/Soccer/Results", "Sport/Tennis"))


def test_a_rebuilt_engine_keeps_subscriber_identities_and_publishers(path: Path) -> None:
    with RocksState(path) as state:
        populate(broker_on(state))
    with RocksState(path) as state:
        engine = broker_on(state).state
        tennis = engine.named(ROOT, "tennis")
        assert tennis is not None and tennis.identities == {"app1", "app2"}
        (registration,) = engine.publishers_of(Identity("PUBQ", QMGR))
        assert registration.key.topic.text == "Sport/Soccer"


def test_retained_publications_survive_a_restart(path: Path) -> None:
    """Seed 000: "If the queue manager has any matching retained publications, they are sent
    to the subscriber" - also after the broker restarted on its RocksDB state."""
    with RocksState(path) as state:
        populate(broker_on(state))
    with RocksState(path) as state:
        broker = broker_on(state)
        assert broker.request_update("Sport/Soccer/Scores/#", queue="ONREQ").ok
        assert sorted(m.body for m in broker.drain("ONREQ")) == [b"1-0", b"2-2"]


def test_deregistration_before_a_restart_stays_deregistered(path: Path) -> None:
    """Seed 000: "The requester must have previously registered a subscription with the same
    Topic, SubPoint, and Filter values" - a subscription removed before the restart is gone
    after it, so ReqUpdate is refused."""
    with RocksState(path) as state:
        broker = broker_on(state)
        populate(broker)
        assert broker.deregister_subscriber("Sport/Soccer/Scores/#", queue="ONREQ").ok
    with RocksState(path) as state:
        broker = broker_on(state)
        outcome = broker.request_update("Sport/Soccer/Scores/#", queue="ONREQ")
        assert outcome.reason == RC.CF_NOT_REGISTERED


def test_the_broker_chosen_correl_id_survives_a_restart(path: Path) -> None:
    """Seed 001: "If MQPS_CORREL_ID_AS_IDENTITY is not set ... the broker uses a correlation
    identifier of its own choosing when sending messages to that ... subscriber" - the one it
    chose is stored, so copies carry it after a restart too."""
    with RocksState(path) as state:
        broker = broker_on(state)
        assert broker.register_subscriber("Sport/Tennis", queue="PLAIN").ok
        (before,) = [d.md.CorrelId for d in broker.publish("Sport/Tennis").deliveries]
    with RocksState(path) as state:
        (after,) = [d.md.CorrelId for d in broker_on(state).publish("Sport/Tennis").deliveries]
    assert after == before != bytes(24)


def test_a_subscription_name_still_reaches_its_subscription_after_a_restart(path: Path) -> None:
    """Seed 002: "When the subscription name has been defined for the subscription, subsequent
    commands need specify only the subscription name to access (modify or deregister) the
    subscription." - the name index is rebuilt from the stored subscriptions."""
    with RocksState(path) as state:
        populate(broker_on(state))
    with RocksState(path) as state:
        broker = broker_on(state)
        assert broker.state.named(ROOT, "soccer") is not None
        assert broker.deregister_subscriber(sub_name="soccer").ok
        assert broker.state.named(ROOT, "soccer") is None
    with RocksState(path) as state:
        assert broker_on(state).state.named(ROOT, "soccer") is None
