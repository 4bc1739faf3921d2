"""Read ahead's flows (``channel/codec/asyncget.py``) against the REQUEST_MSGS IBM's 9.4.4 Java
client sent to the listener, and Hypothesis round trips in both byte orders: REQUEST_MSGS with
and without selection, the ASYNC_MESSAGE header, NOTIFICATION, and a message split into
ASYNC_MESSAGE segments and put back together."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.channel.codec import asyncget
from mqkafka.channel.codec.asyncget import AsyncHeader, MsgRequest, Notification
from mqkafka.channel.codec.segments import ChannelError

ORDERS = st.sampled_from([">", "<"])
ints = st.integers(-(2**31), 2**31 - 1)
shorts = st.integers(0, 2**16 - 1)

# The client's first REQUEST_MSGS (body after the TSHM header), its queue opened with
# MQOO_READ_AHEAD, at its first MQGET (WAIT | NO_SYNCPOINT, wait 3000, buffer 4096):
# selection with MQMD version 2, CCSID 819, encoding 273, MsgId and CorrelId none
FIRST_REQUEST = (
    "00000001000000060000000000019000000010000000000500000bb80000000100000018000000000001"
    "00020000033300000111000000000000000000000003" + "00" * 48
)


def test_the_observed_first_request() -> None:
    body = bytes.fromhex(FIRST_REQUEST)
    request = asyncget.parse_request(body, ">")
    assert request == MsgRequest(
        hobj=6, received=0, requested=102_400, max_length=4096, options=0x5, wait=3000,
        queue_status=1, flags=0x18, global_index=0, version=1, select_index=1, md_version=2,
        ccsid=819, encoding=273, match_options=0x3, msg_id=bytes(24), correl_id=bytes(24),
    )  # fmt: skip
    assert request.selection
    assert request.to_bytes(">") == body


def test_a_later_request_has_no_selection() -> None:
    """What the client sent as its application's wait ended with nothing read ahead: bytes
    received since the last request, no wait (a check), flags 0x0A, its last message index."""
    body = struct.pack(">10i", 1, 6, 734, 102_400, 4096, 0x5, 0, 1, 0x0A, 2)
    request = asyncget.parse_request(body, ">")
    assert (request.received, request.wait, request.global_index) == (734, 0, 2)
    assert not request.selection
    assert request.to_bytes(">") == body


@st.composite
def requests(draw: st.DrawFn) -> MsgRequest:
    selection = draw(st.booleans())
    match = draw(st.sampled_from([0, 1, 2, 3, 4, 0x20, 0x27])) if selection else 0

    def ident(bit: int, size: int) -> bytes:
        return draw(st.binary(min_size=size, max_size=size)) if match & bit else b""

    def field(strategy: st.SearchStrategy[int]) -> int:
        return draw(strategy) if selection else 0

    return MsgRequest(
        hobj=draw(ints), received=draw(ints), requested=draw(ints), max_length=draw(ints),
        options=draw(ints), wait=draw(ints), queue_status=draw(ints),
        flags=asyncget.FLAG_SELECTION | 0x08 if selection else draw(st.sampled_from([0, 0x0A])),
        global_index=draw(ints), version=draw(ints), select_index=field(shorts),
        md_version=field(shorts), ccsid=field(ints), encoding=field(ints),
        seq_number=field(ints), offset=field(ints), match_options=match,
        msg_id=ident(1, 24), correl_id=ident(2, 24), group_id=ident(4, 24),
        msg_token=ident(0x20, 16),
    )  # fmt: skip


@given(ORDERS, requests())
def test_a_request_round_trips(order: str, request: MsgRequest) -> None:
    assert asyncget.parse_request(request.to_bytes(order), order) == request


@given(ORDERS, requests(), st.data())
def test_a_request_cut_short_is_a_channel_error(
    order: str, request: MsgRequest, data: st.DataObject
) -> None:
    body = request.to_bytes(order)
    cut = data.draw(st.integers(0, len(body) - 1))
    with pytest.raises(ChannelError):
        asyncget.parse_request(body[:cut], order)


headers = st.builds(
    AsyncHeader,
    hobj=ints, msg_index=ints, global_index=ints, seg_length=ints, select_index=shorts,
    reason=ints, total_length=ints, actual_length=ints,
    resolved_queue=st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=48),
    token=st.binary(min_size=16, max_size=16), status=shorts, seg_index=shorts, version=ints,
)  # fmt: skip


@given(ORDERS, headers, st.binary(max_size=64))
def test_an_async_header_round_trips_padded_to_four(
    order: str, head: AsyncHeader, rest: bytes
) -> None:
    raw = head.to_bytes(order)
    assert len(raw) % 4 == 0
    assert len(raw) == asyncget.async_header_size(head.resolved_queue)
    assert asyncget.parse_async_header(raw + rest, order) == (head, rest)


def test_the_header_the_client_took() -> None:
    """The first segment's header as the listener sends it for a 3-byte message of RA.Q4
    (IBM's client took the message from it): the segment length and both message lengths
    are the data's, the MQMD not counted."""
    head = AsyncHeader(
        hobj=6, msg_index=1, global_index=1, seg_length=3, select_index=1, reason=0,
        total_length=3, actual_length=3, resolved_queue="RA.Q4",
    )  # fmt: skip
    assert head.to_bytes(">").hex() == (
        "00000001" "00000006" "00000001" "00000001" "00000003" "0000" "0001" "00000000"
        "00000003" "00000003" + "00" * 16 + "0000" "05" "52412e5134"
    )  # fmt: skip


@given(ORDERS, ints, st.integers(1, 17), ints)
def test_a_notification_round_trips(order: str, hobj: int, code: int, value: int) -> None:
    note = Notification(hobj, code, value)
    raw = note.to_bytes(order)
    assert len(raw) == asyncget.NOTIFICATION_LENGTH
    assert asyncget.parse_notification(raw, order) == note


@given(
    ORDERS,
    st.binary(min_size=364, max_size=364),
    st.binary(max_size=5000),
    st.integers(500, 2000),  # beyond the first header and MQMD, as any agreed size is
    st.text(st.characters(min_codepoint=65, max_codepoint=90), max_size=48),
)
def test_a_message_in_segments_comes_back_whole(
    order: str, md: bytes, data: bytes, room: int, queue: str
) -> None:
    head = AsyncHeader(hobj=5, msg_index=9, global_index=9, seg_length=0, select_index=1,
                       reason=0, total_length=len(data), actual_length=len(data),
                       resolved_queue=queue)  # fmt: skip
    segments = asyncget.async_segments(head, md, data, room, order)
    assert [(first, last) for _, first, last in segments] == [
        (i == 0, i == len(segments) - 1) for i in range(len(segments))
    ]
    assert all(len(body) <= room for body, _, _ in segments[1:])
    first, rest = asyncget.parse_async_header(segments[0][0], order)
    assert rest[:364] == md
    got = [rest[364:]]
    assert first.seg_length == len(got[0])
    for index, (body, _, _) in enumerate(segments[1:], 1):
        _, hobj, msg_index, _, length, seg_index, select = struct.unpack_from(order + "5iHH", body)
        assert (hobj, msg_index, seg_index, select) == (5, 9, index, 1)
        assert length == len(body) - asyncget.ASYNC_FIXED
        got.append(body[asyncget.ASYNC_FIXED :])
    assert b"".join(got) == data


@given(
    ORDERS,
    st.tuples(ints, ints, ints, shorts),
    st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=48),
    st.binary(min_size=324, max_size=364),
    st.binary(max_size=2000),
)
def test_the_fast_single_segment_is_the_plain_one(
    order: str, numbers: tuple[int, int, int, int], queue: str, md: bytes, data: bytes
) -> None:
    """``async_single`` (the stream's fast path) makes the bytes ``async_segments`` makes
    for a message that fits one segment."""
    hobj, index, global_index, select = numbers
    head = AsyncHeader(
        hobj=hobj, msg_index=index, global_index=global_index, seg_length=len(data),
        select_index=select, reason=0, total_length=len(data), actual_length=len(data),
        resolved_queue=queue,
    )  # fmt: skip
    segments = asyncget.async_segments(head, md, data, 32_712, order)
    assert [(first, last) for _, first, last in segments] == [(True, True)]
    plain = segments[0][0]
    fast = asyncget.async_single(
        order, hobj, index, global_index, select, asyncget.padded_name(queue), md, data
    )
    assert fast == plain
