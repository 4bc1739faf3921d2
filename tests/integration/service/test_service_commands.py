"""Each queued pub/sub command end to end through Kafka and a real `mqk serve`."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from confluent_kafka import Producer

from mqkafka.client.kafka_pubsub import KafkaPubSub, command_message, parse_received
from mqkafka.mq.commands import DEFAULT_STREAM
from mqkafka.mq.mqmd import MQMD, MQMT
from mqkafka.mq.reasons import RC
from mqkafka.wire.headers import mqmd_to_headers
from mqkafka.wire.names import queue_to_topic
from tests.integration.raw import read_records
from tests.integration.service.conftest import wait_until

pytestmark = pytest.mark.kafka

CID_SCORES = b"SCORES".ljust(24, b"\x01")
CID_EVENTS = b"EVENTS".ljust(24, b"\x02")


def test_regsub_publish_delivers_with_the_topic_and_the_subscriber_correlid(
    start_service: Callable[..., object], client: KafkaPubSub
) -> None:
    start_service()
    reply = client.register(
        "Sport/Soccer/#", queue="APP.SUBS", options=["CorrelAsId"], correl_id=CID_EVENTS
    )
    assert reply is not None and reply.ok, reply
    assert client.publish("Sport/Soccer/Goal", b"Chelsea 1").ok  # type: ignore[union-attr]
    assert client.publish("Sport/Tennis/Ace", b"not for us").ok  # type: ignore[union-attr]
    [delivered] = list(client.read_queue("APP.SUBS", count=1, timeout=20))
    assert delivered.topic == "Sport/Soccer/Goal"
    assert delivered.psc["Command"] == ["Publish"]
    assert delivered.body == b"Chelsea 1"
    assert delivered.md.CorrelId == CID_EVENTS
    assert delivered.md.MsgType == 8
    assert list(client.read_queue("APP.SUBS", timeout=2)) == [delivered]


def test_deregsub_stops_delivery_and_unknown_deregistration_is_not_registered(
    start_service: Callable[..., object], client: KafkaPubSub
) -> None:
    start_service()
    assert client.register("News/#", queue="APP.NEWS").ok  # type: ignore[union-attr]
    assert client.deregister("News/#", queue="APP.NEWS").ok  # type: ignore[union-attr]
    again = client.deregister("News/#", queue="APP.NEWS")
    assert again is not None and again.reason == RC.CF_NOT_REGISTERED
    assert client.publish("News/Today", b"x").ok  # type: ignore[union-attr]
    assert list(client.read_queue("APP.NEWS", timeout=2)) == []


def test_retained_publication_request_update_and_delete_pub(
    start_service: Callable[..., object], client: KafkaPubSub
) -> None:
    start_service()
    assert client.register(
        "Scores/#", queue="APP.SCORES", options=["PubOnReqOnly", "CorrelAsId"], correl_id=CID_SCORES
    ).ok  # type: ignore[union-attr]
    none_yet = client.request_update(
        "Scores/#", queue="APP.SCORES", options=["CorrelAsId"], correl_id=CID_SCORES
    )
    assert none_yet is not None and none_yet.reason == RC.CF_NO_RETAINED_MSG
    assert client.publish("Scores/Chelsea", b"4-1", retain=True).ok  # type: ignore[union-attr]
    assert list(client.read_queue("APP.SCORES", timeout=2)) == []  # PubOnReqOnly: nothing pushed
    update = client.request_update(
        "Scores/#", queue="APP.SCORES", options=["CorrelAsId"], correl_id=CID_SCORES
    )
    assert update is not None and update.ok, update
    [retained] = list(client.read_queue("APP.SCORES", count=1, timeout=20))
    assert retained.body == b"4-1" and retained.md.CorrelId == CID_SCORES
    assert client.delete_publication("Scores/Chelsea").ok  # type: ignore[union-attr]
    gone = client.request_update(
        "Scores/#", queue="APP.SCORES", options=["CorrelAsId"], correl_id=CID_SCORES
    )
    assert gone is not None and gone.reason == RC.CF_NO_RETAINED_MSG


def test_results_service_sample_application(
    start_service: Callable[..., object], client: KafkaPubSub
) -> None:
    """Seed 001's sample: scores on request, events by push, one queue, two CorrelIds."""
    start_service()
    for team, score in (("Chelsea", b"4-1"), ("Arsenal", b"2-2")):
        assert client.publish(f"Sport/Soccer/State/LatestScore/{team}", score, retain=True).ok  # type: ignore[union-attr]
    assert client.register(
        "Sport/Soccer/State/LatestScore/#", queue="RESULTS",
        options=["PubOnReqOnly", "CorrelAsId"], correl_id=CID_SCORES,
    ).ok  # type: ignore[union-attr]  # fmt: skip
    assert client.register(
        "Sport/Soccer/Event/#", queue="RESULTS", options=["CorrelAsId"], correl_id=CID_EVENTS
    ).ok  # type: ignore[union-attr]
    assert client.request_update(
        "Sport/Soccer/State/LatestScore/#",
        queue="RESULTS",
        options=["CorrelAsId"],
        correl_id=CID_SCORES,
    ).ok  # type: ignore[union-attr]
    assert client.publish("Sport/Soccer/Event/Goal", b"Chelsea scores").ok  # type: ignore[union-attr]
    got = list(client.read_queue("RESULTS", count=3, timeout=20))
    scores = sorted((m.topic, m.body) for m in got if m.md.CorrelId == CID_SCORES)
    events = [(m.topic, m.body) for m in got if m.md.CorrelId == CID_EVENTS]
    assert scores == [
        ("Sport/Soccer/State/LatestScore/Arsenal", b"2-2"),
        ("Sport/Soccer/State/LatestScore/Chelsea", b"4-1"),
    ]
    assert events == [("Sport/Soccer/Event/Goal", b"Chelsea scores")]


def test_without_auto_create_an_unknown_subscriber_queue_fails_the_regsub(
    start_service: Callable[..., object],
    client: KafkaPubSub,
    new_topic: Callable[..., str],
    namespace: str,
    kafka_bootstrap: str,
) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    start_service("1", "--no-auto-create")
    missing = client.register("Any/#", queue="APP.NOT.DEFINED")
    assert missing is not None and missing.reason == RC.CF_Q_NAME_ERROR
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    topic = f"{namespace}APP.DEFINED"
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result()

    # defined once the broker's metadata has it (KRaft publishes a new topic a moment later)
    def known() -> bool:
        found = admin.list_topics(topic=topic, timeout=10).topics.get(topic)
        return found is not None and found.error is None

    assert wait_until(known, 30)
    defined = client.register("Any/#", queue="APP.DEFINED")
    assert defined is not None and defined.ok, defined


def test_a_publications_own_kafka_headers_go_on_to_its_subscribers(
    start_service: Callable[..., object], client: KafkaPubSub, kafka_bootstrap: str, namespace: str
) -> None:
    """Wire contract §2: headers that are not the MQMD are kept when a message is forwarded,
    so trace context put with a publication reaches the subscriber's copy."""
    start_service()
    assert client.register("Trace/#", queue="APP.TRACED").ok  # type: ignore[union-attr]
    own = [("traceparent", b"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")]
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    for n in range(2):  # the second is like the first: its answer is replayed, not recomputed
        md = MQMD(MsgType=MQMT.DATAGRAM, MsgId=uuid.uuid4().bytes + bytes(8))
        md, value = command_message(
            [("Command", "Publish"), ("Topic", "Trace/Order")], body=b"order %d" % n, md=md
        )
        producer.produce(
            queue_to_topic(DEFAULT_STREAM, namespace),
            value=value,
            key=b"one publisher",
            headers=[*mqmd_to_headers(md), *own],
        )
    producer.flush(30)
    copies = read_records(kafka_bootstrap, queue_to_topic("APP.TRACED", namespace), count=2)
    assert [parse_received(m.value(), m.headers()).body for m in copies] == [
        b"order 0",
        b"order 1",
    ]
    for copy in copies:
        assert [h for h in copy.headers() if not h[0].startswith("mqmd.")] == own
