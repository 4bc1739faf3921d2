"""pymqi-shaped structures: MQ field names, pymqi's initial values, checked assignment."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import ID_FIELDS, INT_FIELDS, MQMD, TEXT_FIELDS
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import CNO, GMO, MD, OD, PMO, SD, MQMIError, StructFieldError, mqchars
from mqkafka.mqi.rules.structs import MQStruct


@pytest.mark.parametrize(
    ("struct", "field", "initial"),
    [
        (MD, "StrucId", b"MD  "),
        (MD, "Version", 1),
        (MD, "Report", C.MQRO_NONE),
        (MD, "MsgType", C.MQMT_DATAGRAM),
        (MD, "Expiry", C.MQEI_UNLIMITED),
        (MD, "Encoding", 546),
        (MD, "CodedCharSetId", C.MQCCSI_Q_MGR),
        (MD, "Format", b""),
        (MD, "Priority", -1),
        (MD, "Persistence", C.MQPER_PERSISTENCE_AS_Q_DEF),
        (MD, "MsgId", b""),
        (MD, "CorrelId", b""),
        (MD, "MsgSeqNumber", 1),
        (MD, "OriginalLength", -1),
        (OD, "StrucId", b"OD  "),
        (OD, "ObjectType", C.MQOT_Q),
        (OD, "ObjectName", b""),
        (OD, "DynamicQName", b"AMQ.*"),
        (OD, "AlternateUserId", b""),
        (PMO, "StrucId", b"PMO "),
        (PMO, "Options", C.MQPMO_NONE),
        (PMO, "Timeout", -1),
        (PMO, "PubLevel", 9),
        (GMO, "StrucId", b"GMO "),
        (GMO, "Version", C.MQGMO_VERSION_1),
        (GMO, "Options", C.MQGMO_NO_WAIT),
        (GMO, "WaitInterval", 0),
        (GMO, "MatchOptions", C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID),
        (GMO, "GroupStatus", ord(" ")),
        (GMO, "ReturnedLength", C.MQRL_UNDEFINED),
        (SD, "StrucId", b"SD  "),
        (SD, "Options", C.MQSO_NON_DURABLE),
        (SD, "SubExpiry", C.MQEI_UNLIMITED),
        (SD, "SubCorrelId", C.MQCI_NONE),
        (SD, "SubLevel", 1),
        (SD, "PubPriority", C.MQPRI_PRIORITY_AS_Q_DEF),
        (CNO, "StrucId", b"CNO "),
        (CNO, "Options", C.MQCNO_NONE),
    ],
)
def test_initial_values(struct: type[MQStruct], field: str, initial: object) -> None:
    assert getattr(struct(), field) == initial


def test_keyword_construction_and_attribute_access_like_pymqi() -> None:
    gmo = GMO(Options=C.MQGMO_WAIT | C.MQGMO_FAIL_IF_QUIESCING, WaitInterval=5000)
    assert (gmo.Options, gmo.WaitInterval) == (C.MQGMO_WAIT | C.MQGMO_FAIL_IF_QUIESCING, 5000)
    md = MD()
    md.Format = C.MQFMT_STRING
    md["ReplyToQ"] = b"REPLY.Q"
    assert md["Format"] == b"MQSTR   "
    assert md.ReplyToQ == b"REPLY.Q"
    md.set(Priority=5, Persistence=C.MQPER_PERSISTENT)
    assert md.get()["Priority"] == 5
    assert md.get()["Persistence"] == C.MQPER_PERSISTENT
    assert list(md.get())[:3] == ["StrucId", "Version", "Report"]  # MQ's field order


def test_structures_are_independent_values() -> None:
    first, second = MD(), MD()
    first.MsgId = b"\x01" * 24
    assert second.MsgId == b""
    assert MD(MsgId=b"\x01" * 24) == first
    assert first != second


def test_str_text_is_encoded_as_bytes() -> None:
    od = OD(ObjectName="APP.QUEUE")
    assert od.ObjectName == b"APP.QUEUE"
    assert mqchars(od.ObjectName) == "APP.QUEUE"


@pytest.mark.parametrize(
    ("struct", "reason"),
    [
        (MD, C.MQRC_MD_ERROR),
        (OD, C.MQRC_OD_ERROR),
        (PMO, C.MQRC_PMO_ERROR),
        (GMO, C.MQRC_GMO_ERROR),
        (SD, C.MQRC_SD_ERROR),
        (CNO, C.MQRC_CNO_ERROR),
    ],
)
def test_unknown_field_is_an_attribute_error_with_the_structure_reason(
    struct: type[MQStruct], reason: int
) -> None:
    with pytest.raises(StructFieldError) as at_build:
        struct(NoSuchField=1)
    instance = struct()
    with pytest.raises(AttributeError) as at_set:
        instance.NoSuchField = 1
    with pytest.raises(MQError) as at_item:
        _ = instance["NoSuchField"]
    for raised in (at_build.value, at_set.value, at_item.value):
        assert isinstance(raised, StructFieldError)
        assert (raised.comp, raised.reason) == (C.MQCC_FAILED, reason)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("MsgType", "8"),
        ("MsgType", 8.0),
        ("MsgType", True),
        ("MsgId", 1),
        ("MsgId", b"x" * 25),
        ("Format", "MQSTRINGS"),  # 9 characters in an MQCHAR8
        ("UserIdentifier", "a-user-name-longer-than-12"),
    ],
)
def test_bad_values_are_refused_with_md_error(field: str, value: object) -> None:
    md = MD()
    with pytest.raises(StructFieldError) as raised:
        setattr(md, field, value)
    assert raised.value.reason == C.MQRC_MD_ERROR
    assert getattr(md, field) == getattr(MD(), field)  # unchanged


def test_format_of_exactly_eight_characters_is_accepted() -> None:
    assert MD(Format="MQSTRING").Format == b"MQSTRING"


@given(st.binary(max_size=24))
def test_correl_id_up_to_24_bytes_round_trips(value: bytes) -> None:
    assert MD(CorrelId=value).CorrelId == value


@given(st.binary(min_size=25, max_size=60))
def test_correl_id_longer_than_24_bytes_is_refused(value: bytes) -> None:
    with pytest.raises(StructFieldError):
        MD(CorrelId=value)


def test_variable_length_strings_through_pymqi_set_vs_and_get_vs() -> None:
    sd = SD(Options=C.MQSO_CREATE | C.MQSO_DURABLE)
    sd.set_vs("ObjectString", "Sport/Soccer/#")
    sd.set_vs("SubNameVSPtr", b"MY.SUB")
    assert sd.get_vs("ObjectString") == b"Sport/Soccer/#"
    assert sd.SubName == b"MY.SUB"
    assert sd.get_vs("SubNameVSPtr") == b"MY.SUB"


@pytest.mark.parametrize(
    ("raw", "significant"),
    [
        (b"", ""),
        (b"Q1", "Q1"),
        (b"Q1" + b" " * 46, "Q1"),
        (b"Q1\0garbage", "Q1"),
        ("MQSTR   ", "MQSTR"),
    ],
)
def test_mqchars_gives_the_significant_part(raw: bytes | str, significant: str) -> None:
    assert mqchars(raw) == significant


def test_str_lists_every_field() -> None:
    text = str(GMO())
    assert text.splitlines()[0] == "StrucId: b'GMO '"
    assert "MatchOptions: 3" in text


# --- MD <-> the product's frozen MQMD ----------------------------------------------------

INT32 = st.integers(min_value=-(2**31), max_value=2**31 - 1)
TEXT = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), max_size=4)


@st.composite
def descriptors(draw: st.DrawFn) -> MQMD:
    values: dict[str, object] = {name: draw(INT32) for name in INT_FIELDS}
    values |= {name: draw(st.binary(min_size=n, max_size=n)) for name, n in ID_FIELDS.items()}
    values |= {name: draw(TEXT) for name in TEXT_FIELDS}
    return MQMD(**values)  # type: ignore[arg-type]


@given(descriptors())
def test_md_round_trips_through_the_frozen_mqmd(mqmd: MQMD) -> None:
    md = MD.from_mqmd(mqmd)
    assert md.Version == C.MQMD_VERSION_2
    assert md.to_mqmd() == mqmd


def test_default_md_is_the_default_mqmd_but_for_pymqi_ccsid() -> None:
    # pymqi's MD starts with MQCCSI_Q_MGR (0); the wire contract's MQMD default is 1208.
    assert MD().to_mqmd() == MQMD().replace(CodedCharSetId=C.MQCCSI_Q_MGR)


def test_md_padding_is_removed_and_ids_are_nul_padded() -> None:
    md = MD(
        ReplyToQ=b"REPLY.Q" + b" " * 41,
        ReplyToQMgr=b"QM1\0\0\0",
        Format=C.MQFMT_RF_HEADER_2,
        MsgId=b"\x01\x02",
    )
    mqmd = md.to_mqmd()
    assert (mqmd.ReplyToQ, mqmd.ReplyToQMgr, mqmd.Format) == ("REPLY.Q", "QM1", "MQHRF2  ")
    assert mqmd.MsgId == b"\x01\x02" + bytes(22)


@pytest.mark.parametrize(
    ("field", "value"),
    [("ReplyToQ", b"\xff\xfe"), ("MsgType", -(2**31) - 1), ("Format", "MQSTR\u00e9")],
)
def test_md_that_no_mqmd_can_hold_gives_md_error(field: str, value: object) -> None:
    md = MD()
    setattr(md, field, value)  # fine for the MD, not for the product's MQMD
    with pytest.raises(MQMIError) as raised:
        md.to_mqmd()
    assert (raised.value.comp, raised.value.reason) == (C.MQCC_FAILED, C.MQRC_MD_ERROR)
