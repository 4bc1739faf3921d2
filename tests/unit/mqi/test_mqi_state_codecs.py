"""The codecs and tables behind the shared state: heartbeats and the connection table, the
share-offsets protocol, the lifecycle's view of a queue, and the settings value."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.kafka.primitives import Reader, compact_array, compact_string
from mqkafka.kafka.sharestate import (
    ShareOffsets,
    describe_request,
    parse_coordinator,
    parse_describe,
)
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.heartbeat import ConnectionTable, Heartbeat, QueueUse
from mqkafka.mqi.kafkaqm.queuestate import assemble
from mqkafka.mqi.kafkaqm.settings import Settings
from mqkafka.mqi.rules.catalogue import QueueDefinition
from mqkafka.mqi.rules.lifecycle import Close, OpenHandle, QueueEffect, step

counts = st.integers(0, 1000)
uses = st.builds(QueueUse, counts, counts, counts, counts, counts)
names = st.text(st.sampled_from("ABCXYZ.09"), min_size=1, max_size=10)


# ---- heartbeats ----------------------------------------------------------------------


@given(
    st.text(min_size=1, max_size=20),
    st.dictionaries(names, uses, max_size=5),
    st.integers(0, 99999),
)
def test_heartbeats_round_trip_and_drop_idle_queues(
    connection: str, queues: dict[str, QueueUse], pid: int
) -> None:
    beat = Heartbeat(connection, "alice", "app", "host", pid, queues)
    again = Heartbeat.decode(beat.encode())
    assert again == beat
    assert set(again.queues) == {q for q, u in queues.items() if not u.idle}


@given(st.binary(max_size=200))
def test_any_bytes_decode_to_a_heartbeat_or_object_damaged(raw: bytes) -> None:
    try:
        Heartbeat.decode(raw)
    except MQError as error:
        assert error.reason == RC.OBJECT_DAMAGED


def test_the_connection_table_uses_broker_time_and_forgets_tombstones() -> None:
    table = ConnectionTable(timeout=10.0)
    busy = Heartbeat("a", queues={"Q": QueueUse(handles=2, puts=1)}).encode()
    table.apply("a", busy, 100.0)
    table.apply("b", Heartbeat("b", queues={"Q": QueueUse(handles=1)}).encode(), 105.0)
    assert sorted(c for c, _ in table.uses("Q")) == ["a", "b"]
    assert [c for c, _ in table.uses("Q", exclude="a")] == ["b"]
    table.apply("b", Heartbeat("b").encode(), 112.0)  # b beats on; a has been silent 12 s
    assert table.expired() == ["a"]
    assert table.uses("Q") == []  # a dead connection holds nothing, b let go
    table.apply("a", None, 113.0)
    assert "a" not in list(table)


def test_a_damaged_heartbeat_still_counts_as_a_beat() -> None:
    table = ConnectionTable(timeout=5.0)
    table.apply("x", b"garbage", 10.0)
    assert table.alive("x")
    assert table.heartbeat("x") == Heartbeat("x")


# ---- the share-offsets protocol ------------------------------------------------------


# the primitives' round trips: tests/unit/kafka/test_primitives.py


def _partition(index: int, start: int, lag: int, error: int = 0) -> bytes:
    return struct.pack(">iqiqh", index, start, 0, lag, error) + compact_string(None) + b"\x00"


def _response(partitions: list[bytes], group_error: int = 0) -> bytes:
    topic = compact_string("Q") + b"\x11" * 16 + compact_array(partitions) + b"\x00"
    group = compact_string("g") + compact_array([topic]) + struct.pack(">h", group_error)
    return struct.pack(">i", 0) + compact_array([group + compact_string(None) + b"\x00"]) + b"\x00"


def test_describe_share_group_offsets_is_parsed() -> None:
    data = _response([_partition(0, 12, 3), _partition(1, -1, -1)])
    assert parse_describe(data, 1) == {0: ShareOffsets(0, 12, 3), 1: ShareOffsets(1, -1, -1)}


@pytest.mark.parametrize(
    "data", [_response([_partition(0, 1, 1, error=16)]), _response([], group_error=69)]
)
def test_errors_in_the_answer_are_resource_problems(data: bytes) -> None:
    with pytest.raises(MQError) as raised:
        parse_describe(data, 1)
    assert raised.value.reason == RC.RESOURCE_PROBLEM


@given(st.binary(max_size=120))
def test_any_answer_parses_or_is_a_resource_problem(data: bytes) -> None:
    for parse in (lambda: parse_describe(data, 1), lambda: parse_coordinator(data)):
        try:
            parse()
        except MQError as error:
            assert error.reason == RC.RESOURCE_PROBLEM


def test_the_request_names_group_topic_and_partitions() -> None:
    body = describe_request("grp", "topic", [0, 2])
    reader = Reader(body)
    assert reader.count() == 1 and reader.compact_string() == "grp"
    assert reader.count() == 1 and reader.compact_string() == "topic"
    assert reader.count() == 2 and (reader.int32(), reader.int32()) == (0, 2)


# ---- the lifecycle's view of a queue -------------------------------------------------


def test_other_connections_handles_and_work_become_placeholders() -> None:
    definition = QueueDefinition("T.1", definition_type=C.MQQDT_TEMPORARY_DYNAMIC, creator="me")
    own = {7: OpenHandle("me", C.MQOO_INPUT_SHARED, "alice", created_queue=True)}
    state = assemble(
        definition,
        own=own,
        others=[("other", QueueUse(handles=2, gets=1))],
        own_connection="me",
        own_work=(1, 0),
        depth=4,
    )
    assert len(state.handles) == 3 and state.depth == 4
    assert {c for c in state.work} == {"me", "other"}
    # Seed 004: the creator closes while another application still has it open ->
    # logically deleted (committed messages purged), not gone.
    outcome = step(state, Close(7))
    assert outcome.effects == (QueueEffect.PURGE, QueueEffect.MARK_LOGICALLY_DELETED)


# ---- settings ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"bootstrap_servers": ""}, RC.Q_MGR_NOT_AVAILABLE),
        ({"qmgr_name": "bad name"}, RC.Q_MGR_NAME_ERROR),
        ({"namespace": "bad/ns"}, RC.OBJECT_NAME_ERROR),
        ({"user": "x" * 13}, RC.UNKNOWN_ENTITY),
        ({"heartbeat_interval": 5.0, "liveness_timeout": 5.0}, RC.UNEXPECTED_ERROR),
        ({"lock_duration_ms": 10}, RC.UNEXPECTED_ERROR),
        ({"read_ahead": 0}, RC.UNEXPECTED_ERROR),
    ],
)
def test_settings_validate_when_built(changes: dict[str, object], reason: int) -> None:
    values: dict[str, object] = {"bootstrap_servers": "h:1", **changes}
    with pytest.raises(MQError) as raised:
        Settings(**values)  # type: ignore[arg-type]
    assert raised.value.reason == reason


def test_the_names_every_client_agrees_on() -> None:
    settings = Settings("h:1", namespace="ns.")
    assert settings.topic_of("APP/REPLY%1") == "ns.APP-2FREPLY-251"
    assert settings.share_group_of("ns.APP.Q") == "ns.mqk-get.ns.APP.Q"
    assert (settings.catalogue_topic, settings.connections_topic) == (
        "ns.mqk-queues",
        "ns.mqk-connections",
    )
