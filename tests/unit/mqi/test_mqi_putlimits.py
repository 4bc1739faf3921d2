"""MQPUT's MAXDEPTH gate (putlimits.admit) and Kafka's refusals as MQ reasons, without Kafka."""

from __future__ import annotations

import pytest

from mqkafka.kafka.clients import KafkaError, KafkaException
from mqkafka.mq.reasons import RC
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
