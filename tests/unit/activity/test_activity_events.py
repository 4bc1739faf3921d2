"""The hand-written Avro encoder writes exactly what the schema says (fastavro reads it)."""

from __future__ import annotations

import io

import fastavro
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.activity.events import COMMAND, DELIVERY, ActivityEvent, encode, load_schema

SCHEMA = fastavro.parse_schema(load_schema())
text = st.text(max_size=40)
events = st.builds(
    ActivityEvent,
    kind=st.sampled_from([COMMAND, DELIVERY]),
    time_ms=st.integers(-(2**62), 2**62),
    put_time_ms=st.integers(0, 2**45),
    qmgr=text,
    queue=text,
    command=st.none() | text,
    completion=st.sampled_from(["ok", "warning", "error"]),
    reason=st.integers(-(2**31), 2**31 - 1),
    user_id=text,
    identity_queue=st.none() | text,
    correl_id=st.none() | st.binary(max_size=24),
    sub_name=st.none() | text,
    topics=st.lists(text, max_size=4).map(tuple),
    msg_id=st.binary(max_size=24),
    persistent=st.booleans(),
    bytes=st.integers(0, 2**40),
    latency_ms=st.floats(allow_nan=False),
)


@given(events)
def test_fastavro_reads_back_every_event_exactly(event: ActivityEvent) -> None:
    decoded = fastavro.schemaless_reader(io.BytesIO(encode(event)), SCHEMA)
    assert decoded == event.as_record()


def test_fastavro_writes_the_same_bytes() -> None:
    event = ActivityEvent(
        DELIVERY, 1_700_000_000_000, 1_699_999_999_990, "QM1", "APP.SUBS", "Publish", "ok", 0,
        "fred", "APP.SUBS", b"\x01" * 24, None, ("Sport/Soccer",), b"\x02" * 24, True, 300, 1.5,
    )  # fmt: skip
    buffer = io.BytesIO()
    fastavro.schemaless_writer(buffer, SCHEMA, event.as_record())
    assert encode(event) == buffer.getvalue()


@given(events)
def test_the_fast_encoder_writes_the_same_bytes_as_the_plain_one(event: ActivityEvent) -> None:
    from mqkafka.activity.events import FastEncoder

    fast = FastEncoder(limit=3)  # tiny cache: exercises clearing too
    for _ in range(2):
        produced = fast.event(
            event.kind, event.time_ms, event.put_time_ms, event.qmgr, event.queue,
            event.command, event.completion, event.reason, event.user_id, event.identity_queue,
            event.correl_id, event.sub_name, event.topics, event.msg_id, event.persistent,
            event.bytes, event.latency_ms,
        )  # fmt: skip
        assert produced == encode(event)


@given(st.lists(events, max_size=5))
def test_fastavro_reads_a_batch_of_events_in_order(batch: list[ActivityEvent]) -> None:
    from mqkafka.activity.events import batch_schema, encode_batch

    schema = fastavro.parse_schema(batch_schema())
    decoded = fastavro.schemaless_reader(
        io.BytesIO(encode_batch([encode(event) for event in batch])), schema
    )
    assert decoded == {"events": [event.as_record() for event in batch]}


@given(
    st.integers(0, 2**45),
    st.integers(0, 2**45),
    st.binary(min_size=24, max_size=24) | st.binary(max_size=30),
    st.binary(max_size=60),
    st.lists(st.tuples(st.binary(max_size=60), st.booleans(), st.integers(0, 2**20)), max_size=3),
    st.booleans(),
    st.integers(0, 2**40),
    st.integers(0, 2**30),
)
def test_a_publication_block_is_the_same_on_the_fan_out_1_path_as_on_the_general_one(
    time_ms: int,
    put_ms: int,
    msg_id: bytes,
    middle: bytes,
    copies: list[tuple[bytes, bool, int]],
    persistent: bool,
    size: int,
    body_size: int,
) -> None:
    """Issue 34: the fan-out-1 template writes what the general path writes, for any input
    (middles with ``%`` in them included: the template is a ``%`` format)."""
    from mqkafka.activity.events import BOOLEAN_BYTES, FastEncoder

    command = (middle, BOOLEAN_BYTES[persistent])
    events = [(m, BOOLEAN_BYTES[p], head) for m, p, head in copies]
    fast = FastEncoder(limit=3)
    plain = FastEncoder(limit=3)
    for _ in range(2):  # the second time from the caches
        block = fast.publication_block(time_ms, put_ms, msg_id, command, size, events, body_size)
        stamp, latency = plain.stamp_of(time_ms, put_ms)
        expected = plain.general_block(stamp, latency, msg_id, command, size, events, body_size)
        assert block == expected


def test_a_publication_block_holds_the_events_the_plain_encoder_writes() -> None:
    """The fan-out-1 block, read as an ActivityBatch, is the command and delivery events."""
    from mqkafka.activity.events import BOOLEAN_BYTES, FastEncoder, batch_schema, join_blocks

    fast = FastEncoder()
    command = ActivityEvent(
        COMMAND, 1_700_000_000_050, 1_700_000_000_000, "QM1", "SYSTEM.BROKER.DEFAULT.STREAM",
        "Publish", "ok", 0, "pub", None, None, None, ("Sport/Soccer",), b"\x07" * 24, False,
        300, 50.0,
    )  # fmt: skip
    delivery = ActivityEvent(
        DELIVERY, 1_700_000_000_050, 1_700_000_000_000, "QM1", "APP.SUBS", "Publish", "ok", 0,
        "sub", "APP.SUBS", b"\x01" * 24, None, ("Sport/Soccer",), b"\x07" * 24, False, 280, 50.0,
    )  # fmt: skip

    def middle(e: ActivityEvent) -> bytes:
        return fast.middle(
            e.qmgr, e.queue, e.command, e.completion, e.reason, e.user_id, e.identity_queue,
            e.correl_id, e.sub_name, e.topics,
        )  # fmt: skip

    block = fast.publication_block(
        command.time_ms, command.put_time_ms, command.msg_id,
        (middle(command), BOOLEAN_BYTES[False]), 300,
        [(middle(delivery), BOOLEAN_BYTES[False], 24)], 256,
    )  # fmt: skip
    schema = fastavro.parse_schema(batch_schema())
    decoded = fastavro.schemaless_reader(io.BytesIO(join_blocks([block])), schema)
    assert decoded == {"events": [command.as_record(), delivery.as_record()]}


@given(st.lists(st.tuples(st.integers(-(2**62), 2**62), st.integers(0, 2**45)), max_size=12))
def test_encoded_times_are_the_plain_encoders(times: list[tuple[int, int]]) -> None:
    """Issue 34: ``stamp_of``, ``template_times`` (their kept higher bytes, latencies and
    parts) and ``time_long`` write what ``encode`` writes for the times and the latency,
    whatever came before."""
    import struct

    from mqkafka.activity.events import FastEncoder, _varint, stamps

    fast = FastEncoder(limit=2)  # tiny caches: exercises clearing too
    for time_ms, put_ms in times + times[::-1]:
        assert fast.time_long(time_ms) == _varint(time_ms)
        plain = _varint(time_ms) + _varint(put_ms), struct.pack("<d", float(time_ms - put_ms))
        assert fast.template_times(time_ms, put_ms) == stamps(*plain)
        assert fast.stamp_of(time_ms, put_ms) == plain
