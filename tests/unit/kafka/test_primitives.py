"""kafka.primitives: Kafka's protocol primitives against an encoder written here from the
protocol guide (LEB128 varints, compact lengths + 1, tag buffers), and every cut of a
valid input refused with Truncated."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.kafka.primitives import (
    Reader,
    Truncated,
    compact_array,
    compact_bytes,
    compact_string,
    request_header,
    string,
    uvarint,
)

u64 = st.integers(0, 2**64 - 1)
blobs = st.one_of(st.none(), st.binary(max_size=300))
tags = st.lists(st.tuples(st.integers(0, 2**31), st.binary(max_size=40)), max_size=4)


def leb128(value: int) -> bytes:
    """The reference: 7 bits at a time, low first, the top bit says more follow."""
    out = []
    while value >= 0x80:
        out.append(value % 128 + 128)
        value //= 128
    return bytes([*out, value])


def tag_buffer(fields: list[tuple[int, bytes]]) -> bytes:
    parts = [leb128(len(fields))]
    for tag, data in fields:
        parts += (leb128(tag), leb128(len(data)), data)
    return b"".join(parts)


@given(u64)
def test_uvarints_are_leb128_and_read_back(value: int) -> None:
    assert uvarint(value) == leb128(value)
    reader = Reader(leb128(value) + b"after")
    assert reader.uvarint() == value and reader.rest() == b"after"


@given(blobs)
def test_compact_bytes_are_length_plus_one_and_read_back(data: bytes | None) -> None:
    expected = b"\x00" if data is None else leb128(len(data) + 1) + data
    assert compact_bytes(data) == expected
    assert Reader(expected).compact_bytes() == data


@given(st.one_of(st.none(), st.text(max_size=60)))
def test_compact_strings_read_back(text: str | None) -> None:
    assert Reader(compact_string(text)).compact_string() == text


@given(st.lists(st.binary(max_size=8), max_size=20))
def test_compact_arrays_count_their_items(items: list[bytes]) -> None:
    data = compact_array(items)
    assert data == leb128(len(items) + 1) + b"".join(items)
    assert Reader(data).count() == len(items)
    assert Reader(b"\x00").count() == 0  # a null array reads as empty


@given(tags, st.binary(max_size=10))
def test_tag_buffers_are_skipped_whole(fields: list[tuple[int, bytes]], after: bytes) -> None:
    reader = Reader(tag_buffer(fields) + after)
    reader.skip_tags()
    assert reader.rest() == after


@given(st.integers(-(2**7), 2**7 - 1), st.integers(-(2**15), 2**15 - 1))
def test_fixed_width_integers_are_big_endian(small: int, short: int) -> None:
    wide, long = small * 2**20, short * 2**40
    data = struct.pack(">bhiq", small, short, wide, long) + bytes(range(16))
    reader = Reader(data)
    values = reader.int8(), reader.int16(), reader.int32(), reader.int64(), reader.uuid()
    assert values == (small, short, wide, long, bytes(range(16)))


@pytest.mark.parametrize("flexible", [False, True])
def test_request_headers_are_v1_or_v2(flexible: bool) -> None:
    header = request_header(90, 1, 7, flexible=flexible)
    reader = Reader(header)
    assert (reader.int16(), reader.int16(), reader.int32()) == (90, 1, 7)
    assert reader.take(reader.int16()) == b"mqkafka-mqi" == string("mqkafka-mqi")[2:]
    assert reader.rest() == (b"\x00" if flexible else b"")


def _read_all(data: bytes) -> None:
    """The shape every cut below is read as: a uvarint, compact bytes, tags, an INT64."""
    reader = Reader(data)
    reader.uvarint()
    reader.compact_bytes()
    reader.skip_tags()
    reader.int64()


@given(u64, st.binary(max_size=50), tags, st.data())
def test_every_cut_of_a_valid_input_is_truncated(
    value: int, blob: bytes, fields: list[tuple[int, bytes]], data: st.DataObject
) -> None:
    whole = leb128(value) + compact_bytes(blob) + tag_buffer(fields) + struct.pack(">q", -1)
    _read_all(whole)
    cut = data.draw(st.integers(0, len(whole) - 1))
    with pytest.raises(Truncated):
        _read_all(whole[:cut])


@pytest.mark.parametrize(
    "data",
    [
        b"\xff" * 10 + b"\x01",  # 71 bits: no Kafka varint
        b"\x80",  # a varint that never ends
        b"\x05ab",  # compact bytes of 4 with 2 there
    ],
)
def test_malformed_lengths_are_truncated(data: bytes) -> None:
    with pytest.raises(Truncated):
        Reader(data).compact_bytes()


def test_a_negative_length_is_truncated_and_a_negative_uvarint_refused() -> None:
    with pytest.raises(Truncated):
        Reader(b"abc").take(-1)
    with pytest.raises(ValueError):
        uvarint(-1)
