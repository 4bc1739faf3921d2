"""How the transactional loop rides through Kafka's outages (issue 19 point 2), on fake
clients: the consumer is served before its committed offsets are read, what ends the loop and
what does not, the lines it says, the clients it replaces and lets go. The real thing, a
broker stopped and started under ``mqk serve``: tests/integration/service/test_kafka_restart.py.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from concurrent.futures import Future
from typing import Any

import pytest

from mqkafka.kafka import clients, lanewatch, txrecovery
from mqkafka.kafka.clients import KafkaError, KafkaException, RepeatFilter, TopicPartition
from mqkafka.kafka.lanes import TopicLanes
from mqkafka.kafka.txrecovery import OutageRecovery


class FakeMessage:
    def __init__(self, error: KafkaError | None = None) -> None:
        self._error = error

    def error(self) -> KafkaError | None:
        return self._error


class FakeConsumer:
    """Records what was asked of it, in order."""

    def __init__(self, committed: dict[tuple[str, int], int], fetched: list[Any]) -> None:
        self.calls: list[str] = []
        self.seeks: list[tuple[str, int, int]] = []
        self._committed = committed
        self._fetched = fetched

    def consume(self, count: int, timeout: float) -> list[Any]:
        self.calls.append("consume")
        fetched, self._fetched = self._fetched, []
        return fetched

    def assignment(self) -> list[TopicPartition]:
        self.calls.append("assignment")
        return [TopicPartition(t, p) for t, p in self._committed]

    def committed(self, partitions: list[TopicPartition], timeout: float) -> list[Any]:
        self.calls.append("committed")
        return [TopicPartition(tp.topic, tp.partition, self._committed[(tp.topic, tp.partition)])
                for tp in partitions]  # fmt: skip

    def seek(self, tp: TopicPartition) -> None:
        self.seeks.append((tp.topic, tp.partition, tp.offset))

    def list_topics(self, topic: str, timeout: float) -> None:
        return None


class Loop(OutageRecovery):
    """The recovery's state as the transactional loop sets it up, with fake clients."""

    def __init__(self, consumer: Any) -> None:
        self.topics = ["control"]
        self.transactional = True
        self.consumer = consumer
        self.producer = object()
        self._stop = threading.Event()
        self._abandoned = []
        self._stuck = []
        self._away_since = None
        self._asked_at = 0.0
        self._failures = self._away_tries = self._recovery_failures = 0
        self._renew = self._resync = False
        self._consumer_at = -1e9  # made long ago
        self._consumer_settings = {"session.timeout.ms": 10_000}
        self._producer_settings = {"transaction.timeout.ms": 10_000}
        self._closing = []
        self._back_at = -1e9
        self._producer_at = 0.0
        self._producer_fresh = False
        self._failing_since = None
        self._took_over = []

    def _assigned(self, consumer: Any, partitions: list[Any]) -> None:
        pass


@pytest.fixture(autouse=True)
def kafka_reachable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process-wide record of librdkafka's lines, fresh for each test."""
    fresh = RepeatFilter()
    monkeypatch.setattr(clients, "_repeat_filter", lambda: fresh)
    monkeypatch.setattr(txrecovery, "_waiting", weakref.WeakSet())


def test_reading_resumes_from_the_committed_offsets_after_serving_the_consumer() -> None:
    """The consumer is served first (a group that dropped it while Kafka was away takes it
    back only then; committed() waited for ever before), and what it fetched meanwhile is
    not kept: every assigned partition is sought to its committed offset."""
    consumer = FakeConsumer({("control", 0): 7, ("stream", 1): -1001}, [FakeMessage()])
    loop = Loop(consumer)
    loop._resync = True
    assert loop._recovered()
    assert consumer.calls == ["consume", "consume", "assignment", "committed"]
    assert consumer.seeks == [("control", 0, 7), ("stream", 1, clients.OFFSET_BEGINNING)]
    assert not loop._resync


def test_the_consumer_is_served_while_a_new_producer_cannot_be_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each try of the recovery serves the consumer, also when its producer step fails: a
    minute of failed InitProducerIds left the lanes unpolled, and one left the group
    (max.poll.interval.ms) with librdkafka's warning among the outage's lines."""
    consumer = FakeConsumer({("control", 0): 7}, [FakeMessage()])
    loop = Loop(consumer)
    loop._stop.set()  # no pause
    loop._renew = True

    def refused(self: Loop) -> None:
        raise KafkaException(KafkaError(KafkaError._TIMED_OUT, "coordinator loading"))

    monkeypatch.setattr(Loop, "_renew_producer", refused)
    for _ in range(3):
        assert not loop._recovered()
    assert consumer.calls == ["consume"] * 3 and consumer.seeks == []


def test_a_consumer_fenced_by_another_worker_while_recovering_ends_the_loop() -> None:
    fenced = KafkaError(KafkaError._FATAL, "fenced by a newer instance", fatal=True)
    loop = Loop(FakeConsumer({("control", 0): 1}, [FakeMessage(fenced)]))
    loop._resync = True
    with pytest.raises(KafkaException):
        loop._recovered()


def test_a_consumer_replaced_right_after_a_new_producer_does_not_renew_it_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The group fenced the consumer's own rejoin, met as the recovery's new producer has just
    been initialised: that producer began no transaction with the old member's id."""
    made = FakeConsumer({}, [])
    made.subscribe = lambda topics, on_assign: None  # type: ignore[attr-defined]
    monkeypatch.setattr(clients, "consumer", lambda config, settings: made)
    fenced = KafkaError(KafkaError._FATAL, "fenced", fatal=True)
    loop = Loop(FakeConsumer({("control", 0): 1}, [FakeMessage(fenced)]))
    loop._client = None  # type: ignore[assignment]
    loop._away_since = time.monotonic()  # the outage
    loop._producer_fresh, loop._resync = True, True
    assert loop._recovered()
    assert loop.consumer is made and not loop._renew
    loop._producer_fresh = False  # had it begun a transaction, it would go
    loop.consumer = FakeConsumer({}, [FakeMessage(fenced)])
    loop._consumer_at -= 60.0  # a self-fencing comes a session after the consumer's making
    loop._resync = True
    renewed: list[bool] = []
    monkeypatch.setattr(Loop, "_renew_producer", lambda self: renewed.append(self._renew))
    loop._recovered()
    assert renewed == [True]


class ClosingConsumer(FakeConsumer):
    """A consumer whose close waits until ``release`` is set."""

    def __init__(self, fetched: list[Any], release: threading.Event | None = None) -> None:
        super().__init__({}, fetched)
        self.closed = threading.Event()
        self._release = release

    def subscribe(self, topics: list[str], on_assign: Any) -> None:
        pass

    def close(self) -> None:
        if self._release is not None:
            self._release.wait()
        self.closed.set()


FENCED = KafkaError(KafkaError._FATAL, "Static consumer fenced", fatal=True)


def _fenced_loop(monkeypatch: pytest.MonkeyPatch) -> Loop:
    """A loop in an outage whose every new consumer is made a session ago (self-fencings)."""
    loop = Loop(ClosingConsumer([]))
    loop._client = None  # type: ignore[assignment]
    loop._away_since = time.monotonic()

    monkeypatch.setattr(clients, "consumer", lambda config, settings: ClosingConsumer([]))
    monkeypatch.setattr(Loop, "_new_consumer", _made_a_session_ago)
    return loop


def _made_a_session_ago(self: Loop) -> None:
    OutageRecovery._new_consumer(self)
    self._consumer_at -= 60.0


def test_a_consumer_fenced_by_its_own_rejoins_is_replaced_each_time_in_an_outage(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A flapping broker, or an outage long enough for the group to drop the member twice,
    fences it again after each rejoin: each time a new consumer takes over (the service
    ended with exit 3 at the second), and the fenced ones are closed."""
    loop = _fenced_loop(monkeypatch)
    fenced = []
    for _ in range(lanewatch.MAX_CLOSING + 2):
        fenced.append(loop.consumer)
        loop._consumer_fenced(FENCED)
        assert loop.consumer is not fenced[-1] and loop._resync
    for closed in loop._closing:
        closed.result(30)  # a wait for the close threads, not a time measured
    assert all(consumer.closed.is_set() for consumer in fenced)
    assert loop._took_over == ["a new consumer (the group fenced the old one after its own rejoin)"]


def test_a_consumer_fenced_within_a_session_of_its_making_ends_the_loop() -> None:
    """Its own rejoin cannot fence a consumer before its session ran out: another worker with
    the instance id did, outage or not."""
    loop = Loop(ClosingConsumer([]))
    loop._away_since = time.monotonic()
    loop._consumer_at = time.monotonic()
    with pytest.raises(KafkaException) as raised:
        loop._consumer_fenced(FENCED)
    assert raised.value.args[0] is FENCED


PRODUCER_FENCED = KafkaError(KafkaError._FENCED, "Producer fenced by newer instance", fatal=True)


def test_only_the_fenced_lane_is_replaced_and_the_others_keep_their_clients() -> None:
    """Lanes (a consumer per topic): the one the group fenced is replaced and closed, the
    others stay as they are, members holding their partitions. All of them were replaced,
    the unfenced ones left to close unwaited: each could rejoin under its successor's
    instance id and fence it, which within a session of its making ends the loop."""
    made: list[ClosingConsumer] = []

    def lane(settings: dict[str, Any]) -> ClosingConsumer:
        made.append(ClosingConsumer([]))
        return made[-1]

    lanes = TopicLanes(lane, {"group.instance.id": "w"}, ["control", "stream"])
    lanes.subscribe(["control", "stream"])
    control, stream = made
    loop = Loop(lanes)
    loop._away_since = time.monotonic()
    lanes.made_at = dict.fromkeys(lanes.topics, time.monotonic() - 60.0)
    stream._fetched = [FakeMessage(FENCED)]
    assert lanes.consume(10, 0)[0].error() is FENCED
    loop._consumer_fenced(FENCED)
    assert loop.consumer is lanes and lanes.lane_of("control") is control
    assert lanes.lane_of("stream") is made[2] and loop._resync and loop._renew
    loop._closing[0].result(30)  # a wait for the close thread, not a time measured
    assert stream.closed.is_set() and not control.closed.is_set()
    made[2]._fetched = [FakeMessage(FENCED)]  # the new lane fenced within its session
    lanes.consume(10, 0)
    with pytest.raises(KafkaException):
        loop._consumer_fenced(FENCED)


class MemberConsumer(ClosingConsumer):
    def __init__(self) -> None:
        super().__init__([])
        self.member: str | None = "member"
        self.deaf = False  # no broker to ask: no metadata

    def memberid(self) -> str | None:
        return self.member

    def list_topics(self, topic: str, timeout: float) -> None:
        if self.deaf:
            raise KafkaException(KafkaError(KafkaError._TRANSPORT, "no broker available"))


class Deaf:
    """A client left with no broker to ask: no metadata, whatever Kafka does."""

    def list_topics(self, topic: str, timeout: float) -> None:
        raise KafkaException(KafkaError(KafkaError._TRANSPORT, "no broker available"))


def test_a_lane_out_of_the_group_with_kafka_answering_is_replaced_in_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A lane whose client holds no member id for a rebalance timeout and a session while
    Kafka answers is no member and not joining (the control queue's lane, its client left
    with no broker after a restart: no command answered for minutes): a new client takes its
    place, said in one line. While Kafka does not answer, the watch starts again."""
    made: list[MemberConsumer] = []

    def lane(settings: dict[str, Any]) -> MemberConsumer:
        made.append(MemberConsumer())
        return made[-1]

    lanes = TopicLanes(lane, {"group.instance.id": "w"}, ["control", "stream"])
    loop = Loop(lanes)
    loop._consumer_settings |= {"max.poll.interval.ms": 60_000}
    control, stream = made

    def watch(after: float) -> None:  # the watch's next look, ``after`` seconds on
        for topic in lanes._unjoined_since:
            lanes._unjoined_since[topic] -= after
        loop._lanes_watched -= lanewatch.LANE_WATCH_EVERY
        loop._watch_lanes()

    control.member = None
    stream.deaf = control.deaf = True
    loop.producer = Deaf()  # Kafka away
    watch(0.0)  # seen without a member id from now
    watch(100.0)
    assert lanes.lane_of("control") is control and lanes._unjoined_since == {}
    stream.deaf = False  # Kafka back
    watch(0.0)
    watch(69.0)
    assert lanes.lane_of("control") is control  # 69 s: a rebalance could still answer it
    with caplog.at_level(logging.WARNING):
        watch(1.0)
    assert lanes.lane_of("control") is made[2] and lanes.lane_of("stream") is stream
    loop._closing[0].result(30)  # a wait for the close thread, not a time measured
    assert control.closed.is_set() and loop._resync and loop._renew
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert said == ["the consumer of control has been no member of the group for 70s with "
                    "Kafka answering: a new one takes its place"]  # fmt: skip


def test_kafka_answering_the_producer_answers_though_the_consumer_cannot_reach_it() -> None:
    """Every lane of the service was left with no broker after a restart (the group empty):
    asked through them alone, Kafka stayed away for good and no lane was replaced; the lane
    watch asks the producer too. The loop's word on an outage stays the consumer's."""
    loop = Loop(FakeConsumer({}, []))
    loop.consumer = Deaf()
    loop.producer = FakeConsumer({}, [])  # answers metadata
    assert loop._kafka_answers(producer=True) and not loop._kafka_answers()
    loop.producer = Deaf()
    assert not loop._kafka_answers(producer=True)


def test_a_producer_fenced_by_the_outage_is_renewed_each_time() -> None:
    """The coordinator aborts a transaction an outage held open past its timeout and fences
    its producer; a broker that flaps does it again to the new one: renewed each time (it
    was renewed once per outage, and the loop ended at the second)."""
    loop = Loop(ClosingConsumer([]))
    loop._away_since = time.monotonic()
    for _ in range(3):
        loop._producer_at = time.monotonic() - 11.0  # its transaction was open past 10 s
        loop._renew = False
        assert loop._fenced_by_the_outage(PRODUCER_FENCED) and loop._renew


@pytest.mark.parametrize("away", [True, False], ids=["in an outage", "outside an outage"])
def test_a_producer_fenced_otherwise_ends_the_loop(away: bool) -> None:
    """Younger than a transaction timeout, no outage could have fenced it (another worker
    took the transactional id); outside an outage neither."""
    loop = Loop(ClosingConsumer([]))
    loop._away_since = time.monotonic() if away else None
    loop._producer_at = time.monotonic() - (1.0 if away else 60.0)
    assert not loop._fenced_by_the_outage(PRODUCER_FENCED) and not loop._renew


def test_a_consumer_fenced_outside_an_outage_ends_the_loop() -> None:
    loop = Loop(ClosingConsumer([]))
    with pytest.raises(KafkaException):
        loop._consumer_fenced(FENCED)


def test_a_fenced_consumer_is_closed_without_waiting_for_its_close(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its close runs on a thread of its own; the loop goes on at once. Closes that do not
    return are bounded: with MAX_CLOSING of them pending, a further fence ends the loop."""
    loop = _fenced_loop(monkeypatch)
    release = threading.Event()
    try:
        for _ in range(lanewatch.MAX_CLOSING):
            stuck = ClosingConsumer([], release)
            loop.consumer = stuck
            loop._consumer_fenced(FENCED)  # returns while its close waits
            assert not stuck.closed.is_set()
        loop.consumer = ClosingConsumer([], release)
        with pytest.raises(KafkaException, match="have not closed"):
            loop._consumer_fenced(FENCED)
    finally:
        release.set()
    for closed in loop._closing:
        closed.result(30)
    loop._consumer_fenced(FENCED)  # the closes returned: a fence is cured again
    assert len(loop._closing) == 1


def test_a_failure_while_kafka_cannot_be_reached_is_the_outage_not_a_retry_counted() -> None:
    """A commit whose records timed out while the broker was down fails as _INCONSISTENT:
    with the process's clients unable to reach Kafka, that is the outage (waited out, however
    long), not one of the MAX_RETRIES failures that end the loop."""
    loop = Loop(FakeConsumer({}, []))
    clients._repeat_filter().unreachable_since = time.monotonic()
    loop._stop.set()  # no pause
    failed = KafkaException(KafkaError(KafkaError._INCONSISTENT, "2 message(s) failed delivery"))
    for _ in range(txrecovery.MAX_RETRIES + 2):
        assert loop._retry_after(failed)
    assert loop._failures == 0 and loop._renew


def test_kafka_going_is_said_once_per_30_s_with_librdkafka_lines(
    caplog: pytest.LogCaptureFixture,
) -> None:
    limiter = clients._repeat_filter()
    line = logging.LogRecord("k", logging.ERROR, __file__, 1, "Connect to x failed", None, None)
    assert limiter.filter(line)  # librdkafka said it: the loop's line is a debug line
    logger = logging.getLogger("mqkafka.test")
    with caplog.at_level(logging.DEBUG, logger="mqkafka.test"):
        clients.say_away(logger, "Kafka is away")
        limiter.interval = 0
        clients.say_away(logger, "Kafka is away")
    assert [r.levelno for r in caplog.records] == [logging.DEBUG, logging.WARNING]


def test_clients_replaced_in_an_outage_are_said_in_the_line_that_says_it_ended(
    caplog: pytest.LogCaptureFixture,
) -> None:
    loop = Loop(FakeConsumer({}, []))
    loop._away_since = time.monotonic() - 60
    loop._producer_at = time.monotonic()  # initialised after the return, by the recovery
    with caplog.at_level(logging.DEBUG, logger="mqkafka.kafka.txrecovery"):
        loop._replaced("a new transactional producer")
        loop._replaced("a new transactional producer")
        loop._replaced("a new consumer")
        loop._heard_from_kafka()
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]
    assert said == [
        "Kafka is back after 60s: serving again "
        "(a new transactional producer and a new consumer took over)"
    ]
    assert not loop._renew  # a producer made since the return is not made again


def test_clients_replaced_in_a_moment_of_refused_connections_are_not_said_later() -> None:
    """Just after Kafka's return a new client may meet a refused connection (the broker still
    starting): what is replaced then is not carried into the next outage's line."""
    loop = Loop(FakeConsumer({}, []))
    clients._repeat_filter().unreachable_since = time.monotonic()
    loop._replaced("a new transactional producer")
    loop._heard_from_kafka()
    assert loop._took_over == []


def test_a_producer_from_before_the_outage_is_renewed_when_kafka_is_back() -> None:
    loop = Loop(FakeConsumer({}, []))
    loop._away_since = time.monotonic() - 60
    loop._heard_from_kafka()
    assert loop._renew


@pytest.mark.parametrize(("away_for", "news"), [(3.0, False), (21.0, True)])
def test_a_second_outage_soon_after_the_first_is_said_and_renews_the_producer(
    caplog: pytest.LogCaptureFixture, away_for: float, news: bool
) -> None:
    """Kafka stopped again a few seconds after its return, with the loop idle (no transaction
    met the outage; librdkafka's lines saw it): a new outage, said when it ends, and the
    producer from before it renewed (kept, its next offsets waited 15 s for the coordinator
    from before). A refused connection for a moment just after a return is not news."""
    loop = Loop(FakeConsumer({}, []))
    loop._away_since = time.monotonic() - 60
    loop._heard_from_kafka()  # the first outage's return
    loop._renew = False  # the recovery made a new producer
    loop._producer_at = time.monotonic() - away_for - 1.0
    clients._repeat_filter().unreachable_since = time.monotonic() - away_for
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="mqkafka.kafka.txrecovery"):
        loop._heard_from_kafka()
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert said == ([f"Kafka is back after {away_for:.0f}s: serving again"] if news else [])
    assert loop._renew is news


@pytest.mark.parametrize("start_said", [False, True])
def test_a_moment_of_failure_just_after_a_return_is_said_only_if_its_start_was(
    caplog: pytest.LogCaptureFixture, start_said: bool
) -> None:
    """A transaction failing 4 s after Kafka's return (a coordinator still loading) is the
    same outage: its end is not a second "Kafka is back" (the restart test's few lines had
    two), unless its start was said as a warning (librdkafka said nothing in 30 s)."""
    loop = Loop(FakeConsumer({}, []))
    loop._away_since = time.monotonic() - 60
    loop._heard_from_kafka()  # the outage's return, said
    loop._stop.set()  # no pause
    limiter = clients._repeat_filter()
    if not start_said:
        line = logging.LogRecord("k", logging.ERROR, __file__, 1, "Connect to x failed", None, None)
        limiter.filter(line)  # librdkafka said it within 30 s: the loop's line is a debug one
    limiter.unreachable_since = None
    timed_out = KafkaException(KafkaError(KafkaError._TIMED_OUT, "coordinator loading"))
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="mqkafka.kafka.txrecovery"):
        assert loop._retry_after(timed_out)
        loop._away_since = time.monotonic() - 4
        loop._heard_from_kafka()
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    back = [m for m in said if m.startswith("Kafka is back")]
    assert len(back) == (1 if start_said else 0), said
    assert len(said) == (2 if start_said else 0), said


def test_abandoned_producers_are_let_go_once_their_stuck_call_returns() -> None:
    loop = Loop(FakeConsumer({}, []))
    returned: Future[Any] = Future()
    stuck: Future[Any] = Future()
    first, second = object(), object()
    loop._abandoned = [first, second]
    loop._stuck = [(first, returned), (second, stuck)]
    returned.set_result(None)
    loop._heard_from_kafka()
    assert loop._abandoned == [second] and [c for c, _ in loop._stuck] == [second]


class Record:
    def __init__(self, offset: int) -> None:
        self._offset = offset

    def error(self) -> None:
        return None

    def topic(self) -> str:
        return "control"

    def partition(self) -> int:
        return 0

    def offset(self) -> int:
        return self._offset

    def __len__(self) -> int:
        return 1


class AwayProducer:
    """A transactional producer whose commit finds Kafka gone."""

    def begin_transaction(self) -> None:
        pass

    def produce(self, *args: Any, **kw: Any) -> None:
        pass

    def poll(self, timeout: float) -> int:
        return 0

    def send_offsets_to_transaction(self, *args: Any) -> None:
        raise KafkaException(KafkaError(KafkaError._TRANSPORT, "Connection refused"))

    def abort_transaction(self, timeout: float) -> None:
        pass


class ListeningHandler:
    """Notes, when it hears of an abort, whether the process knows Kafka is away."""

    def __init__(self) -> None:
        self.heard: list[bool] = []

    def handle(self, batch: Any) -> list[Any]:
        return []

    def before_batch(self) -> None:
        pass

    def committed(self) -> None:
        pass

    def aborted(self) -> None:
        self.heard.append(txrecovery.kafka_away())


def _loop_over(
    monkeypatch: pytest.MonkeyPatch, producer: Any
) -> tuple[Any, FakeConsumer, ListeningHandler]:
    """A transactional loop on the control topic whose clients are ``producer`` and a fake
    consumer, stopped (no pause before a retry)."""
    from mqkafka.kafka.txloop import TransactionalLoop

    consumer = FakeConsumer({}, [])
    consumer.consumer_group_metadata = lambda: None  # type: ignore[attr-defined]
    monkeypatch.setattr(clients, "consumer", lambda config, settings: consumer)
    monkeypatch.setattr(clients, "producer", lambda config, settings: producer)
    handler = ListeningHandler()
    loop = TransactionalLoop(
        client=None,  # type: ignore[arg-type]
        group_id="g",
        topics=["control"],
        handler=handler,
        transactional_id="tx",
    )
    loop.stop()
    return loop, consumer, handler


def test_the_handler_hears_of_an_abort_after_the_loop_knows_kafka_is_away(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """So the dispatcher says the abort as part of the outage (a debug line), not as a second
    warning beside the loop's "Kafka is away"."""
    loop, consumer, handler = _loop_over(monkeypatch, AwayProducer())
    assert not txrecovery.kafka_away()
    loop._process([Record(5)], handler)
    assert handler.heard == [True] and consumer.seeks == [("control", 0, 5)]
    loop._heard_from_kafka()
    assert not txrecovery.kafka_away()


class RebalancedProducer(AwayProducer):
    """A transactional producer whose offsets carry a generation the group has left."""

    def send_offsets_to_transaction(self, *args: Any) -> None:
        raise KafkaException(KafkaError(KafkaError.ILLEGAL_GENERATION, "generation not valid"))


def test_a_rebalance_under_a_transaction_is_tried_again_quietly(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Kafka answered: the group moved on under the batch (each lane rejoins on its own after
    an outage; a worker joined). No "Kafka is away", no second "Kafka is back" at the next
    commit, the abort no news, the producer kept, and no retry counted against MAX_RETRIES."""
    loop, _, handler = _loop_over(monkeypatch, RebalancedProducer())
    with caplog.at_level(logging.DEBUG):
        for _ in range(txrecovery.MAX_RETRIES + 2):
            loop._process([Record(5)], handler)
        loop._heard_from_kafka()
    assert handler.heard == [True] * (txrecovery.MAX_RETRIES + 2)
    assert loop._failures == 0 and not loop._renew and loop._resync
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO] == []
    assert not txrecovery.kafka_away()
