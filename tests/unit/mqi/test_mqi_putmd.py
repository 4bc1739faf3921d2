"""MQPUT's descriptor rules (mqi.putmd): one table row per rule, and the header encoding
checked against the wire contract's reader (Hypothesis)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.rules.errors import MQMIError
from mqkafka.mqi.rules.putmd import (
    DefaultContext,
    DefaultPut,
    IdSource,
    PutClock,
    QueueTraits,
    encode_headers,
    prepare,
    priority_warning,
)
from mqkafka.mqi.rules.structs import MD
from mqkafka.wire.headers import mqmd_from_headers

LOCAL = QueueTraits("APP.Q", C.MQPER_NOT_PERSISTENT, 100, temporary=False)
PERSISTENT_Q = QueueTraits("APP.P", C.MQPER_PERSISTENT, 100, temporary=False)
TEMPORARY = QueueTraits("AMQ.1", C.MQPER_NOT_PERSISTENT, 100, temporary=True)
ME = DefaultContext(b"alice", b"payroll")


def run(md: MD | None = None, *, length: int = 10, pmo: int = 0, open_options: int = C.MQOO_OUTPUT,
        queue: QueueTraits = LOCAL) -> tuple[Any, dict[str, object]]:  # fmt: skip
    values = dict((md or MD()).__dict__)
    prepared = prepare(values, length, pmo, open_options, queue, ME, IdSource(), PutClock())
    return prepared, values


def reason_of(**kwargs: Any) -> int:
    with pytest.raises(MQMIError) as raised:
        run(**kwargs)
    assert raised.value.comp == C.MQCC_FAILED
    return raised.value.reason


def header(prepared: Any, name: str) -> bytes | None:
    return dict(prepared.headers).get("mqmd." + name)


@pytest.mark.parametrize(
    ("md", "queue", "reason"),
    [
        (MD(Persistence=3), LOCAL, RC.PERSISTENCE_ERROR),
        (MD(Persistence=-1), LOCAL, RC.PERSISTENCE_ERROR),
        (MD(Persistence=C.MQPER_PERSISTENT), TEMPORARY, RC.PERSISTENT_NOT_ALLOWED),
        (MD(Priority=-2), LOCAL, RC.PRIORITY_ERROR),
        (MD(Expiry=0), LOCAL, RC.EXPIRY_ERROR),
        (MD(Expiry=-5), LOCAL, RC.EXPIRY_ERROR),
        (MD(MsgType=0), LOCAL, RC.MSG_TYPE_ERROR),
        (MD(MsgType=C.MQMT_REQUEST), LOCAL, RC.MISSING_REPLY_TO_Q),
    ],
)
def test_descriptor_values_mq_refuses(md: MD, queue: QueueTraits, reason: int) -> None:
    assert reason_of(md=md, queue=queue) == reason


def test_a_temporary_dynamic_queue_holds_non_persistent_messages_only() -> None:
    """Seed 004: temporary dynamic queues "hold nonpersistent messages only"."""
    assert reason_of(md=MD(Persistence=1), queue=TEMPORARY) == RC.PERSISTENT_NOT_ALLOWED
    prepared, _ = run(MD(Persistence=C.MQPER_PERSISTENCE_AS_Q_DEF), queue=TEMPORARY)
    assert not prepared.persistent


@pytest.mark.parametrize(
    ("given", "queue", "stored", "persistent"),
    [
        # the stored value is the resolved one (the header default, 2, is never stored)
        (C.MQPER_PERSISTENCE_AS_Q_DEF, LOCAL, b"0", False),
        (C.MQPER_PERSISTENCE_AS_Q_DEF, PERSISTENT_Q, b"1", True),
        (C.MQPER_PERSISTENT, LOCAL, b"1", True),
        (C.MQPER_NOT_PERSISTENT, PERSISTENT_Q, b"0", False),
    ],
)
def test_persistence_as_queue_definition_resolves_to_defpsist(
    given: int, queue: QueueTraits, stored: bytes, persistent: bool
) -> None:
    prepared, _ = run(MD(Persistence=given), queue=queue)
    assert prepared.persistent is persistent
    assert header(prepared, "Persistence") == stored


def test_a_message_longer_than_maxmsgl_is_refused() -> None:
    assert reason_of(length=101) == RC.MSG_TOO_BIG_FOR_Q
    run(length=100)


def test_priority_above_nine_is_put_at_nine_with_a_warning() -> None:
    prepared, _ = run(MD(Priority=12))
    assert header(prepared, "Priority") == b"9"
    warning = priority_warning(prepared)
    assert warning is not None
    assert (warning.comp, warning.reason) == (C.MQCC_WARNING, RC.PRIORITY_EXCEEDS_MAXIMUM)


def test_msg_id_is_generated_unless_given() -> None:
    prepared, values = run(MD())
    assert len(values["MsgId"]) == 24 and any(values["MsgId"])  # type: ignore[arg-type]
    assert header(prepared, "MsgId") == values["MsgId"]
    given = b"my-own-message-id".ljust(24, b"\0")
    _, values = run(MD(MsgId=given))
    assert values["MsgId"] == given
    _, values = run(MD(MsgId=given), pmo=C.MQPMO_NEW_MSG_ID)
    assert values["MsgId"] != given


def test_new_correl_id_and_the_record_key() -> None:
    prepared, values = run(MD(), pmo=C.MQPMO_NEW_CORREL_ID)
    assert any(values["CorrelId"])  # type: ignore[arg-type]
    assert prepared.key == values["CorrelId"]  # keyed by CorrelId where one is set
    prepared, _ = run(MD())
    assert prepared.key is None


@pytest.mark.parametrize(
    ("pmo", "open_options", "reason"),
    [
        (C.MQPMO_SET_ALL_CONTEXT, C.MQOO_OUTPUT, RC.NOT_OPEN_FOR_SET_ALL),
        (C.MQPMO_SET_IDENTITY_CONTEXT, C.MQOO_OUTPUT, RC.NOT_OPEN_FOR_SET_IDENT),
        (C.MQPMO_PASS_ALL_CONTEXT, C.MQOO_OUTPUT, RC.NOT_OPEN_FOR_PASS_ALL),
        (C.MQPMO_PASS_IDENTITY_CONTEXT, C.MQOO_OUTPUT, RC.NOT_OPEN_FOR_PASS_IDENT),
    ],
)
def test_context_options_need_the_matching_open_option(
    pmo: int, open_options: int, reason: int
) -> None:
    assert reason_of(pmo=pmo, open_options=open_options) == reason


def test_default_context_is_the_connections_own() -> None:
    md = MD(UserIdentifier=b"mallory", PutApplName=b"forged")
    _, values = run(md)
    assert values["UserIdentifier"] == b"alice"
    assert values["PutApplName"] == b"payroll"
    assert values["PutApplType"] == C.MQAT_UNIX
    assert re.fullmatch(rb"\d{8}", bytes(values["PutDate"]))  # type: ignore[call-overload]
    assert re.fullmatch(rb"\d{8}", bytes(values["PutTime"]))  # type: ignore[call-overload]


def test_set_all_context_keeps_the_given_context() -> None:
    md = MD(UserIdentifier=b"bob", PutApplName=b"mine", PutDate=b"20000101")
    _, values = run(
        md, pmo=C.MQPMO_SET_ALL_CONTEXT, open_options=C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT
    )
    assert (values["UserIdentifier"], values["PutApplName"], values["PutDate"]) == (
        b"bob",
        b"mine",
        b"20000101",
    )


def test_set_identity_context_keeps_identity_and_sets_origin() -> None:
    md = MD(UserIdentifier=b"bob", PutApplName=b"mine")
    opts = C.MQOO_OUTPUT | C.MQOO_SET_IDENTITY_CONTEXT
    _, values = run(md, pmo=C.MQPMO_SET_IDENTITY_CONTEXT, open_options=opts)
    assert values["UserIdentifier"] == b"bob"
    assert values["PutApplName"] == b"payroll"


def test_no_context_blanks_the_context() -> None:
    prepared, values = run(MD(UserIdentifier=b"bob"), pmo=C.MQPMO_NO_CONTEXT)
    assert values["UserIdentifier"] == b"" and values["PutApplType"] == C.MQAT_NO_CONTEXT
    assert header(prepared, "UserIdentifier") is None


def test_ccsid_of_the_queue_manager_resolves_to_utf8() -> None:
    _, values = run(MD(CodedCharSetId=C.MQCCSI_Q_MGR))
    assert values["CodedCharSetId"] == 1208


def test_ids_are_unique_and_put_time_has_hundredths() -> None:
    ids = IdSource()
    assert len({ids.new() for _ in range(10_000)}) == 10_000
    assert IdSource().new()[:16] != ids.new()[:16]  # another connection, another prefix
    date, stamp = PutClock().now()
    assert len(date) == len(stamp) == 8 and date.isdigit() and stamp.isdigit()


text = st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=8)
ints = st.integers(min_value=-(2**31), max_value=2**31 - 1)
ids24 = st.binary(min_size=24, max_size=24)


@settings(max_examples=200, deadline=None)
@given(
    report=ints,
    msg_type=st.integers(1, 999_999_999),
    feedback=ints,
    fmt=text,
    correl=ids24,
    reply_to=text,
    seq=ints,
    user=text,
)
def test_headers_read_back_as_the_descriptor_that_was_put(
    report: int,
    msg_type: int,
    feedback: int,
    fmt: str,
    correl: bytes,
    reply_to: str,
    seq: int,
    user: str,
) -> None:
    """Wire contract §2: one header per non-default field, decoded by the contract's reader."""
    md = MD(
        Report=report, MsgType=msg_type, Feedback=feedback, Format=fmt, CorrelId=correl,
        ReplyToQ=reply_to or "R", MsgSeqNumber=seq, UserIdentifier=user,
    )  # fmt: skip
    headers = encode_headers(md.__dict__)
    names = [name for name, _ in headers]
    assert len(names) == len(set(names))  # "A writer never writes a header twice"
    decoded, others = mqmd_from_headers(headers)
    assert others == []
    expected = md.to_mqmd()
    assert decoded == expected


def test_text_that_is_not_utf8_is_an_md_error() -> None:
    md = MD(ApplIdentityData=b"\xff\xfe")
    with pytest.raises(MQMIError) as raised:
        encode_headers(md.__dict__)
    assert raised.value.reason == RC.MD_ERROR


class FixedIds(IdSource):
    def new(self) -> bytes:
        return b"F" * 24


class FixedClock(PutClock):
    def now(self) -> tuple[bytes, bytes]:
        return b"20260101", b"12345678"


@pytest.mark.parametrize("queue", [LOCAL, PERSISTENT_Q, TEMPORARY])
def test_the_default_put_template_writes_what_the_rules_write(queue: QueueTraits) -> None:
    """q.put(msg) takes a per-handle template; it must give the headers prepare() gives."""
    first = prepare(dict(MD().__dict__), 5, 0, C.MQOO_OUTPUT, queue, ME, IdSource(), PutClock())
    template = DefaultPut(first)
    rendered = template.render(FixedIds(), FixedClock())
    again = prepare(dict(MD().__dict__), 5, 0, C.MQOO_OUTPUT, queue, ME, FixedIds(), FixedClock())
    assert rendered == again.headers
    assert template.persistent is again.persistent
