"""The channel codec against what IBM's client sent (protocol notes, transcripts), and
Hypothesis round trips of every structure in both byte orders."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.channel.codec import initial, mqstructs, segments, spi, verbs
from mqkafka.channel.codec.segments import ChannelError, Flags1, Header, Reassembler, SegType
from mqkafka.mq.mqmd import MQMD
from mqkafka.mqi.rules.structs import GMO, MD, OD
from tests.unit.channel.observed import client_initial_data
from tests.unit.codecs.strategies import mqmds

ORDERS = st.sampled_from([">", "<"])


# ---- the observed handshake ---------------------------------------------------------------


def test_the_clients_initial_data_reads_as_the_notes_decode_it() -> None:
    raw = client_initial_data()
    header = segments.parse_header(raw)
    assert (header.seg_type, header.length, header.flags1) == (SegType.INITIAL_DATA, 268, 0x31)
    assert (header.encoding, header.ccsid, header.byte_order) == (0x111, 819, segments.BIG)
    data = initial.parse_initial(raw[28:], header.order)
    assert (data.fap, data.max_segment, data.max_message) == (17, 32_748, 104_857_600)
    assert (data.channel, data.qmgr, data.heartbeat, data.sharecnv) == (
        "DEV.APP.SVRCONN",
        "QM1",
        1,
        10,
    )
    assert (data.cf1, data.cf2, data.cf3) == (0x26, 0x51, 0x28)


def test_the_answer_carries_the_agreed_values_and_echoes_the_rest() -> None:
    raw = client_initial_data()
    data = initial.parse_initial(raw[28:], ">")
    agreed, answer = initial.negotiate(
        data, ">", qmgr="QM1", max_segment=32_748, max_message=4 * 1024 * 1024
    )
    assert agreed == initial.Agreed(fap=17, max_segment=32_748, max_message=4 << 20, heartbeat=300)
    again = initial.parse_initial(answer, ">")
    assert (again.fap, again.sharecnv, again.heartbeat, again.max_message) == (17, 0, 300, 4 << 20)
    assert (again.cf2, again.cf3) == (0x51 & 0xAF, 0x28 & 0xF7)
    assert answer[208:228] == raw[28 + 208 : 28 + 228]  # the protection list, echoed
    assert answer[7] == 0 and len(answer) == 240


@pytest.mark.parametrize(
    ("fap", "size", "agreed"),
    [(8, 102, 8), (9, 208, 9), (10, 208, 10), (12, 240, 12), (17, 240, 17)],
)
def test_a_lower_fap_level_is_followed_with_its_own_id_size(
    fap: int, size: int, agreed: int
) -> None:
    raw = bytearray(client_initial_data()[28:])
    raw[4] = fap
    data = initial.parse_initial(bytes(raw), ">")
    level, answer = initial.negotiate(
        data, ">", qmgr="QM1", max_segment=32_748, max_message=1 << 20
    )
    assert (level.fap, len(answer), answer[4]) == (agreed, size, agreed)


@pytest.mark.parametrize(
    ("change", "status"),
    [
        ({4: 3}, segments.STATUS_FAP_LEVEL),  # FAP 3: no QM name or CCSID in the ID
        ({12: 0, 13: 0, 14: 0x01, 15: 0}, segments.STATUS_NEGOTIATION_FAILED),  # 256-byte segments
        ({0: ord("X")}, segments.STATUS_NEGOTIATION_FAILED),  # not an ID
    ],
)
def test_an_unacceptable_negotiation_is_a_channel_error(
    change: dict[int, int], status: int
) -> None:
    raw = bytearray(client_initial_data()[28:])
    for at, value in change.items():
        raw[at] = value
    with pytest.raises(ChannelError) as caught:
        data = initial.parse_initial(bytes(raw), ">")
        initial.negotiate(data, ">", qmgr="QM1", max_segment=32_748, max_message=1 << 20)
    assert caught.value.status == status


def test_the_user_id_segment() -> None:
    assert initial.parse_user(initial.user_segment("ROOT", long_user="root")) == "ROOT"
    assert initial.parse_user(initial.user_segment("", long_user="longname")) == "longname"
    with pytest.raises(ChannelError):
        initial.parse_user(b"XYZ " + bytes(40))


# ---- framing --------------------------------------------------------------------------------


headers = st.builds(
    Header,
    seg_type=st.sampled_from(list(SegType)),
    flags1=st.integers(0, 255),
    flags2=st.integers(0, 255),
    byte_order=st.sampled_from([segments.BIG, segments.LITTLE]),
    luw=st.binary(min_size=8, max_size=8),
    encoding=st.integers(0, 0xFFFF_FFFF),
    ccsid=st.integers(0, 0xFFFF),
    multiplexed=st.booleans(),
    conversation=st.integers(0, 0xFFFF_FFFF),
    request=st.integers(0, 0xFFFF_FFFF),
)


@given(headers, st.binary(max_size=64))
def test_a_header_round_trips(header: Header, body: bytes) -> None:
    if not header.multiplexed:
        header = Header(**{**header.__dict__, "conversation": 0, "request": 0})
    header = header.for_body(header.seg_type, len(body), header.flags1)
    assert segments.parse_header(header.to_bytes() + body) == header


@given(st.binary(max_size=5000), st.integers(200, 2000), headers)
def test_split_and_reassembly_give_the_flow_back(body: bytes, size: int, template: Header) -> None:
    template = Header(**{**template.__dict__, "seg_type": SegType.MQPUT, "multiplexed": False})
    parts = segments.split(template, SegType.MQGET + 0x10, body, size)
    assert all(len(p) <= size for p in parts)
    again = Reassembler(max_flow=10_000)
    done = None
    for index, part in enumerate(parts):
        header = segments.parse_header(part)
        assert bool(header.flags1 & Flags1.FIRST) == (index == 0)
        assert bool(header.flags1 & Flags1.LAST) == (index == len(parts) - 1)
        done = again.add(header, part[header.size :])
        assert (done is None) == (index < len(parts) - 1)
    assert done is not None and done[1] == body and done[0].seg_type == SegType.MQGET + 0x10


@pytest.mark.parametrize(
    ("first8", "why"),
    [
        (b"XSH \x00\x00\x00\x30", "not TSH"),
        (b"TSH \x00\x00\x00\x10", "shorter than its header"),
        (b"TSH \x7f\x00\x00\x00", "larger than the limit"),
        (b"TSH", "cut short"),
    ],
)
def test_malformed_segment_starts_are_channel_errors(first8: bytes, why: str) -> None:
    with pytest.raises(ChannelError):
        segments.peek_length(first8, 1 << 20)


def test_a_flow_beyond_the_message_limit_is_refused() -> None:
    assembler = Reassembler(max_flow=100)
    head = Header(SegType.MQPUT, flags1=Flags1.FIRST)
    assembler.add(head, bytes(60))
    with pytest.raises(ChannelError):
        assembler.add(Header(SegType.MQPUT, flags1=0), bytes(60))


def test_a_middle_segment_without_a_first_is_refused() -> None:
    with pytest.raises(ChannelError):
        Reassembler(1000).add(Header(SegType.MQPUT, flags1=Flags1.LAST), b"x")


# ---- structures -----------------------------------------------------------------------------


def _values(kind: mqstructs.Kind, version: int, data: st.DataObject) -> dict[str, int | bytes]:
    values: dict[str, int | bytes] = {}
    for layout in kind.versions[:version]:
        for name, code in layout:
            if name == "StrucId":
                values[name] = kind.struc_id
            elif name == "Version":
                values[name] = version
            elif code.endswith("s"):
                values[name] = data.draw(
                    st.binary(min_size=int(code[:-1]), max_size=int(code[:-1]))
                )
            elif code == "B":
                values[name] = data.draw(st.integers(0, 255))
            elif code == "q":
                values[name] = data.draw(st.integers(-(2**63), 2**63 - 1))
            else:
                values[name] = data.draw(st.integers(-(2**31), 2**31 - 1))
    return values


KINDS = [(mqstructs.OD_KIND, 4), (mqstructs.PMO_KIND, 3), (mqstructs.GMO_KIND, 4)]


@given(st.data(), st.sampled_from(KINDS), ORDERS)
def test_od_pmo_gmo_round_trip_in_every_version(
    data: st.DataObject, kind_top: tuple[mqstructs.Kind, int], order: str
) -> None:
    kind, top = kind_top
    version = data.draw(st.integers(1, top))
    values = _values(kind, version, data)
    wire = mqstructs.WireStruct(kind, version, values)
    raw = wire.to_bytes(order)
    assert len(raw) == kind.size(version)
    again = mqstructs.parse_struct(kind, b"pad!" + raw, order, 4)
    assert again.values == values


@pytest.mark.parametrize("order", [">", "<"])
def test_the_mqi_structure_comes_out_and_goes_back(order: str) -> None:
    gmo = mqstructs.new_struct(
        mqstructs.GMO_KIND, 3, order, Options=0x5, WaitInterval=1000, MatchOptions=3
    )
    raw = gmo.to_bytes(order)
    assert struct.unpack_from(order + "i", raw, 12)[0] == 1000  # WaitInterval at 12
    assert struct.unpack_from(order + "i", raw, 72)[0] == 3  # MatchOptions at 72
    mqi = mqstructs.parse_struct(mqstructs.GMO_KIND, raw, order).to_mqi()
    assert isinstance(mqi, GMO)
    assert (mqi.Options, mqi.WaitInterval, mqi.Version) == (5, 1000, 3)
    mqi.ResolvedQName = b"DEV.QUEUE.1"
    mqi.ReturnedLength = 5
    back = mqstructs.parse_struct(mqstructs.GMO_KIND, raw, order).updated(mqi)
    assert back["ResolvedQName"] == b"DEV.QUEUE.1".ljust(48, b" ")
    assert back["ReturnedLength"] == 5 and back.version == 3
    od = mqstructs.new_struct(mqstructs.OD_KIND, 2, order, ObjectName=b"DEV.QUEUE.1")
    made = od.to_mqi()
    assert isinstance(made, OD)
    assert (made.ObjectName, made.DynamicQName) == (b"DEV.QUEUE.1", b"AMQ.*")


@given(ORDERS, st.sampled_from([1, 2]), st.binary(min_size=24, max_size=24))
def test_an_mqmd_travels_in_either_version_and_order(order: str, version: int, ids: bytes) -> None:
    md = MD(MsgId=ids, CorrelId=ids[::-1], Format=b"MQSTR   ", Priority=4, ReplyToQ=b"R.Q")
    raw = mqstructs.md_bytes(md, order, version)
    assert len(raw) == (324 if version == 1 else 364)
    again, size = mqstructs.parse_md(raw + b"data", order)
    assert size == len(raw) and again.Version == version
    assert (again.MsgId, again.CorrelId, again.Priority) == (ids, ids[::-1], 4)
    assert again.ReplyToQ == b"R.Q"


@given(mqmds(), ORDERS, st.sampled_from([1, 2]))
def test_the_fast_mqmd_path_agrees_with_the_mqmd_codec(
    mqmd: MQMD, order: str, version: int
) -> None:
    md = MD.from_mqmd(mqmd)
    plain = mqstructs.md_bytes(md, order, version)
    assert mqstructs.md_bytes_fast(md, order, version) == plain
    slow, slow_size = mqstructs.parse_md(plain, order)
    fast, fast_size = mqstructs.parse_md_fast(plain, order)
    assert fast_size == slow_size and fast.get() == slow.get()


# ---- verbs ----------------------------------------------------------------------------------


@given(
    ORDERS,
    st.lists(st.integers(1, 3000), max_size=20),
    st.lists(st.integers(-(2**31), 2**31 - 1), max_size=20),
    st.binary(max_size=300),
)
def test_inq_lists_round_trip(
    order: str, selectors: list[int], ints: list[int], chars: bytes
) -> None:
    request = verbs.InqRequest(tuple(selectors), len(ints), len(chars), tuple(ints), chars)
    raw = verbs.inq_bytes(request, order)
    assert verbs.parse_inq(raw, order, with_values=True) == request
    assert verbs.parse_inq(raw, order) == verbs.InqRequest(tuple(selectors), len(ints), len(chars))


def test_the_observed_inq_sizes() -> None:
    # MQINQ (31, 32, 2, 2015, 2032, 273), 4 ints, 100 chars: request body 52, reply 168.
    request = verbs.InqRequest((31, 32, 2, 2015, 2032, 273), 4, 100)
    assert verbs.API_LENGTH + 12 + 4 * 6 == 52
    reply = verbs.reply_body(">", 0, 0, 1, verbs.inq_bytes(request, ">"))
    assert len(reply) == 168 and struct.unpack(">I", reply[:4])[0] == 168


@given(ORDERS, st.integers(0, 2**31 - 1), st.integers(0, 3000), st.integers(0, 2**31 - 1))
def test_the_api_header_round_trips(order: str, length: int, reason: int, hobj: int) -> None:
    header = verbs.ApiHeader(length, 2, reason, hobj)
    parsed, rest = verbs.parse_api(header.to_bytes(order) + b"rest", order)
    assert (parsed, rest) == (header, b"rest")


def test_the_fopa_gets_the_objects_defaults() -> None:
    fopa = b"FOPA" + struct.pack(">ii", 1, 28) + bytes(16)
    filled = verbs.fopa_filled(fopa, ">", persistence=1)
    assert struct.unpack(">iiii", filled[12:28]) == (1, 1, 0, 0)
    assert verbs.fopa_filled(b"XX", ">") == b"XX"


def test_status_and_conn() -> None:
    assert verbs.parse_status(verbs.status_body(">", 243), ">") == 243
    assert verbs.parse_status(b"", ">") == 0
    conn = b"QM1".ljust(48) + b"MqiProbe".ljust(28) + bytes(100)
    assert (verbs.conn_qmgr(conn), verbs.conn_appl_name(conn)) == ("QM1", "MqiProbe")


@given(ORDERS, st.binary(max_size=300), st.integers(0, 7))
def test_spi_put_reads_what_the_client_sends(order: str, message: bytes, options: int) -> None:
    md = mqstructs.md_bytes(MD(), order, 2)
    pmo = mqstructs.new_struct(mqstructs.PMO_KIND, 1, order).to_bytes(order)
    sppu = spi.spi_struct(b"SPPU", order, md + pmo)
    sppi = spi.spi_struct(b"SPPI", order, struct.pack(order + "ii", options, len(message)))
    body = struct.pack(order + "iii", spi.SPI_PUT, 1, 12) + sppu + sppi + message
    request = spi.parse_spi(body, order)
    assert (request.verb, len(request.inout)) == (spi.SPI_PUT, 504)
    put = spi.parse_put(request, order)
    assert (put.options, put.data) == (options, message)
    reply = spi.spi_reply(request, order, request.inout, spi.put_out(order))
    assert len(reply) == 12 + 504 + 12  # the observed SPI PUT reply: 544 with the API header


def test_spi_query_reply_has_the_observed_size() -> None:
    body = struct.pack(">iii", spi.SPI_QUERY, 1, 256) + spi.spi_struct(b"SPQU", ">")
    body += spi.spi_struct(b"SPQI", ">")
    request = spi.parse_spi(body, ">")
    reply = spi.spi_reply(request, ">", request.inout, spi.query_out(">"))
    assert verbs.API_LENGTH + len(reply) == 56
