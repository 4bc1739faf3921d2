"""MQPUT's MAXDEPTH gate (putlimits.admit), Kafka's refusals as MQ reasons and a record's
measure against its topic's limit (recordroom), without Kafka."""

from __future__ import annotations

import pytest

from mqkafka.kafka.clients import MAX_RECORD_BYTES, KafkaError, KafkaException
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm import recordroom
from mqkafka.mqi.kafkaqm.putlimits import (
    QMGR_MAX_MSG_LENGTH,
    DepthGate,
    admit,
    check_qmgr_length,
    refresh,
    too_big,
    unlimited,
)
from mqkafka.mqi.rules.errors import MQMIError


@pytest.mark.parametrize(
    ("depth", "exact", "max_depth", "puts", "admitted", "counted"),
    [
        # far from full: no count asked
        (0, 0, 10, 3, [True] * 3, 0),
        # this connection's own puts fill it: the exact count confirms, then refuses alone
        (8, 10, 10, 4, [True, True, False, False], 1),
        # the lag counts markers (syncpoint puts): the exact count lets the put in
        (12, 3, 10, 2, [True, True], 1),
        # full: refused, counted once
        (10, 10, 10, 3, [False] * 3, 1),
        # MAXDEPTH 0 takes nothing
        (0, 0, 0, 1, [False], 1),
    ],
)
def test_admit(
    depth: int, exact: int, max_depth: int, puts: int, admitted: list[bool], counted: int
) -> None:
    asked: list[int] = []

    def count() -> int:
        asked.append(exact)
        return exact

    gate = DepthGate()
    refresh(gate, 0.0, depth)
    assert [admit(gate, max_depth, count) for _ in range(puts)] == admitted
    assert len(asked) == counted


def test_refresh_adds_the_puts_made_while_the_lag_was_asked() -> None:
    gate = DepthGate()
    refresh(gate, 0.0, 0)
    for _ in range(3):
        assert admit(gate, 10, lambda: 0)
    gate.puts_at_ask = gate.puts  # an ask starts; two more puts before it answers
    assert admit(gate, 10, lambda: 0) and admit(gate, 10, lambda: 0)
    refresh(gate, 1.0, 7)  # the lag at the ask: 3 puts of ours and 4 of others
    assert gate.depth == 9 and not gate.exact
    assert admit(gate, 10, lambda: 9)
    assert not admit(gate, 10, lambda: 10)


@pytest.mark.parametrize(
    ("name", "limited"),
    [
        ("APP.ORDERS", True),
        ("SYSTEM.DEAD.LETTER.QUEUE", True),
        ("SYSTEM.BROKER.CONTROL.QUEUE", False),
        ("SYSTEM.BROKER.DEFAULT.STREAM", False),
    ],
)
def test_service_inputs_are_not_limited(name: str, limited: bool) -> None:
    assert (unlimited(name) is None) == limited


@pytest.mark.parametrize(
    ("error", "queued", "reason"),
    [
        (KafkaError(KafkaError.MSG_SIZE_TOO_LARGE), True, RC.MSG_TOO_BIG_FOR_Q_MGR),
        (KafkaError(KafkaError.MSG_SIZE_TOO_LARGE), False, RC.MSG_TOO_BIG_FOR_Q),
        (
            KafkaException(KafkaError(KafkaError.MSG_SIZE_TOO_LARGE)),
            True,
            RC.MSG_TOO_BIG_FOR_Q_MGR,
        ),
        (KafkaException(KafkaError(KafkaError._TRANSPORT)), True, RC.CONNECTION_BROKEN),
        (KafkaError(KafkaError.NOT_LEADER_FOR_PARTITION), False, RC.CONNECTION_BROKEN),
    ],
)
def test_kafka_refusals(error: KafkaError | KafkaException, queued: bool, reason: int) -> None:
    assert too_big(error, 2_000_000, queued=queued).reason == reason


def test_queue_managers_max_message_length() -> None:
    check_qmgr_length(QMGR_MAX_MSG_LENGTH)
    with pytest.raises(MQMIError) as refused:
        check_qmgr_length(QMGR_MAX_MSG_LENGTH + 1)
    assert refused.value.reason == RC.MSG_TOO_BIG_FOR_Q_MGR


ROOM_TOPIC = "t.room"
MQMD = [("mqmd.MsgId", bytes(24)), ("mqmd.Format", b"MQSTR   "), ("mqmd.Persistence", b"0")]
MQMD_SIZE = sum(len(n) + len(v) + recordroom.HEADER_OVERHEAD for n, v in MQMD)


@pytest.mark.parametrize(
    ("max_message_bytes", "value", "headers", "fits"),
    [
        (None, 10_000_000, MQMD, True),  # not known: the broker decides
        (1_048_588, 1_000_000, MQMD, True),
        (2000, 5000, MQMD, False),
        # the value alone fits, not with its key, headers and batch: the exact measure
        (2000, 1900, MQMD, False),
        (2000, 2000 - 61 - 36 - 32 - MQMD_SIZE, MQMD, True),
        (2000, 2000 - 61 - 36 - 32 - MQMD_SIZE + 1, MQMD, False),
        # larger than the producer takes too: produce() refuses it, 2031 (not measured here)
        (2000, MAX_RECORD_BYTES + 1, MQMD, True),
        # many headers (message properties) are measured even far under the limit
        (500_000, 1000, [(f"p{i}", bytes(20_000)) for i in range(30)], False),
    ],
)
def test_a_record_larger_than_the_topic_takes_is_2030(
    max_message_bytes: int | None, value: int, headers: list[tuple[str, bytes]], fits: bool
) -> None:
    room = None if max_message_bytes is None else max_message_bytes - recordroom.BATCH_OVERHEAD
    recordroom._rooms[ROOM_TOPIC] = (room, 0.0)
    try:
        if fits:
            measured = recordroom.check_fits(ROOM_TOPIC, bytes(value), b"k" * 32, headers)
            assert measured == (room is not None)
        else:
            with pytest.raises(MQMIError) as refused:
                recordroom.check_fits(ROOM_TOPIC, bytes(value), b"k" * 32, headers)
            assert refused.value.reason == RC.MSG_TOO_BIG_FOR_Q
    finally:
        del recordroom._rooms[ROOM_TOPIC]


def test_a_topic_is_asked_again_after_refresh() -> None:
    assert recordroom.needs_asking(ROOM_TOPIC, 0.0)
    recordroom._rooms[ROOM_TOPIC] = (1000, 10.0)
    try:
        assert not recordroom.needs_asking(ROOM_TOPIC, 10.0 + recordroom.REFRESH - 1)
        assert recordroom.needs_asking(ROOM_TOPIC, 10.0 + recordroom.REFRESH)
    finally:
        del recordroom._rooms[ROOM_TOPIC]


class Report:
    """What a delivery report's message answers (it carries no headers)."""

    def topic(self) -> str:
        return ROOM_TOPIC

    def value(self) -> bytes:
        return bytes(5000)

    def key(self) -> bytes:
        return b"conn"


def test_a_refused_non_persistent_record_is_logged_and_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    recordroom._queues[ROOM_TOPIC] = "APP.ROOM"
    unmeasured = recordroom.reporter(ROOM_TOPIC, [*MQMD[1:], ("mqmd.MsgId", b"\x01" * 24)])
    before = recordroom.lost
    unmeasured(None, Report())
    recordroom.reported(None, Report())
    assert recordroom.lost == before and not caplog.records
    unmeasured(KafkaError(KafkaError.MSG_SIZE_TOO_LARGE), Report())
    recordroom.reported(KafkaError(KafkaError.MSG_SIZE_TOO_LARGE), Report())
    assert recordroom.lost == before + 2
    by_msg_id, by_key = [r.getMessage() for r in caplog.records]
    assert "APP.ROOM" in by_msg_id and "01" * 24 in by_msg_id
    assert "APP.ROOM" in by_key and "5000 bytes" in by_key and "conn" in by_key
