"""How ActivityRecorder cuts a batch's event blocks into records: settled a few hundred at a
time while the batch is read (issue 34), the records are those of the plain rule: each holds
the blocks that follow while they fit MAX_BATCH_BYTES, a larger block alone."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mqkafka.activity.builder import MAX_BATCH_BYTES, ActivityRecorder
from mqkafka.activity.events import join_blocks


def plain_rule(blocks: list[bytes]) -> list[bytes]:
    values: list[bytes] = []
    record: list[bytes] = []
    size = 0
    for block in blocks:
        if record and size + len(block) > MAX_BATCH_BYTES:
            values.append(join_blocks(record))
            record, size = [], 0
        record.append(block)
        size += len(block)
    if record:
        values.append(join_blocks(record))
    return values


sizes = st.lists(
    st.one_of(
        st.integers(1, 400),
        st.integers(MAX_BATCH_BYTES // 3, MAX_BATCH_BYTES + 10),
        st.integers(MAX_BATCH_BYTES + 11, 2 * MAX_BATCH_BYTES),
    ),
    max_size=24,
)


@settings(max_examples=60, deadline=None)
@given(sizes, st.sets(st.integers(0, 24)))
def test_settled_blocks_make_the_records_of_the_plain_rule(
    lengths: list[int], settle_after: set[int]
) -> None:
    blocks = [bytes([i]) * n for i, n in enumerate(lengths)]
    recorder = ActivityRecorder("mqk-activity", "QM1", "w1")
    for i, block in enumerate(blocks):
        recorder.blocks.append(block)
        if i in settle_after:
            recorder.settle()
    records = recorder.records()
    assert [r.value for r in records] == plain_rule(blocks)
    assert {(r.topic, r.key) for r in records} <= {("mqk-activity", b"w1")}
    assert recorder.records() == []


def test_an_aborted_batch_leaves_nothing_settled_behind() -> None:
    recorder = ActivityRecorder("mqk-activity", "QM1", "w1")
    recorder.blocks += [b"a" * 1000, b"b" * MAX_BATCH_BYTES]
    recorder.settle()
    recorder.blocks.append(b"c")
    recorder.clear()
    assert recorder.records() == []
    recorder.blocks.append(b"d")
    assert [r.value for r in recorder.records()] == [b"d\x00"]
