"""How a batch's event blocks become records (issue 34 point 4): the compiled ``Blocks`` and
its Python twin write the same records for any sequence of blocks, replays, takes and aborts,
and those are the records of the plain rule: each holds the blocks that follow while they fit
the limit, a larger block alone. A replay's block is ``fan_out_1_template``'s ``%`` format."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqkafka.activity.blocks import COMPILED, BlockStore, PyBlocks
from mqkafka.activity.builder import MAX_BATCH_BYTES, ActivityRecorder
from mqkafka.activity.events import (
    BOOLEAN_BYTES,
    FastEncoder,
    _varint,
    fan_out_1_template,
    join_blocks,
    stamps,
)

LIMIT = 2000  # small records: the cuts are exercised with blocks of a few hundred bytes


def plain_rule(blocks: list[bytes], limit: int = MAX_BATCH_BYTES) -> list[bytes]:
    values: list[bytes] = []
    record: list[bytes] = []
    size = 0
    for block in blocks:
        if record and size + len(block) > limit:
            values.append(join_blocks(record))
            record, size = [], 0
        record.append(block)
        size += len(block)
    if record:
        values.append(join_blocks(record))
    return values


def compiled(limit: int) -> BlockStore:
    if not COMPILED:
        pytest.skip("mqkafka.activity._blocks is not built (no C compiler at install)")
    from mqkafka.activity._blocks import Blocks

    return Blocks(limit)


def test_the_compiled_blocks_are_built() -> None:
    """`make install` builds the extension (setup.py): without it a worker runs the Python
    twin, at ~4x activity's cost a publication."""
    assert COMPILED


STORES = [PyBlocks, compiled]


def replay_block(
    template: bytes, msg_id: bytes, time_ms: int, put_ms: int, size: int, copy_size: int
) -> bytes:
    """What a replay's block is, from the plain encoder's parts."""
    import struct

    stamp = _varint(time_ms) + _varint(put_ms)
    head, between, tail = stamps(stamp, struct.pack("<d", float(time_ms - put_ms)))
    sized, copied = _varint(size), _varint(copy_size)
    return template % (head, msg_id, sized, between, msg_id, copied, tail)


middles = st.binary(max_size=300) | st.sampled_from([b"%", b"%%b", b"a%bc", b"%s%d"])
templates = st.builds(
    lambda m, p, c, q: fan_out_1_template((m, BOOLEAN_BYTES[p]), [(c, BOOLEAN_BYTES[q], 0)]),
    middles, st.booleans(), middles, st.booleans(),
)  # fmt: skip
ops = st.lists(
    st.one_of(
        st.tuples(st.just("begin"), st.integers(0, 2**45)),
        st.tuples(
            st.just("replay"),
            templates,
            st.binary(min_size=24, max_size=24),
            st.integers(0, 2**45),
            st.integers(0, 20_000),  # sizes of 1, 2 and 3-byte Avro longs
            st.integers(0, 300),
            st.integers(0, 20_000),
        ),
        st.tuples(st.just("add"), st.integers(1, 2 * LIMIT)),
        st.tuples(st.just("take")),
        st.tuples(st.just("clear")),
    ),
    max_size=40,
)


@pytest.mark.parametrize("store", STORES, ids=["python", "compiled"])
@settings(max_examples=150, deadline=None)
@given(ops)
def test_the_records_are_the_plain_rules_of_the_blocks(store: Any, steps: list[Any]) -> None:
    blocks = store(LIMIT)
    expected: list[bytes] = []  # blocks since the last take or clear
    time_ms = 0
    blocks.begin(time_ms)
    for n, (op, *args) in enumerate(steps):
        if op == "begin":
            (time_ms,) = args
            blocks.begin(time_ms)
        elif op == "replay":
            template, msg_id, put_ms, size, head, body = args
            blocks.fan_out_1(template, msg_id, put_ms, b"v" * size, b"h" * head, b"b" * body)
            expected.append(replay_block(template, msg_id, time_ms, put_ms, size, head + body))
        elif op == "add":
            block = bytes([n]) * args[0]
            blocks.add(block)
            expected.append(block)
        elif op == "take":
            assert blocks.take() == plain_rule(expected, LIMIT)
            expected = []
        else:
            blocks.clear()
            expected = []
    assert blocks.take() == plain_rule(expected, LIMIT)
    assert blocks.take() == []


@pytest.mark.parametrize("store", STORES, ids=["python", "compiled"])
def test_a_replay_with_another_msg_id_length_is_refused(store: Any) -> None:
    """The template holds the MQ MsgId's length (24): another would write a wrong event."""
    template = fan_out_1_template((b"m", b"\x00"), [(b"c", b"\x00", 0)])
    assert template is not None
    blocks = store(LIMIT)
    with pytest.raises(ValueError, match="24 bytes"):
        blocks.fan_out_1(template, b"short", 1, b"v", b"h", b"b")
    assert blocks.take() == []


def test_the_compiled_replay_refuses_what_is_not_a_template() -> None:
    blocks = compiled(LIMIT)
    for template in (b"%b%b", b"%d" * 7, b"%b" * 7 + b"%"):
        with pytest.raises(ValueError, match="not a fan_out_1_template"):
            blocks.fan_out_1(template, bytes(24), 1, b"v", b"h", b"b")
    assert blocks.take() == []


@pytest.mark.parametrize("store", STORES, ids=["python", "compiled"])
def test_an_aborted_batch_leaves_nothing_behind(store: Any) -> None:
    recorder = ActivityRecorder("mqk-activity", "QM1", "w1", store=store(MAX_BATCH_BYTES))
    recorder.add(b"a" * 1000)
    recorder.add(b"b" * MAX_BATCH_BYTES)
    recorder.add(b"c")
    recorder.clear()
    assert recorder.records() == []
    recorder.add(b"d")
    records = recorder.records()
    assert [(r.topic, r.value, r.key) for r in records] == [("mqk-activity", b"d\x00", b"w1")]


def test_a_replay_is_the_general_paths_block() -> None:
    """The template's block is the one ``FastEncoder.general_block`` writes for fan-out 1."""
    fast = FastEncoder()
    command, copy = (b"cmd%", b"\x01"), (b"copy", b"\x00", 30)
    template = fan_out_1_template(command, [copy])
    assert template is not None
    stamp, latency = fast.stamp_of(1_700_000_000_050, 1_700_000_000_000)
    general = fast.general_block(stamp, latency, b"\x07" * 24, command, 300, [copy], 256)
    for store in STORES:
        blocks = store(LIMIT)
        blocks.begin(1_700_000_000_050)
        blocks.fan_out_1(
            template, b"\x07" * 24, 1_700_000_000_000, bytes(300), bytes(30), bytes(256)
        )
        assert blocks.take() == [join_blocks([general])]
