"""kafka.sharelog: reading Kafka's per-record share state (issue 35 point 4), without I/O.

The recorded keys and values are what Kafka 4.2 wrote to ``__share_group_state`` in the
measurement the module cites (group ``x1795774181.mqk-get.x1795774181.APP.X``, partition 0:
an empty first snapshot, m1 got by MsgId, then m0 and m2 given back)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.kafka.sharelog import (
    SNAPSHOT,
    UPDATE,
    Malformed,
    PartitionState,
    StateRecord,
    decode_key,
    decode_value,
    java_hash,
    state_partition,
    uuid_text,
)

GROUP = "x1795774181.mqk-get.x1795774181.APP.X"
TOPIC_ID = bytes.fromhex("241a356eb09f4193b24959450c7dddc1")
KEY = "0025" + GROUP.encode().hex() + TOPIC_ID.hex() + "00000000"
SNAPSHOT_VALUE = "0000000000000000000100000000ffffffffffffffff000001a21c7b838f000001a21c7b838f0100"
GOT_M1 = (
    "00000000000000000000000000000000000002000000000000000100000000000000010200010001000400000001"
)
RELEASED = (
    "00000000000000000000000000000000000003000000000000000000000000000000000000010000"
    "0000000000000200000000000000020000010001000400000001"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", 0), ("a", 97), ("Aa", 2112), ("BB", 2112), ("hello", 99162322), ("é€", 15587)],
)
def test_java_hash_is_javas_string_hash(text: str, expected: int) -> None:
    assert java_hash(text) == expected


def test_java_hash_wraps_to_a_signed_int() -> None:
    assert java_hash("polygenelubricants") == -(1 << 31)  # Java's famous MIN_VALUE string
    assert -(1 << 31) <= java_hash("x" * 1000) < 1 << 31


def test_the_recorded_key_lives_where_kafka_put_it() -> None:
    assert uuid_text(TOPIC_ID) == "JBo1brCfQZOySVlFDH3dwQ"
    assert state_partition(GROUP, TOPIC_ID, 0, 10) == 7  # Kafka wrote it to partition 7


@pytest.mark.parametrize(("kind", "value"), [(SNAPSHOT, "0000"), (UPDATE, "0001")])
def test_keys_decode(kind: int, value: str) -> None:
    assert decode_key(bytes.fromhex(value + KEY)) == (kind, (GROUP, TOPIC_ID, 0))


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        (SNAPSHOT, SNAPSHOT_VALUE, StateRecord(True, -1, ())),
        (UPDATE, GOT_M1, StateRecord(False, 0, ((1, 1, 2),))),
        (UPDATE, RELEASED, StateRecord(False, 0, ((0, 0, 0), (2, 2, 0)))),
    ],
)
def test_recorded_values_decode(kind: int, value: str, expected: StateRecord) -> None:
    assert decode_value(kind, bytes.fromhex(value)) == expected


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        (UPDATE, bytes.fromhex(GOT_M1)[:20]),  # truncated
        (UPDATE, b"\x00\x01" + bytes.fromhex(GOT_M1)[2:]),  # a version not known
        (SNAPSHOT, b""),
    ],
)
def test_unreadable_values_raise_malformed(kind: int, data: bytes) -> None:
    with pytest.raises(Malformed):
        decode_value(kind, data)


@pytest.mark.parametrize("key", [b"", b"\x00\x05\x00\x01a", bytes.fromhex("0000" + KEY)[:30]])
def test_unreadable_keys_raise_malformed(key: bytes) -> None:
    with pytest.raises(Malformed):
        decode_key(key)


def test_the_recorded_history_marks_m1_done_and_m0_m2_not() -> None:
    state = PartitionState()
    for kind, value in ((SNAPSHOT, SNAPSHOT_VALUE), (UPDATE, GOT_M1), (UPDATE, RELEASED)):
        state.apply(decode_value(kind, bytes.fromhex(value)))
    assert [state.done(o) for o in range(4)] == [False, True, False, False]


@pytest.mark.parametrize(
    ("records", "done"),
    [
        ([], set()),  # never started: nothing is done
        ([StateRecord(True, 3, ())], {0, 1, 2}),
        ([StateRecord(True, 0, ((2, 4, 2),))], {2, 3, 4}),
        ([StateRecord(True, 0, ((2, 4, 4),)), StateRecord(False, 3, ())], {0, 1, 2, 3, 4}),
        ([StateRecord(True, 0, ((2, 4, 2),)), StateRecord(False, -1, ((3, 3, 0),))], {2, 4}),
        ([StateRecord(True, 0, ((2, 4, 2),)), StateRecord(True, 0, ())], set()),  # replaced
        ([StateRecord(False, 0, ((1, 1, 2),)), StateRecord(False, -1, ((2, 2, 2),))], {1, 2}),
    ],
)
def test_state_follows_snapshots_and_updates(records: list[StateRecord], done: set[int]) -> None:
    state = PartitionState()
    for record in records:
        state.apply(record)
    assert {o for o in range(8) if state.done(o)} == done


batches = st.lists(
    st.tuples(st.integers(0, 30), st.integers(0, 5), st.sampled_from([0, 1, 2, 4])),
    max_size=6,
)


@given(st.lists(st.tuples(st.booleans(), st.integers(-1, 20), batches), max_size=8))
def test_state_matches_a_set_of_offsets(records: list[tuple[bool, int, list]]) -> None:  # type: ignore[type-arg]
    state, start, model = PartitionState(), -1, set[int]()
    for snapshot, new_start, raw in records:
        batch = tuple((first, first + length, kind) for first, length, kind in raw)
        state.apply(StateRecord(snapshot, new_start, batch))
        if snapshot:
            model, start = set(), new_start
        elif new_start >= 0:
            start = new_start
        for first, last, kind in batch:
            span = set(range(first, last + 1))
            model = model | span if kind in (2, 4) else model - span
        model = {o for o in model if o >= start}
    for offset in range(40):
        expected = start >= 0 and (offset < start or offset in model)
        assert state.done(offset) is expected, offset
    assert all(f <= x for f, x in state.ranges())
