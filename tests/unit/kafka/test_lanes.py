"""kafka.lanes without Kafka: a consumer per topic, seen by the loop as one (issue 34)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from mqkafka.kafka.clients import KafkaError, KafkaException, TopicPartition
from mqkafka.kafka.lanes import TopicLanes, lane_instance_id


class Record(str):
    """A record as a lane hands it out: here its name, and no error."""

    def error(self) -> KafkaError | None:
        return None


class Fatal(Record):
    def error(self) -> KafkaError | None:
        return KafkaError(KafkaError._FATAL, "fenced by a newer instance", fatal=True)


class FakeLane:
    """One topic's consumer: what it was made with, subscribed to, asked and given."""

    def __init__(self, settings: dict[str, Any]) -> None:
        self.settings = settings
        self.subscribed: list[str] = []
        self.waiting: list[str] = []  # records fetched, not yet consumed
        self.waits: list[float] = []
        self.seeks: list[tuple[str, int, int]] = []
        self.closed = False
        self.fatal = False  # committed() raises the fatal error of a fenced client
        self.member: str | None = "member"  # its member id; None: no member of the group
        self.answers = True  # whether it reaches Kafka (list_topics, committed)
        self.asked: list[str] = []

    def subscribe(self, topics: list[str], on_assign: Any = None) -> None:
        self.subscribed = topics
        self.on_assign = on_assign

    def consume(self, count: int, timeout: float) -> list[Record]:
        self.waits.append(timeout)
        taken, self.waiting = self.waiting[:count], self.waiting[count:]
        return [name if isinstance(name, Record) else Record(name) for name in taken]

    def committed(self, partitions: list[TopicPartition], timeout: float) -> list[TopicPartition]:
        self.asked.append("committed")
        if self.fatal:
            raise KafkaException(KafkaError(KafkaError._FATAL, "fenced", fatal=True))
        if not self.answers:
            raise KafkaException(KafkaError(KafkaError._TIMED_OUT, "no broker"))
        return partitions

    def list_topics(self, topic: str, timeout: float) -> str:
        self.asked.append("list_topics")
        if not self.answers:
            raise KafkaException(KafkaError(KafkaError._TRANSPORT, "no broker"))
        return f"metadata from {self.subscribed[0]}"

    def memberid(self) -> str | None:
        return self.member

    def seek(self, tp: TopicPartition) -> None:
        self.seeks.append((tp.topic, tp.partition, tp.offset))

    def consumer_group_metadata(self) -> str:
        return f"metadata of {self.subscribed[0]}"

    def close(self) -> None:
        self.closed = True


def lanes(*topics: str, instance: str | None = "ns.mqk-serve-a") -> TopicLanes:
    settings = {
        "group.id": "ns.mqk-broker",
        **({"group.instance.id": instance} if instance else {}),
    }
    made = TopicLanes(FakeLane, settings, topics)
    made.subscribe(list(topics))
    return made


@pytest.mark.parametrize(
    ("topic", "first", "expected"),
    [
        ("ns.SYSTEM.BROKER.CONTROL.QUEUE", True, "ns.mqk-serve-a"),
        (
            "ns.SYSTEM.BROKER.DEFAULT.STREAM",
            False,
            "ns.mqk-serve-a.ns.SYSTEM.BROKER.DEFAULT.STREAM",
        ),
        ("T" * 300, False, ("ns.mqk-serve-a." + "T" * 300)[:249]),
    ],
)
def test_each_lane_is_a_static_member_of_its_own(topic: str, first: bool, expected: str) -> None:
    assert lane_instance_id("ns.mqk-serve-a", topic, first) == expected


def test_a_lane_per_topic_each_subscribed_to_its_own_in_the_one_group() -> None:
    made = lanes("CONTROL", "STREAM")
    control, stream = (made.lane_of(t) for t in ("CONTROL", "STREAM"))
    assert (control.subscribed, stream.subscribed) == (["CONTROL"], ["STREAM"])
    assert control.settings["group.id"] == stream.settings["group.id"] == "ns.mqk-broker"
    assert control.settings["group.instance.id"] == "ns.mqk-serve-a"
    assert stream.settings["group.instance.id"] == "ns.mqk-serve-a.STREAM"
    assert "group.instance.id" not in lanes("A", "B", instance=None).lane_of("B").settings


def test_what_has_arrived_in_every_lane_comes_at_once_and_the_first_asked_takes_turns() -> None:
    made = lanes("CONTROL", "STREAM")
    made.lane_of("CONTROL").waiting = ["c1"]
    made.lane_of("STREAM").waiting = ["s1", "s2", "s3"]
    assert made.consume(3, 0) == ["c1", "s1", "s2"]  # up to the count asked
    made.lane_of("CONTROL").waiting = ["c2"]
    assert made.consume(10, 0) == ["s3", "c2"]  # the stream's lane asked first this time


def test_with_nothing_arrived_a_wait_is_shared_between_the_lanes() -> None:
    made = lanes("CONTROL", "STREAM")
    assert made.consume(5, 0.01) == []
    assert made.lane_of("CONTROL").waits == [0, 0.005]
    assert made.lane_of("STREAM").waits == [0, 0.005]
    assert made.consume(5, 0) == []  # no wait asked: none made
    assert made.lane_of("STREAM").waits == [0, 0.005, 0]


def test_seeks_go_to_the_topics_lane_and_offsets_go_with_their_lanes_metadata() -> None:
    made = lanes("CONTROL", "STREAM")
    made.seek(TopicPartition("STREAM", 2, 40))
    assert made.lane_of("STREAM").seeks == [("STREAM", 2, 40)]
    assert made.lane_of("CONTROL").seeks == []
    offsets = [TopicPartition("STREAM", 0, 5), TopicPartition("CONTROL", 0, 9)]
    offsets.append(TopicPartition("STREAM", 3, 7))
    sent = {
        m: [(tp.topic, tp.partition) for tp in part]
        for m, part in made.metadata_and_offsets(offsets)
    }
    assert sent == {
        "metadata of STREAM": [("STREAM", 0), ("STREAM", 3)],
        "metadata of CONTROL": [("CONTROL", 0)],
    }


def test_a_lane_whose_client_meets_a_fatal_error_is_named_fenced_and_replaced_alone() -> None:
    """A fenced lane is replaced by a client with its own settings (its instance id),
    subscribed as it was; the other lanes keep their clients, still members holding their
    partitions (replaced too, unclosed, an old one could rejoin and fence its successor)."""
    made = lanes("CONTROL", "STREAM")
    control, stream = made.lane_of("CONTROL"), made.lane_of("STREAM")
    control.waiting = [Fatal("fenced")]
    stream.waiting = ["s1"]
    assert made.consume(10, 0) == ["fenced", "s1"]  # the loop sees the error itself
    assert made.fenced() == ["CONTROL"]
    made_before = made.made_at["CONTROL"]
    old = made.replace("CONTROL")
    new = made.lane_of("CONTROL")
    assert old is control and new is not control and made.lane_of("STREAM") is stream
    assert new.settings == control.settings and new.subscribed == ["CONTROL"]
    assert new.on_assign is control.on_assign
    assert made.lanes == [new, stream] and made.fenced() == []
    assert made.made_at["CONTROL"] >= made_before


def test_offsets_are_read_through_a_lane_not_known_fenced_and_one_found_so_is_named() -> None:
    made = lanes("CONTROL", "STREAM")
    made.lane_of("CONTROL").fatal = True
    asked = [TopicPartition("STREAM", 0)]
    with pytest.raises(KafkaException):
        made.committed(asked)
    assert made.fenced() == ["CONTROL"]
    assert made.committed(asked) == asked  # the stream's lane answers meanwhile


def test_kafka_is_asked_through_the_lanes_that_are_members() -> None:
    """A lane whose client lost its brokers (no member id) answers nothing, after its whole
    timeout: metadata and the group's committed offsets come from the member lanes, one after
    the other; from the others only when no lane is a member."""
    made = lanes("CONTROL", "STREAM", "ADMIN")
    control, stream, admin = (made.lane_of(t) for t in ("CONTROL", "STREAM", "ADMIN"))
    control.member, control.answers = None, False
    asked = [TopicPartition("CONTROL", 0)]
    assert made.list_topics("CONTROL", timeout=5) == "metadata from STREAM"
    assert made.committed(asked, timeout=5) == asked
    stream.answers = False
    assert made.list_topics("CONTROL", timeout=5) == "metadata from ADMIN"
    assert control.asked == []
    admin.answers = False
    with pytest.raises(KafkaException):
        made.committed(asked, timeout=5)
    assert control.asked == []
    stream.member = admin.member = None  # no member at all: every lane is asked
    control.answers = True
    assert made.list_topics("CONTROL", timeout=5) == "metadata from CONTROL"


def test_a_lane_that_holds_no_member_id_through_the_watch_is_named_unjoined() -> None:
    made = lanes("CONTROL", "STREAM")
    control = made.lane_of("CONTROL")
    control.member = None
    assert made.unjoined(70.0, now=1000.0) == []  # first seen so
    assert made.unjoined(70.0, now=1060.0) == []
    assert made.unjoined(70.0, now=1070.0) == ["CONTROL"]
    made.watch_again()  # Kafka away: counted from its return
    assert made.unjoined(70.0, now=1080.0) == []
    control.member = "rejoined"  # a member again: the watch starts over when it is not
    assert made.unjoined(70.0, now=1200.0) == []
    control.member = None
    assert made.unjoined(70.0, now=1210.0) == []
    assert made.unjoined(70.0, now=1280.0) == ["CONTROL"]
    made.replace("CONTROL")  # a new client: watched afresh
    made.lane_of("CONTROL").member = None
    assert made.unjoined(70.0, now=1290.0) == []


def test_close_closes_every_lane() -> None:
    made = lanes("CONTROL", "STREAM")
    made.close()
    assert made.lane_of("CONTROL").closed and made.lane_of("STREAM").closed


def test_a_lane_whose_close_waits_keeps_no_other_lane_open() -> None:
    """Closed one after the other, lanes behind one whose close waits for its coordinator
    stayed members of the group, unpolled (a rebalance waits for each member to rejoin)."""
    made = lanes("CONTROL", "STREAM", "ADMIN")
    release = threading.Event()
    first = made.lane_of("CONTROL")
    plain_close = first.close

    def waits() -> None:
        release.wait(10)
        plain_close()

    first.close = waits
    closing = threading.Thread(target=made.close)
    closing.start()
    try:
        others = [made.lane_of("STREAM"), made.lane_of("ADMIN")]
        deadline = time.monotonic() + 10
        while not all(lane.closed for lane in others) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert all(lane.closed for lane in others) and not first.closed
    finally:
        release.set()
        closing.join(10)
    assert first.closed


def test_the_loop_rejoins_within_its_rebalance_timeout_and_consumes_often_enough() -> None:
    """A rebalance waits at most REBALANCE_TIMEOUT_MS for a member (300 s by default kept a
    command unanswered that long after Kafka's return), and the loop's longest stretch
    without a consume (two bounded transactional calls, or a recovery step) stays well
    within it, or the group would take its partitions away."""
    from mqkafka.kafka.txloop import REBALANCE_TIMEOUT_MS, SESSION_TIMEOUT_MS
    from mqkafka.kafka.txrecovery import ANSWER_WAIT, TX_GIVE_UP, TX_TIMEOUT

    longest = max(2 * TX_GIVE_UP, TX_TIMEOUT + 1.0 + ANSWER_WAIT)
    assert 2 * longest <= REBALANCE_TIMEOUT_MS / 1000
    assert REBALANCE_TIMEOUT_MS < 300_000 and REBALANCE_TIMEOUT_MS > SESSION_TIMEOUT_MS
