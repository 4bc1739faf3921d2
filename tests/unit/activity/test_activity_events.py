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
