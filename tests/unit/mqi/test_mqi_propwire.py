"""Message properties on the wire (pure): headers and <usr> round trips, and where MQGET puts
them by MQGMO_PROPERTIES_* (propdelivery's table)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqkafka.mqi import CMQC as C
from mqkafka.mqi import MD, RFH2, MessageHandle
from mqkafka.mqi.rules.propdelivery import deliver_properties, publication_parts
from mqkafka.mqi.rules.propwire import from_headers, from_usr, to_headers, usr_folder

names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,11}", fullmatch=True)
text = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters=" \t\r\n"),
    min_size=1,
    max_size=20,
)
values = st.one_of(
    st.tuples(st.just(C.MQTYPE_STRING), text.map(str.encode)),
    st.tuples(st.just(C.MQTYPE_INT8), st.integers(-128, 127)),
    st.tuples(st.just(C.MQTYPE_INT16), st.integers(-(2**15), 2**15 - 1)),
    st.tuples(st.just(C.MQTYPE_INT32), st.integers(-(2**31), 2**31 - 1)),
    st.tuples(st.just(C.MQTYPE_INT64), st.integers(-(2**63), 2**63 - 1)),
    st.tuples(st.just(C.MQTYPE_BOOLEAN), st.booleans()),
    st.tuples(st.just(C.MQTYPE_BYTE_STRING), st.binary(min_size=1, max_size=16)),
    st.tuples(st.just(C.MQTYPE_FLOAT64), st.floats(allow_nan=False, allow_infinity=False)),
    st.tuples(st.just(C.MQTYPE_NULL), st.none()),
)
properties = st.dictionaries(names, values, max_size=6)


@settings(max_examples=40, deadline=None)
@given(properties)
def test_headers_round_trip(props: dict[str, tuple[int, Any]]) -> None:
    assert from_headers(dict(to_headers(props))) == props


@settings(max_examples=40, deadline=None)
@given(properties)
def test_usr_folder_round_trip(props: dict[str, tuple[int, Any]]) -> None:
    assert from_usr(usr_folder(props)) == props


def test_dotted_names_are_groups_and_usr_prefix_is_the_same_property() -> None:
    props = {
        "a.b": (C.MQTYPE_INT32, 1),
        "a.c": (C.MQTYPE_STRING, b"x"),
        "usr.d": (C.MQTYPE_STRING, b"y"),
    }
    folder = usr_folder(props)
    assert folder == '<usr><a><b dt="i4">1</b><c>x</c></a><d>y</d></usr>'
    assert from_usr(folder) == {
        "a.b": (C.MQTYPE_INT32, 1),
        "a.c": (C.MQTYPE_STRING, b"x"),
        "d": (C.MQTYPE_STRING, b"y"),
    }
    assert ("mqprop.d", b"y") in to_headers(props)


@pytest.mark.parametrize(
    "headers, expected",
    [
        ({"mqprop.n": b"12", "mqtype.n": b"i4"}, {"n": (C.MQTYPE_INT32, 12)}),
        ({"mqprop.n": b"twelve", "mqtype.n": b"i4"}, {"n": (C.MQTYPE_STRING, b"twelve")}),
        ({"mqprop.n": b"1", "mqtype.n": b"nonsense"}, {"n": (C.MQTYPE_STRING, b"1")}),
        ({"mqprop.n": None}, {"n": (C.MQTYPE_STRING, b"")}),
        ({"mqmd.MsgId": b"x" * 24, "traceparent": b"00-ab"}, {}),
    ],
)
def test_headers_that_do_not_read_as_typed_are_strings(
    headers: dict[str, bytes | None], expected: dict[str, tuple[int, Any]]
) -> None:
    assert from_headers(headers) == expected


def test_an_unreadable_usr_folder_or_value_is_skipped() -> None:
    assert from_usr("<usr><a>") == {}
    assert from_usr('<usr><a dt="i4">x</a><b>ok</b></usr>') == {"b": (C.MQTYPE_STRING, b"ok")}


HEADERS = {"mqprop.p": b"7", "mqtype.p": b"i4"}

# MQGMO option, a handle given -> (properties in the handle, an MQRFH2 before the data)
DELIVERY = [
    (C.MQGMO_PROPERTIES_AS_Q_DEF, True, True, False),
    (C.MQGMO_PROPERTIES_AS_Q_DEF, False, False, True),
    (C.MQGMO_PROPERTIES_COMPATIBILITY, False, False, True),
    (C.MQGMO_PROPERTIES_IN_HANDLE, True, True, False),
    (C.MQGMO_PROPERTIES_IN_HANDLE, False, False, False),
    (C.MQGMO_NO_PROPERTIES, True, False, False),
    (C.MQGMO_NO_PROPERTIES, False, False, False),
    (C.MQGMO_PROPERTIES_FORCE_MQRFH2, True, False, True),
    (C.MQGMO_PROPERTIES_FORCE_MQRFH2, False, False, True),
]


@pytest.mark.parametrize("option, with_handle, in_handle, rfh2", DELIVERY)
def test_where_mqget_puts_properties(
    option: int, with_handle: bool, in_handle: bool, rfh2: bool
) -> None:
    handle = MessageHandle() if with_handle else None
    if handle is not None:
        handle.properties.set("stale", b"from an earlier message")
    md = MD(Format=C.MQFMT_STRING)
    data = deliver_properties(b"data", md, option, HEADERS, handle, False)
    if handle is not None:
        assert handle.get_all_properties() == (
            {"p": 7} if in_handle else {"stale": "from an earlier message"}
        )
    if rfh2:
        header = RFH2()
        header.unpack(data)
        assert md.Format == C.MQFMT_RF_HEADER_2 and header["Format"] == C.MQFMT_STRING
        assert header["usr"].rstrip() == b'<usr><p dt="i4">7</p></usr>'
        assert data[header["StrucLength"] :] == b"data"
    else:
        assert data == b"data" and md.Format == C.MQFMT_STRING


def _publication() -> tuple[bytes, MD]:
    header = RFH2(Format=C.MQFMT_STRING, CodedCharSetId=1208)
    header.add_folder(b"<psc><Command>Publish</Command><Topic>a/b</Topic></psc>")
    header.add_folder(b'<usr><q dt="boolean">true</q></usr>')
    return header.pack() + b"body", MD(Format=C.MQFMT_RF_HEADER_2)


def test_an_mqsub_subscriber_gets_the_data_alone_and_usr_as_properties() -> None:
    data, md = _publication()
    handle = MessageHandle()
    assert deliver_properties(data, md, 0, {}, handle, True) == b"body"
    assert handle.get_all_properties() == {"q": True} and md.Format == C.MQFMT_STRING
    data, md = _publication()
    assert deliver_properties(data, md, C.MQGMO_PROPERTIES_FORCE_MQRFH2, {}, None, True) == data
    data, md = _publication()
    assert publication_parts(data, md) == (b"body", {"q": (C.MQTYPE_BOOLEAN, True)})


def test_an_mqsub_subscriber_gets_the_publishers_own_mqrfh2_with_the_data() -> None:
    """pymqi's Topic.pub_rfh2: the publisher's MQRFH2 is its data; only the queued
    interface's header goes (its <usr> the properties), the MQMD then says MQHRF2, 273."""
    own = RFH2(Format=C.MQFMT_STRING, Encoding=273, CodedCharSetId=1208)
    own.add_folder(b"<testFolder><testVar>testValue</testVar></testFolder>")
    queued = RFH2(Format=C.MQFMT_RF_HEADER_2, Encoding=273, CodedCharSetId=1208)
    queued.add_folder(b"<psc><Command>Publish</Command><Topic>a/b</Topic></psc>")
    queued.add_folder(b'<usr><q dt="boolean">true</q></usr>')
    mine = own.pack(273) + b"body"
    md = MD(Format=C.MQFMT_RF_HEADER_2)
    assert publication_parts(queued.pack() + mine, md) == (mine, {"q": (C.MQTYPE_BOOLEAN, True)})
    assert md.Format == C.MQFMT_RF_HEADER_2 and md.Encoding == 273


def test_a_regsub_subscriber_keeps_the_publication_as_it_is_queued() -> None:
    data, md = _publication()
    assert deliver_properties(data, md, 0, {"mqprop.q": b"true"}, None, False) == data
