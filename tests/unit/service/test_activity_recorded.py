"""Activity events of a recorded run, byte for byte (issue 34 point 4): the records a
dispatcher writes to mqk-activity for a fixed run are the bytes the encoder wrote before its
fan-out-1 template path (the digest below was taken from that code, commit 3fe4827), and
the events are those of the engine path. The run covers what the fast path must get right:
fan-out 0, 1 and 2, bodies whose sizes are 1, 2 and 3-byte Avro longs, persistent and not,
topics and user ids with ``%`` in them (the template is a ``%`` format), publications put in
the same millisecond and in others, batches at later times with the same put times, and a
batch whose events fill more than one record."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pytest

from mqkafka.activity.blocks import PyBlocks
from mqkafka.activity.builder import MAX_BATCH_BYTES, ActivityRecorder
from mqkafka.kafka.txloop import OutRecord
from mqkafka.mq.mqmd import MQPER
from mqkafka.service.dispatcher import Dispatcher
from tests.unit.service import test_dispatcher
from tests.unit.service.test_dispatcher import (
    Message,
    activity_events,
    publish,
    register,
)

# SHA-256 of the run's activity record values (each with its length), as 3fe4827 wrote them
RECORDED = "38c63a12307b1ad64078533200ef78cf8a2cccd62c495d19a15110fa5ced068d"


def dispatcher(times: list[float], *, plans: bool, python: bool = False) -> Dispatcher:
    """test_dispatcher's, with activity, on the run's moving clock (``times[0]``); with
    ``python`` its recorder's blocks are the Python twin's, not the compiled ones."""
    d = test_dispatcher.dispatcher(plans=plans, clock=lambda: times[0])
    if python:
        d.activity = ActivityRecorder("mqk-activity", "QM1", "w1", store=PyBlocks(MAX_BATCH_BYTES))
    return d


TOPICS = ["Sport/Soccer", "Sport/Tennis", "Weather/Rain", "Per%cent/%s%d", "Sport/%"]
SIZES = [0, 5, 40, 63, 64, 100, 8000, 8300, 20000]


def publications(batch: int) -> Iterator[Message]:
    """A batch's publications: each topic again and again (replayed after its first), the
    sizes, persistence, MsgIds (the default one or each its own) and put times varied."""
    for i in range(40):
        topic = TOPICS[(i + batch) % len(TOPICS)]
        size = SIZES[(i * 7 + batch) % len(SIZES)]
        md: dict[str, object] = {}
        if i % 3:
            md["MsgId"] = (b"B%dI%d" % (batch, i)).ljust(24, b"\0")
        if i % 4 == 1:
            md["Persistence"] = MQPER.PERSISTENT
        if i % 5 == 2:
            md["UserIdentifier"] = "us%er"
        message = publish(topic, bytes([i]) * size, **md)
        message._timestamp = 1_700_000_000_000 + (i // 6) * 3  # bursts in one millisecond
        yield message


def run(d: Dispatcher, times: list[float]) -> list[bytes]:
    values: list[bytes] = []
    batches = [
        [
            register("APP.A", "Sport/#"),
            register("APP.B", "Sport/Tennis", correl=b"B%d"),
            register("APP.P", "Per%cent/#"),
        ],
        *([*publications(n)] for n in range(6)),
        [message for n in range(6, 36) for message in publications(n)],  # two records
    ]
    for n, batch in enumerate(batches):
        times[0] = 1_700_000_000.25 + (n // 2) * 0.004  # two batches in one millisecond
        values += [r.value or b"" for r in d.handle(batch) if r.topic == "mqk-activity"]
        d.committed()
    return values


def digest(values: list[bytes]) -> str:
    sha = hashlib.sha256()
    for value in values:
        sha.update(len(value).to_bytes(8, "big") + value)
    return sha.hexdigest()


@pytest.mark.parametrize("python", [False, True], ids=["compiled", "python"])
def test_the_activity_records_of_a_recorded_run_are_the_bytes_written_before(python: bool) -> None:
    times = [0.0]
    planned = dispatcher(times, plans=True, python=python)
    values = run(planned, times)
    assert planned.plans is not None and planned.plans.hits > 150  # most were replayed
    assert digest(values) == RECORDED


def test_the_events_of_the_recorded_run_are_the_engine_paths() -> None:
    times = [0.0]
    planned, engine_only = dispatcher(times, plans=True), dispatcher(times, plans=False)
    with_plans = [OutRecord("mqk-activity", v) for v in run(planned, times)]
    without = [OutRecord("mqk-activity", v) for v in run(engine_only, times)]
    assert activity_events(with_plans) == activity_events(without)


def interleaved(batch: int) -> Iterator[Message]:
    """A batch of four partitions' publications, as a consumer gives them: their put times
    interleave, each coming back after others (the recorder keeps a batch's put times)."""
    for i in range(48):
        message = publish(TOPICS[i % 3], bytes([i]) * SIZES[i % len(SIZES)])
        message._timestamp = 1_700_000_000_000 + (i % 4) * 1000 + i // 8 + batch
        yield message


def test_replays_of_interleaved_put_times_write_the_engine_paths_events() -> None:
    times = [0.0]
    planned, engine_only = dispatcher(times, plans=True), dispatcher(times, plans=False)
    records: dict[bool, list[OutRecord]] = {True: [], False: []}
    for d, out in ((planned, records[True]), (engine_only, records[False])):
        batches = [[register("APP.A", "Sport/#"), register("APP.P", "Per%cent/#")]]
        batches += [[*interleaved(n)] for n in range(4)]
        for n, batch in enumerate(batches):
            times[0] = 1_700_000_001.0 + (n // 2) * 0.5  # two batches at each processing time
            out += [r for r in d.handle(batch) if r.topic == "mqk-activity"]
            d.committed()
    assert planned.plans is not None and planned.plans.hits > 150
    assert activity_events(records[True]) == activity_events(records[False])
