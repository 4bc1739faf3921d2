"""The pure pieces of MQGET: match options and tokens, redelivery and BackoutCount, expiry,
records read from headers, the positions a client knows are consumed."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.logreader import Consumed
from mqkafka.mqi.kafkaqm.queuerecord import Rec, fill_md
from mqkafka.mqi.rules.errors import MQMIError
from mqkafka.mqi.rules.matching import Ids, Selection, position_of, selection, token_of
from mqkafka.mqi.rules.redelivery import (
    GiveBack,
    backout_count,
    give_back,
    origin_of,
    remaining_expiry,
    requeue_headers,
)
from mqkafka.mqi.rules.structs import MD

ZERO = bytes(24)
A = b"A" * 24
B = b"B" * 24


class FakeMessage:
    """Shaped like a confluent-kafka Message (what Rec reads)."""

    def __init__(
        self,
        headers: list[tuple[str, bytes]],
        value: bytes = b"",
        *,
        partition: int = 0,
        offset: int = 0,
        stamp_ms: int | None = None,
    ) -> None:
        self._headers, self._value = headers, value
        self._partition, self._offset = partition, offset
        self._stamp = int(time.time() * 1000) if stamp_ms is None else stamp_ms

    def headers(self) -> list[tuple[str, bytes]]:
        return self._headers

    def value(self) -> bytes:
        return self._value

    def key(self) -> None:
        return None

    def partition(self) -> int:
        return self._partition

    def offset(self) -> int:
        return self._offset

    def timestamp(self) -> tuple[int, int]:
        return 1, self._stamp


def choose(version: int, options: int, **md: Any) -> Selection | None:
    return selection(
        version, options, md.get("msg_id", ZERO), md.get("correl_id", ZERO),
        md.get("group_id", ZERO), md.get("seq", 1), md.get("offset", 0), md.get("token", bytes(16)),
    )  # fmt: skip


# ---- MatchOptions --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "options", "md", "expected"),
    [
        (1, 0, {"msg_id": A}, Selection(msg_id=A)),  # v1 MQGMO: MsgId+CorrelId always
        (1, C.MQMO_NONE, {"correl_id": B}, Selection(correl_id=B)),
        (1, 0, {}, None),  # zero ids match anything: no selection
        (2, C.MQMO_NONE, {"msg_id": A, "correl_id": B}, None),  # v2 reads MatchOptions
        (2, C.MQMO_MATCH_CORREL_ID, {"msg_id": A, "correl_id": B}, Selection(correl_id=B)),
        (2, C.MQMO_MATCH_GROUP_ID, {"group_id": A}, Selection(group_id=A)),
        (2, C.MQMO_MATCH_MSG_SEQ_NUMBER, {"seq": 1}, Selection(seq=1)),  # no wildcard
        (2, C.MQMO_MATCH_OFFSET, {"offset": 0}, Selection(offset=0)),
        (3, C.MQMO_MATCH_MSG_TOKEN, {"token": token_of((2, 7))}, Selection(position=(2, 7))),
        (3, C.MQMO_MATCH_MSG_TOKEN, {"token": b"X" * 16}, Selection(unknown_token=True)),
    ],
)
def test_what_an_mqget_selects(
    version: int, options: int, md: dict[str, Any], expected: Selection | None
) -> None:
    assert choose(version, options, **md) == expected


def test_unknown_match_options_are_2247() -> None:
    with pytest.raises(MQMIError) as raised:
        choose(2, 0x40)
    assert raised.value.reason == RC.MATCH_OPTIONS_ERROR


@pytest.mark.parametrize(
    ("chosen", "ids", "position", "accepted"),
    [
        (Selection(correl_id=A), Ids(ZERO, A, ZERO, 1, 0), (0, 1), True),
        (Selection(correl_id=A), Ids(ZERO, B, ZERO, 1, 0), (0, 1), False),
        (Selection(msg_id=A, correl_id=B), Ids(A, B, ZERO, 1, 0), (0, 1), True),
        (Selection(msg_id=A, correl_id=B), Ids(A, A, ZERO, 1, 0), (0, 1), False),
        (Selection(position=(0, 1)), Ids(A, B, ZERO, 1, 0), (0, 1), True),
        (Selection(position=(0, 1)), Ids(A, B, ZERO, 1, 0), (0, 2), False),
        (Selection(unknown_token=True), Ids(A, B, ZERO, 1, 0), (0, 1), False),
    ],
)
def test_selection_accepts(
    chosen: Selection, ids: Ids, position: tuple[int, int], accepted: bool
) -> None:
    assert chosen.accepts(ids, position) is accepted


@given(st.integers(0, 2**31 - 1), st.integers(0, 2**62))
def test_a_token_names_its_position(partition: int, offset: int) -> None:
    token = token_of((partition, offset))
    assert len(token) == C.MQ_MSG_TOKEN_LENGTH
    assert position_of(token) == (partition, offset)


@given(st.binary(max_size=16))
def test_a_foreign_token_names_nothing(raw: bytes) -> None:
    if not raw.startswith(b"MQKT"):
        assert position_of(raw) is None


# ---- redelivery ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("delivery", "limit", "how"),
    [
        (1, 5, GiveBack.RELEASE),
        (3, 5, GiveBack.RELEASE),
        (4, 5, GiveBack.REQUEUE),  # the next release could archive it
        (5, 5, GiveBack.REQUEUE),
        (1, 2, GiveBack.REQUEUE),  # the smallest limit Kafka allows: always requeue
        (8, 10, GiveBack.RELEASE),
    ],
)
def test_give_back_never_lets_kafka_archive_a_message(
    delivery: int, limit: int, how: GiveBack
) -> None:
    assert give_back(delivery, limit) is how


@pytest.mark.parametrize(
    ("delivery", "carried", "count"),
    [(None, 0, 0), (1, 0, 0), (2, 0, 1), (4, 0, 3), (1, 3, 3), (2, 3, 4)],
)
def test_backout_count_is_earlier_deliveries_plus_what_a_copy_carries(
    delivery: int | None, carried: int, count: int
) -> None:
    assert backout_count(delivery, carried) == count


def test_a_requeued_copy_replaces_its_backout_count_and_names_its_origin() -> None:
    headers = [("mqmd.MsgId", A), ("mqmd.BackoutCount", b"1"), ("mqk.origin", b"0:1"), ("x", b"k")]
    assert requeue_headers(headers, 4, (1, 2)) == [
        ("mqmd.MsgId", A), ("x", b"k"), ("mqmd.BackoutCount", b"4"), ("mqk.origin", b"1:2"),
    ]  # fmt: skip
    assert requeue_headers(headers, 0, (0, 9))[-1] == ("mqk.origin", b"0:9")
    assert origin_of(b"1:2") == (1, 2) and origin_of(b"junk") is None and origin_of(None) is None


@pytest.mark.parametrize(
    ("expiry", "put", "now", "left"),
    [
        (C.MQEI_UNLIMITED, 0, 10**9, -1),
        (100, 0, 0, 100),  # tenths of a second
        (100, 0, 2_500, 75),
        (100, 0, 10_000, None),  # expired
        (100, 5_000, 0, 100),  # a put "in the future" (clock skew) is not negative age
    ],
)
def test_expiry_counts_down_in_tenths(expiry: int, put: int, now: int, left: int | None) -> None:
    assert remaining_expiry(expiry, put, now) == left


# ---- records -------------------------------------------------------------------------


def test_a_record_reads_its_ids_and_fills_the_md() -> None:
    headers = [
        ("mqmd.MsgId", A), ("mqmd.CorrelId", B), ("mqmd.MsgSeqNumber", b"3"),
        ("mqmd.Format", b"MQSTR"), ("mqmd.Persistence", b"1"), ("mqmd.BackoutCount", b"2"),
        ("mqmd.Expiry", b"600"), ("other", b"kept"),
    ]  # fmt: skip
    rec = Rec(FakeMessage(headers, b"body", partition=1, offset=9), delivery=3)
    assert rec.ids() == Ids(A, B, ZERO, 3, 0)
    assert rec.position == (1, 9) and position_of(rec.token) == (1, 9)
    md = MD()
    fill_md(md, rec)
    assert (md.MsgId, md.CorrelId, md.Format, md.Persistence) == (A, B, b"MQSTR   ", 1)
    assert md.BackoutCount == 2 + 2  # two earlier deliveries plus two carried by a copy
    assert 590 <= md.Expiry <= 600
    rec.local_backouts = 1
    fill_md(md, rec)
    assert md.BackoutCount == 5


def test_a_record_without_mqmd_headers_reads_as_the_default_descriptor() -> None:
    rec = Rec(FakeMessage([("mqmd.MsgType", b"not a number")], b"x"), delivery=1)
    md = MD()
    fill_md(md, rec)
    assert md.MsgType == C.MQMT_DATAGRAM and md.BackoutCount == 0


def test_an_expired_record_is_expired() -> None:
    old = int(time.time() * 1000) - 20_000
    assert Rec(FakeMessage([("mqmd.Expiry", b"10")], stamp_ms=old)).expired()
    assert not Rec(FakeMessage([("mqmd.Expiry", b"1000")], stamp_ms=old)).expired()
    assert not Rec(FakeMessage([], stamp_ms=old)).expired()


# ---- consumed positions --------------------------------------------------------------


def test_consumed_positions_below_a_floor_and_above_it() -> None:
    gone = Consumed()
    gone.add((0, 5))
    gone.add((1, 2))
    assert (0, 5) in gone and (0, 4) not in gone
    gone.raise_floor(0, 10)
    assert (0, 9) in gone and (0, 10) not in gone and len(gone) == 1  # (0, 5) folded in
    gone.raise_floor(0, 3)  # a floor never goes down
    assert (0, 9) in gone


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 50))), st.integers(0, 60))
def test_consumed_is_the_union_of_floor_and_set(adds: list[tuple[int, int]], floor: int) -> None:
    gone = Consumed()
    for position in adds:
        gone.add(position)
    gone.raise_floor(0, floor)
    for partition in range(4):
        for offset in range(55):
            expected = (partition, offset) in adds or (partition == 0 and offset < floor)
            assert ((partition, offset) in gone) is expected
