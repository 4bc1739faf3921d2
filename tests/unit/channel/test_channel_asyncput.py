"""Asynchronous put's pieces of the channel protocol, against the bytes IBM's 9.4.4 Java client
sent to the listener on a SHARECNV 1 channel, and Hypothesis round trips in both byte orders:
the negotiation of conversations per socket, SPI RESERVE (the client's pool of MsgIds),
MQSTAT's MQSTS, SOCKET_ACTION, the TSHC heartbeat and its answer, which puts are async,
and what a connection's async status says."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.channel.asyncput import TAGS_PER_RESERVE, AsyncPuts, is_async_put, tag_pool
from mqkafka.channel.codec import initial, mqstructs, segments, spi, stat, verbs
from mqkafka.channel.codec.segments import ChannelError, Header, SegType
from mqkafka.channel.heartbeats import heartbeat_answer, take_heartbeats
from mqkafka.channel.settings import ListenerSettings
from mqkafka.cli.common import UserError
from mqkafka.cli.listen import _sharecnv_of
from mqkafka.mq.mqmd import MQMD
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.rules.structs import MD
from tests.unit.channel.observed import client_initial_data
from tests.unit.codecs.strategies import mqmds

ORDERS = st.sampled_from([">", "<"])
ids24 = st.binary(min_size=24, max_size=24)

# What the client sent (hex of the segment bodies, after the header)
RESERVE = (  # SPI verb 6, after the API header: SPI header, SPRU, SPRI (24, 0x00FFFFFF)
    "00000006000000010000002c53505255000000010000000c5350524900000001000000140000001800ffffff"
)
END_CONVERSATION = "0000000100000000000000020000000000000000"  # after MQDISC, cf1 0x38
HEARTBEAT_TSHC = "545348430000001c0109310000000000000000000000011103330000"  # a whole segment


# ---- negotiation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("client_offer", "channel_offer", "agreed"),
    [(10, 0, 0), (10, 1, 1), (0, 1, 0), (1, 1, 1), (10, 5, 5)],
)
def test_conversations_per_socket_are_the_smaller_offer(
    client_offer: int, channel_offer: int, agreed: int
) -> None:
    raw = bytearray(client_initial_data()[28:])
    struct.pack_into(">I", raw, 128, client_offer)
    data = initial.parse_initial(bytes(raw), ">")
    got, answer = initial.negotiate(
        data, ">", qmgr="QM1", max_segment=32_748, max_message=1 << 20, sharecnv=channel_offer
    )
    assert got.sharecnv == agreed
    assert struct.unpack_from(">I", answer, 128)[0] == agreed


def test_a_client_below_fap_9_has_no_conversations() -> None:
    raw = bytearray(client_initial_data()[28:])
    raw[4] = 8
    data = initial.parse_initial(bytes(raw), ">")
    agreed, answer = initial.negotiate(
        data, ">", qmgr="QM1", max_segment=32_748, max_message=1 << 20, sharecnv=1
    )
    assert agreed.sharecnv == 0 and len(answer) == 102


@pytest.mark.parametrize(
    ("given_", "asked", "offered"),
    [({}, "DEV.APP.SVRCONN", 0), ({"A": 1}, "A", 1), ({"A": 1}, "B", 0), ({"A": 10}, "A", 1)],
)
def test_a_channel_offers_at_most_one_conversation(
    given_: dict[str, int], asked: str, offered: int
) -> None:
    assert ListenerSettings("k:9092", sharecnv=given_).sharecnv_of(asked) == offered


@pytest.mark.parametrize(
    ("options", "parsed"),
    [([], {}), (["A.B=1"], {"A.B": 1}), (["A=1", "b=0"], {"A": 1, "b": 0})],
)
def test_the_sharecnv_option(options: list[str], parsed: dict[str, int]) -> None:
    assert _sharecnv_of(options) == parsed


@pytest.mark.parametrize("option", ["A=2", "A=10", "=1", "A", "A=x"])
def test_a_sharecnv_option_other_than_0_or_1_is_refused(option: str) -> None:
    with pytest.raises(UserError, match="--sharecnv"):
        _sharecnv_of([option])


# ---- SPI RESERVE -----------------------------------------------------------------------------


def test_the_observed_reserve_request() -> None:
    request = spi.parse_spi(bytes.fromhex(RESERVE), ">")
    assert (request.verb, request.out_length, request.inout[:4]) == (spi.SPI_RESERVE, 44, b"SPRU")
    assert spi.parse_reserve(request, ">") == (24, 0x00FFFFFF)


@given(ORDERS, st.integers(1, 2**31 - 1), st.integers(1, 24), st.binary(min_size=24, max_size=24))
def test_a_reservation_round_trips(order: str, count: int, offset: int, first: bytes) -> None:
    reservation = spi.Reservation(count, offset, first)
    out = spi.reserve_out(order, reservation)
    assert len(out) == 12 + 8 + 24
    assert spi.parse_reserve_out(out, order) == reservation


@pytest.mark.parametrize(("offset", "first"), [(0, bytes(24)), (25, bytes(24)), (20, bytes(23))])
def test_a_reservation_the_client_refuses_is_not_made(offset: int, first: bytes) -> None:
    with pytest.raises(ValueError, match="tag"):
        spi.reserve_out(">", spi.Reservation(5, offset, first))


@pytest.mark.parametrize(
    ("wanted", "count"), [(0x00FFFFFF, TAGS_PER_RESERVE), (24, 24), (0, 1), (-3, 1)]
)
def test_a_pool_of_tags(wanted: int, count: int) -> None:
    pools = [tag_pool(wanted) for _ in range(50)]
    assert {(p.count, p.offset, len(p.first)) for p in pools} == {(count, 20, 24)}
    assert all(p.first[:4] == b"AMQ " and p.first[16:] == bytes(8) for p in pools)
    assert len({p.first for p in pools}) == 50


def test_a_short_spri_is_a_channel_error() -> None:
    request = spi.parse_spi(bytes.fromhex(RESERVE)[:-8], ">")
    with pytest.raises(ChannelError):
        spi.parse_reserve(request, ">")


# ---- MQSTAT ----------------------------------------------------------------------------------


def test_the_observed_mqstat_request() -> None:
    body = bytes(4) + stat.STS_ID + struct.pack(">i", 1) + bytes(stat.STS_V1_LENGTH - 8)
    request = stat.parse_stat(body, ">")
    assert request.stat_type == stat.STAT_TYPE_ASYNC_ERROR and len(request.sts) == 224


names = st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=48)
statuses = st.builds(
    stat.PutStatus,
    st.integers(0, 2), st.integers(0, 3000), st.integers(0, 2**31 - 1),
    st.integers(0, 2**31 - 1), st.integers(0, 2**31 - 1), st.integers(0, 13),
    names, names, names, names,
)  # fmt: skip


@given(ORDERS, statuses, st.binary(max_size=40))
def test_an_mqsts_round_trips_and_keeps_what_a_later_version_adds(
    order: str, status: stat.PutStatus, tail: bytes
) -> None:
    sts = stat.new_sts(order, version=2 if tail else 1) + tail
    filled = stat.sts_filled(sts, order, status)
    assert stat.parse_sts(filled, order) == status
    assert filled[stat.STS_V1_LENGTH :] == tail and filled[:8] == sts[:8]
    body = stat.stat_bytes(stat.STAT_TYPE_ASYNC_ERROR, filled, order)
    assert stat.parse_stat(body, order).sts == filled


@pytest.mark.parametrize(
    "body", [b"", bytes(4) + b"STAT" + bytes(100), bytes(4) + b"XXXX" + bytes(220)]
)
def test_an_mqstat_without_a_whole_mqsts_is_a_channel_error(body: bytes) -> None:
    with pytest.raises(ChannelError):
        stat.parse_stat(body, ">")


# ---- SOCKET_ACTION and the TSHC heartbeat ----------------------------------------------------


def test_the_observed_end_of_conversation() -> None:
    action = verbs.parse_socket_action(bytes.fromhex(END_CONVERSATION), ">")
    assert action == verbs.SocketAction(1, 0, verbs.ACTION_END_CONVERSATION)


@given(ORDERS, st.lists(st.integers(-(2**31), 2**31 - 1), min_size=5, max_size=5))
def test_a_socket_action_round_trips(order: str, fields: list[int]) -> None:
    action = verbs.SocketAction(*fields)
    assert verbs.parse_socket_action(action.to_bytes(order), order) == action


def test_a_short_socket_action_is_a_channel_error() -> None:
    with pytest.raises(ChannelError):
        verbs.parse_socket_action(bytes(19), ">")


def test_the_observed_heartbeat_and_its_answer() -> None:
    asked = segments.parse_header(bytes.fromhex(HEARTBEAT_TSHC))
    assert (asked.common, asked.multiplexed, asked.seg_type, asked.flags1) == (
        True, False, SegType.HEARTBEAT, 0x31,
    )  # fmt: skip
    template = Header(SegType.MQPUT, multiplexed=True, conversation=1, request=7)
    answer = heartbeat_answer(template, asked).to_bytes()
    assert answer.hex() == HEARTBEAT_TSHC.replace("0109310", "0109300")


tsh_headers = st.builds(
    Header,
    seg_type=st.sampled_from(list(SegType)),
    flags1=st.integers(0, 255),
    byte_order=st.sampled_from([segments.BIG, segments.LITTLE]),
    luw=st.binary(min_size=8, max_size=8),
    encoding=st.integers(0, 0xFFFF_FFFF),
    ccsid=st.integers(0, 0xFFFF),
    common=st.booleans(),
)


@given(tsh_headers, st.binary(max_size=64))
def test_a_tsh_or_tshc_header_round_trips(header: Header, body: bytes) -> None:
    header = header.for_body(header.seg_type, len(body), header.flags1)
    segment = header.to_bytes() + body
    assert segment[:4] == (b"TSHC" if header.common else b"TSH ")
    assert segments.parse_header(segment) == header


@given(st.lists(st.sampled_from([0x31, 0x30]), max_size=5), st.binary(max_size=60))
def test_heartbeats_at_the_head_are_taken_and_the_rest_stays(flags: list[int], rest: bytes) -> None:
    beat = bytes.fromhex(HEARTBEAT_TSHC)
    beats = b"".join(beat[:10] + bytes([f]) + beat[11:] for f in flags)
    after = b"TSHM" + rest  # the next flow: not a heartbeat
    inbox = bytearray(beats + after)
    asked = take_heartbeats(inbox)
    assert [h.flags1 for h in asked] == [f for f in flags if f & 1]
    assert bytes(inbox) == after


def test_a_cut_heartbeat_stays_for_the_next_read() -> None:
    inbox = bytearray(bytes.fromhex(HEARTBEAT_TSHC)[:20])
    assert take_heartbeats(inbox) == [] and len(inbox) == 20


# ---- which puts are asynchronous -------------------------------------------------------------


def _put_body(options: int, md_version: int = 2, od_version: int | None = None) -> bytes:
    pmo = mqstructs.new_struct(mqstructs.PMO_KIND, 2, ">", Options=options)
    rest = mqstructs.md_bytes(MD(Version=md_version), ">", md_version) + pmo.to_bytes(">")
    if od_version is not None:
        rest = mqstructs.new_struct(mqstructs.OD_KIND, od_version, ">").to_bytes(">") + rest
    return rest + struct.pack(">i", 2) + b"hi"


ASYNC, SYNC = C.MQPMO_ASYNC_RESPONSE, C.MQPMO_SYNC_RESPONSE


@pytest.mark.parametrize(
    ("seg_type", "options", "md_version", "od_version", "expected"),
    [
        (SegType.MQPUT, ASYNC, 2, None, True),
        (SegType.MQPUT, ASYNC | C.MQPMO_SYNCPOINT, 1, None, True),
        (SegType.MQPUT, SYNC, 2, None, False),
        (SegType.MQPUT, ASYNC | SYNC, 2, None, False),  # both: the MQI's 2046, answered
        (SegType.MQPUT, C.MQPMO_NO_SYNCPOINT, 2, None, False),
        (SegType.MQPUT1, ASYNC, 2, 1, True),
        (SegType.MQPUT1, ASYNC, 2, 4, True),
        (SegType.MQPUT1, SYNC, 1, 2, False),
        (SegType.MQGET, ASYNC, 2, None, False),
    ],
)
def test_which_puts_are_asynchronous(
    seg_type: int, options: int, md_version: int, od_version: int | None, expected: bool
) -> None:
    assert is_async_put(seg_type, _put_body(options, md_version, od_version), ">") is expected


@pytest.mark.parametrize("cut", [0, 6, 300, 370])
def test_a_cut_put_is_not_taken_for_async(cut: int) -> None:
    assert not is_async_put(SegType.MQPUT, _put_body(ASYNC)[:cut], ">")


# ---- a connection's async status -------------------------------------------------------------


def test_the_first_failure_is_told_with_the_counts_then_they_start_again() -> None:
    puts = AsyncPuts()
    puts.succeeded()
    puts.refused(2, 2051, "Q.ONE", "QM1")
    puts.refused(1, 2049, "Q.TWO", "QM1")
    puts.refused(2, 2053, "Q.THREE", "QM1")
    puts.succeeded()
    assert puts.take(stat.STAT_TYPE_ASYNC_ERROR) == stat.PutStatus(
        comp=2, reason=2051, succeeded=2, warned=1, failed=2,
        object_name="Q.ONE", object_qmgr="QM1", resolved_name="Q.ONE", resolved_qmgr="QM1",
    )  # fmt: skip
    assert puts.take(stat.STAT_TYPE_ASYNC_ERROR) == stat.PutStatus()


def test_a_reconnection_status_is_empty_and_leaves_the_counts() -> None:
    puts = AsyncPuts()
    puts.succeeded()
    assert puts.take(stat.STAT_TYPE_RECONNECTION) == stat.PutStatus(object_type=0)
    assert puts.take(stat.STAT_TYPE_ASYNC_ERROR).succeeded == 1


@pytest.mark.parametrize("order", [">", "<"])
def test_the_last_outcome_reads_as_an_api_header(order: str) -> None:
    puts = AsyncPuts()
    puts.refused(2, 2051, "Q", "QM1")
    failed = verbs.parse_api(puts.last_header(order), order)[0]
    puts.succeeded()
    done = verbs.parse_api(puts.last_header(order), order)[0]
    assert (failed.comp, done.comp) == (2, 0)


# ---- the MQMD seen again but for its MsgId (a stream of async puts) --------------------------


@given(mqmds(), ORDERS, st.sampled_from([1, 2]), st.lists(ids24, min_size=1, max_size=4))
def test_an_mqmd_seen_again_reads_as_the_plain_codec_reads_it(
    mqmd: MQMD, order: str, version: int, msg_ids: list[bytes]
) -> None:
    template = MD.from_mqmd(mqmd)
    for msg_id in msg_ids:  # the first read fills the cache, the others come from it
        template.MsgId = msg_id
        wire = mqstructs.md_bytes(template, order, version)
        fast, size = mqstructs.parse_md_fast(wire, order)
        slow, slow_size = mqstructs.parse_md(wire, order)
        assert (fast.get(), size) == (slow.get(), slow_size)
        fast.CorrelId = b"changed by the MQI"  # an MD the MQI fills in is its own
    again, _ = mqstructs.parse_md_fast(wire, order)
    assert again.get() == slow.get()
