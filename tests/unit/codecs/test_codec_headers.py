"""The MQMD as Kafka record headers (wire contract §2)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import MQFMT_RF_HEADER_2, MQMD, MQMD_DEFAULT, MQMT, MQRO
from mqkafka.mq.reasons import RC
from mqkafka.wire.headers import mqmd_from_headers, mqmd_to_headers

from .strategies import mqmds


def test_default_mqmd_writes_no_headers() -> None:
    """Wire contract: one header per MQMD field that differs from its default."""
    assert mqmd_to_headers(MQMD_DEFAULT) == []


# One row per encoding kind of the wire-contract table.
ENCODED = [
    ({"MsgId": b"m" * 24}, ("mqmd.MsgId", b"m" * 24)),
    ({"CorrelId": bytes(range(24))}, ("mqmd.CorrelId", bytes(range(24)))),
    ({"GroupId": b"g" * 24}, ("mqmd.GroupId", b"g" * 24)),
    ({"AccountingToken": b"a" * 32}, ("mqmd.AccountingToken", b"a" * 32)),
    ({"Format": MQFMT_RF_HEADER_2}, ("mqmd.Format", b"MQHRF2")),
    ({"ReplyToQ": "REPLY.Q  "}, ("mqmd.ReplyToQ", b"REPLY.Q")),
    ({"ReplyToQMgr": "QM1"}, ("mqmd.ReplyToQMgr", b"QM1")),
    ({"UserIdentifier": "josé"}, ("mqmd.UserIdentifier", "josé".encode())),
    ({"PutApplName": "app"}, ("mqmd.PutApplName", b"app")),
    ({"PutDate": "20240131"}, ("mqmd.PutDate", b"20240131")),
    ({"PutTime": "23595999"}, ("mqmd.PutTime", b"23595999")),
    ({"ApplIdentityData": "id"}, ("mqmd.ApplIdentityData", b"id")),
    ({"ApplOriginData": "or"}, ("mqmd.ApplOriginData", b"or")),
    ({"MsgType": MQMT.REQUEST}, ("mqmd.MsgType", b"1")),
    ({"Report": MQRO.PASS_CORREL_ID | MQRO.NAN}, ("mqmd.Report", b"66")),
    ({"Feedback": 275}, ("mqmd.Feedback", b"275")),
    ({"Encoding": 273}, ("mqmd.Encoding", b"273")),
    ({"CodedCharSetId": 819}, ("mqmd.CodedCharSetId", b"819")),
    ({"Priority": 0}, ("mqmd.Priority", b"0")),
    ({"Persistence": 1}, ("mqmd.Persistence", b"1")),
    ({"Expiry": 100}, ("mqmd.Expiry", b"100")),
    ({"BackoutCount": 2}, ("mqmd.BackoutCount", b"2")),
    ({"PutApplType": 26}, ("mqmd.PutApplType", b"26")),
    ({"MsgSeqNumber": 3}, ("mqmd.MsgSeqNumber", b"3")),
    ({"Offset": -5}, ("mqmd.Offset", b"-5")),
    ({"MsgFlags": 8}, ("mqmd.MsgFlags", b"8")),
    ({"OriginalLength": 0}, ("mqmd.OriginalLength", b"0")),
]


@pytest.mark.parametrize(("changes", "header"), ENCODED)
def test_each_field_is_encoded_as_the_contract_says(
    changes: dict[str, object], header: tuple[str, bytes]
) -> None:
    md = MQMD(**changes)  # type: ignore[arg-type]
    assert mqmd_to_headers(md) == [header]
    assert mqmd_from_headers([header]) == (md, [])


@given(mqmds())
def test_any_mqmd_round_trips_exactly(md: MQMD) -> None:
    headers = mqmd_to_headers(md)
    assert mqmd_from_headers(headers) == (md, [])


@given(mqmds())
def test_a_writer_never_writes_a_header_twice(md: MQMD) -> None:
    names = [name for name, _ in mqmd_to_headers(md)]
    assert len(names) == len(set(names))
    assert all(name.startswith("mqmd.") for name in names)


def test_unknown_headers_are_kept_in_order_for_forwarding() -> None:
    """Wire contract: a reader must accept headers it does not know and keep them."""
    others = [("trace-id", b"abc"), ("mqmd.NotAField", b"1"), ("empty", None), ("x", b"")]
    md, kept = mqmd_from_headers([("mqmd.Priority", b"4"), *others])
    assert md == MQMD(Priority=4)
    assert kept == others


@pytest.mark.parametrize("headers", [None, [], ()])
def test_no_headers_is_the_default_mqmd(headers: list[tuple[str, bytes]] | None) -> None:
    assert mqmd_from_headers(headers) == (MQMD_DEFAULT, [])


def test_lenient_text_trailing_blanks() -> None:
    md, _ = mqmd_from_headers([("mqmd.ReplyToQ", b"Q1   "), ("mqmd.Format", b"MQSTR   ")])
    assert (md.ReplyToQ, md.Format) == ("Q1", "MQSTR   ")


BAD_HEADERS = [
    ([("mqmd.Priority", b"high")], "mqmd.Priority"),
    ([("mqmd.Priority", b" 4")], "mqmd.Priority"),
    ([("mqmd.Priority", b"+4")], "mqmd.Priority"),
    ([("mqmd.Priority", b"4.0")], "mqmd.Priority"),
    ([("mqmd.Priority", b"")], "mqmd.Priority"),
    ([("mqmd.Expiry", b"\xd9\xa3")], "mqmd.Expiry"),  # Arabic-Indic digit: not ASCII decimal
    ([("mqmd.Expiry", b"99999999999")], "mqmd.Expiry"),
    ([("mqmd.Expiry", b"2147483648")], "mqmd.Expiry"),
    ([("mqmd.MsgId", b"x" * 23)], "mqmd.MsgId"),
    ([("mqmd.CorrelId", b"x" * 25)], "mqmd.CorrelId"),
    ([("mqmd.AccountingToken", b"x" * 24)], "mqmd.AccountingToken"),
    ([("mqmd.ReplyToQ", b"\xff\xfe")], "mqmd.ReplyToQ"),
    ([("mqmd.ReplyToQ", b"Q" * 49)], "mqmd.ReplyToQ"),
    ([("mqmd.Format", b"TOOLONGFMT")], "mqmd.Format"),
    ([("mqmd.MsgType", None)], "mqmd.MsgType"),
    ([("mqmd.MsgType", b"1"), ("mqmd.MsgType", b"1")], "mqmd.MsgType"),
]


@pytest.mark.parametrize(("headers", "named"), BAD_HEADERS)
def test_bad_header_values_are_md_error_naming_the_header(
    headers: list[tuple[str, bytes | None]], named: str
) -> None:
    with pytest.raises(MQError) as caught:
        mqmd_from_headers(headers)
    assert caught.value.reason == RC.MD_ERROR
    assert named in caught.value.detail
    assert caught.value.parm == named


KNOWN = st.sampled_from(["mqmd.MsgId", "mqmd.Priority", "mqmd.ReplyToQ", "mqmd.Format", "other"])


@given(st.lists(st.tuples(KNOWN | st.text(max_size=12), st.none() | st.binary(max_size=50))))
def test_fuzz_headers_decode_or_raise_md_error(headers: list[tuple[str, bytes | None]]) -> None:
    try:
        md, others = mqmd_from_headers(headers)
    except MQError as error:
        assert error.reason == RC.MD_ERROR
    else:
        assert mqmd_from_headers(mqmd_to_headers(md) + others) == (md, others)
