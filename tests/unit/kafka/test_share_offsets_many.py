"""Many share groups' offsets in one request (kafka/sharestate.py, issue 35 point 8): the
request names every group, and an answer's groups in error are left out, not fatal."""

from __future__ import annotations

import struct

from hypothesis import given
from hypothesis import strategies as st

from mqkafka.kafka.primitives import Reader, compact_array, compact_string
from mqkafka.kafka.sharestate import (
    ShareOffsets,
    describe_groups_request,
    parse_coordinators,
    parse_describe_groups,
)
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC


def partition(index: int, start: int, lag: int, error: int = 0) -> bytes:
    return struct.pack(">iqiqh", index, start, 0, lag, error) + compact_string(None) + b"\x00"


def group(name: str, partitions: list[bytes], error: int = 0) -> bytes:
    topic = compact_string("T." + name) + b"\x11" * 16 + compact_array(partitions) + b"\x00"
    return (
        compact_string(name) + compact_array([topic]) + struct.pack(">h", error)
        + compact_string(None) + b"\x00"
    )  # fmt: skip


def response(groups: list[bytes]) -> bytes:
    return struct.pack(">i", 0) + compact_array(groups) + b"\x00"


def test_each_group_answers_its_own_partitions_and_one_in_error_is_left_out() -> None:
    data = response([
        group("a", [partition(0, 5, 2), partition(1, -1, -1)]),
        group("b", [], error=69),  # GROUP_ID_NOT_FOUND: counted another way
        group("c", [partition(0, 1, 1, error=16)]),
        group("d", [partition(0, 0, 0)]),
    ])  # fmt: skip
    assert parse_describe_groups(data, 1) == {
        "a": {0: ShareOffsets(0, 5, 2), 1: ShareOffsets(1, -1, -1)},
        "d": {0: ShareOffsets(0, 0, 0)},
    }


def test_the_request_names_every_group_with_its_topic_and_partitions() -> None:
    reader = Reader(describe_groups_request({"g1": ("t1", [0]), "g2": ("t2", [0, 1])}))
    assert reader.count() == 2
    for name, topic, parts in (("g1", "t1", [0]), ("g2", "t2", [0, 1])):
        assert reader.compact_string() == name
        assert reader.count() == 1 and reader.compact_string() == topic
        assert reader.count() == len(parts) and [reader.int32() for _ in parts] == parts
        reader.skip_tags()
        reader.skip_tags()


def coordinator(key: str, host: str, port: int, error: int = 0) -> bytes:
    return (
        compact_string(key) + struct.pack(">i", 1) + compact_string(host)
        + struct.pack(">ih", port, error) + compact_string(None) + b"\x00"
    )  # fmt: skip


def test_coordinators_in_error_are_left_out() -> None:
    data = struct.pack(">i", 0) + compact_array(
        [coordinator("a", "h1", 9092), coordinator("b", "h2", 9093, error=15)]
    ) + b"\x00"  # fmt: skip
    assert parse_coordinators(data) == {"a": ("h1", 9092)}


@given(st.binary(max_size=160))
def test_any_answer_parses_or_is_a_resource_problem(data: bytes) -> None:
    for parse in (lambda: parse_describe_groups(data, 1), lambda: parse_coordinators(data)):
        try:
            parse()
        except MQError as error:
            assert error.reason == RC.RESOURCE_PROBLEM
