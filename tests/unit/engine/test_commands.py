"""Typed commands from <psc> and RFH1 pairs (reference §2.1-§2.6): tables of every option
value, every property rule and reason code, and Hypothesis round trips."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq.commandoptions import (
    DEL_OPTION_VALUES,
    PUB_OPTION_VALUES,
    REG_OPTION_VALUES,
    REG_OPTIONS_ALLOWED,
)
from mqkafka.mq.commandparse import command_from_psc, command_from_rfh1
from mqkafka.mq.commandrender import command_to_psc, command_to_rfh1
from mqkafka.mq.commands import (
    Command,
    DeletePub,
    DelOpt,
    DeregSub,
    Interface,
    Publish,
    PubOpt,
    RegOpt,
    RegSub,
    ReqUpdate,
)
from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import MQMD
from mqkafka.mq.reasons import RC

MD = MQMD(ReplyToQ="REPLY", CorrelId=b"C" * 24, UserIdentifier="fred")

# Reference §2.5, copied value by value: (string, integer, RFH2 has it).
REG_TABLE = [
    ("None", 0x0, True),
    ("CorrelAsId", 0x1, True),
    ("Anon", 0x2, False),
    ("Local", 0x4, True),
    ("DirectReq", 0x8, False),
    ("NewPubsOnly", 0x10, True),
    ("PubOnReqOnly", 0x20, True),
    ("DeregAll", 0x40, True),
    ("InclStreamName", 0x80, False),
    ("InformIfRet", 0x100, True),
    ("DupsOK", 0x200, True),
    ("NonPers", 0x400, True),
    ("Pers", 0x800, True),
    ("PersAsPub", 0x1000, True),
    ("PersAsQueue", 0x2000, True),
    ("AddName", 0x4000, True),
    ("NoAlter", 0x8000, True),
    ("FullResp", 0x10000, True),
    ("JoinShared", 0x20000, True),
    ("JoinExcl", 0x40000, True),
    ("LeaveOnly", 0x80000, True),
    ("VariableUserId", 0x100000, True),
    ("Locked", 0x200000, True),
]
PUB_TABLE = [
    ("None", 0x0, True),
    ("CorrelAsId", 0x1, True),
    ("RetainPub", 0x2, True),
    ("OtherSubsOnly", 0x4, True),
    ("NoReg", 0x8, False),
    ("IsRetainedPub", 0x10, True),
]
DEL_TABLE = [("None", 0x0, True), ("Local", 0x4, True)]


def parse(*pairs: tuple[str, str], md: MQMD = MD) -> Command:
    return command_from_psc(list(pairs), md, local_qmgr="QM1")


def rfh1(*pairs: tuple[str, str], md: MQMD = MD) -> Command:
    return command_from_rfh1(list(pairs), md, local_qmgr="QM1")


def reason_of(build: object, *pairs: tuple[str, str]) -> int:
    try:
        build(*pairs)  # type: ignore[operator]
    except MQError as error:
        return error.reason
    return RC.NONE


# ---- option values (§2.5) -------------------------------------------------------------------


@pytest.mark.parametrize(("name", "value", "rfh2"), REG_TABLE)
def test_reg_option_values_match_the_reference(name: str, value: int, rfh2: bool) -> None:
    assert int(REG_OPTION_VALUES[name][0]) == value
    assert ("RFH2" in REG_OPTION_VALUES[name][1]) is rfh2


@pytest.mark.parametrize(("name", "value", "rfh2"), PUB_TABLE)
def test_pub_option_values_match_the_reference(name: str, value: int, rfh2: bool) -> None:
    assert int(PUB_OPTION_VALUES[name][0]) == value
    assert ("RFH2" in PUB_OPTION_VALUES[name][1]) is rfh2


@pytest.mark.parametrize(("name", "value", "rfh2"), DEL_TABLE)
def test_del_option_values_match_the_reference(name: str, value: int, rfh2: bool) -> None:
    assert int(DEL_OPTION_VALUES[name][0]) == value


def test_local_publication_option_has_no_mqpubo_integer() -> None:
    """ "Local" is a <psc> PubOpt value without an MQPUBO_ constant: a private bit that no
    integer of the reference table uses."""
    assert int(PubOpt.LOCAL) not in {value for _, value, _ in PUB_TABLE}
    assert int(PubOpt.LOCAL) & sum(value for _, value, _ in PUB_TABLE) == 0
    assert int(DelOpt.LOCAL) == int(RegOpt.LOCAL) == 0x4


REG_COMMANDS = ["RegSub", "DeregSub", "ReqUpdate", "Publish", "RegPub", "DeregPub"]


def _minimal(verb: str) -> list[tuple[str, str]]:
    extra = {
        "RegSub": [("Topic", "T"), ("SubName", "n"), ("SubIdentity", "i")],
        "DeregSub": [("Topic", "T"), ("SubIdentity", "i")],
        "ReqUpdate": [("Topic", "T")],
        "Publish": [("Topic", "T")],
        "RegPub": [("Topic", "T")],
        "DeregPub": [("Topic", "T")],
    }[verb]
    return [("Command", verb), *extra]


@pytest.mark.parametrize(
    ("verb", "option"), list(itertools.product(REG_COMMANDS, [n for n, _, _ in REG_TABLE]))
)
def test_each_command_accepts_exactly_its_registration_options(verb: str, option: str) -> None:
    """§2.7-§2.12: which RegOpt values each command takes; anything else is 3083."""
    flag, interfaces = REG_OPTION_VALUES[option]
    rfh1_only = verb in ("RegPub", "DeregPub") or "RFH2" not in interfaces
    pairs = [*_minimal(verb), ("RegOpt", option)]
    if rfh1_only:
        pairs = [
            ("MQPS" + tag if tag != "RegOpt" else "MQPSRegOpts", value) for tag, value in pairs
        ]
        build = rfh1
    else:
        build = parse
    allowed = not flag or bool(flag & REG_OPTIONS_ALLOWED[verb])
    expected = RC.NONE if allowed else RC.CF_REG_OPTIONS_ERROR
    assert reason_of(build, *pairs) == expected


@pytest.mark.parametrize("option", ["Anon", "DirectReq", "InclStreamName"])
def test_rfh1_only_registration_options_are_errors_in_rfh2(option: str) -> None:
    """ "A dash in the MQPSC_ column means the value exists only in the RFH1 interface" (§2.5)."""
    assert reason_of(parse, ("Command", "RegSub"), ("Topic", "T"), ("RegOpt", option)) == (
        RC.CF_REG_OPTIONS_ERROR
    )


@pytest.mark.parametrize(
    ("pairs", "reason"),
    [
        ([("PubOpt", "NoReg")], RC.CF_PUB_OPTIONS_ERROR),  # RFH1 only
        ([("PubOpt", "IsRetainedPub")], RC.CF_PUB_OPTIONS_ERROR),  # "only set by the broker"
        ([("PubOpt", "Bogus")], RC.CF_PUB_OPTIONS_ERROR),
        ([("PubOpt", "RetainPub"), ("PubOpt", "OtherSubsOnly")], RC.NONE),
        ([("PubOpt", "Local")], RC.NONE),
        ([("PubOpt", "None")], RC.NONE),
        ([("PubOpt", "CorrelAsId")], RC.NONE),
    ],
)
def test_publication_options(pairs: list[tuple[str, str]], reason: int) -> None:
    assert reason_of(parse, ("Command", "Publish"), ("Topic", "T"), *pairs) == reason


@pytest.mark.parametrize(
    ("pairs", "reason"),
    [
        ([("DelOpt", "Local")], RC.NONE),
        ([("DelOpt", "None")], RC.NONE),
        ([("DelOpt", "RetainPub")], RC.CF_DEL_OPTIONS_ERROR),
        ([("DelOpt", "Local"), ("DelOpt", "None")], RC.RFH_DUPLICATE_PARM),  # §2.11: not repeatable
    ],
)
def test_delete_options(pairs: list[tuple[str, str]], reason: int) -> None:
    assert reason_of(parse, ("Command", "DeletePub"), ("Topic", "T"), *pairs) == reason


@pytest.mark.parametrize(
    ("options", "extra"),
    [
        ("JoinShared JoinExcl", [("SubIdentity", "i")]),
        ("Pers NonPers", []),
        ("PersAsPub PersAsQueue", []),
        ("Pers PersAsQueue", []),
        ("AddName", []),  # "SubName becomes mandatory"
        ("FullResp", [("Topic", "U")]),  # "not allowed with multiple topics"
        ("JoinShared", []),  # a Join needs a SubIdentity
    ],
)
def test_inconsistent_registration_options(options: str, extra: list[tuple[str, str]]) -> None:
    """Invalid/inconsistent options -> MQRCCF_REG_OPTIONS_ERROR 3083 (§2.5)."""
    pairs = [("Command", "RegSub"), ("Topic", "T"), ("RegOpt", options), *extra]
    assert reason_of(parse, *pairs) == RC.CF_REG_OPTIONS_ERROR


@pytest.mark.parametrize(
    "pairs",
    [
        [("RegOpt", "FullResp"), ("RegOpt", "DeregAll")],
        [("RegOpt", "LeaveOnly")],
        [("RegOpt", "FullResp"), ("Topic", "U")],
    ],
)
def test_inconsistent_deregistration_options(pairs: list[tuple[str, str]]) -> None:
    """§2.8: FullResp not with DeregAll or several topics; LeaveOnly needs SubIdentity."""
    assert reason_of(parse, ("Command", "DeregSub"), ("Topic", "T"), *pairs) == (
        RC.CF_REG_OPTIONS_ERROR
    )


def test_direct_requests_not_with_anonymous() -> None:
    """RegPub: "DirectReq - not with Anon" (§2.12)."""
    pairs = [("MQPSCommand", "RegPub"), ("MQPSTopic", "T"), ("MQPSRegOpts", "Anon DirectReq")]
    assert reason_of(rfh1, *pairs) == RC.CF_REG_OPTIONS_ERROR


def test_several_options_in_one_element() -> None:
    """Choice §10.14: one element may hold whitespace-separated values; each is emitted alone."""
    cmd = parse(("Command", "RegSub"), ("Topic", "T"), ("RegOpt", " PubOnReqOnly\tInformIfRet "))
    assert isinstance(cmd, RegSub)
    assert cmd.options == RegOpt.PUBLISH_ON_REQUEST_ONLY | RegOpt.INFORM_IF_RETAINED
    assert [p for p in command_to_psc(cmd) if p[0] == "RegOpt"] == [
        ("RegOpt", "PubOnReqOnly"),
        ("RegOpt", "InformIfRet"),
    ]


# ---- the folder rules (§2.1) --------------------------------------------------------------


@pytest.mark.parametrize(
    ("pairs", "reason", "parm"),
    [
        ([], RC.RFH_PARM_MISSING, "Command"),  # choice: no Command is missing, not bad
        ([("Topic", "T")], RC.RFH_PARM_MISSING, "Command"),
        ([("Topic", "T"), ("Command", "RegSub")], RC.RFH_COMMAND_ERROR, "Command"),
        ([("Command", "Subscribe")], RC.RFH_COMMAND_ERROR, "Command"),
        ([("Command", "regsub"), ("Topic", "T")], RC.RFH_COMMAND_ERROR, "Command"),
        ([("Command", "RegPub"), ("Topic", "T")], RC.RFH_COMMAND_ERROR, "Command"),  # §10.2
        ([("Command", "DeregPub"), ("Topic", "T")], RC.RFH_COMMAND_ERROR, "Command"),
        ([("Command", "RegSub"), ("Topic", "T"), ("Bogus", "x")], RC.RFH_PARM_ERROR, "Bogus"),
        ([("Command", "RegSub"), ("Topic", "T"), ("PubOpt", "None")], RC.RFH_PARM_ERROR, "PubOpt"),
        ([("Command", "Publish"), ("Topic", "T"), ("Filter", "a")], RC.RFH_PARM_ERROR, "Filter"),
        (
            [("Command", "ReqUpdate"), ("Topic", "T"), ("SubIdentity", "i")],
            RC.RFH_PARM_ERROR,
            "SubIdentity",
        ),
        (
            [("Command", "RegSub"), ("Topic", "T"), ("CorrelId", "00")],
            RC.RFH_PARM_ERROR,
            "CorrelId",
        ),
        ([("Command", "RegSub"), ("Command", "RegSub")], RC.RFH_DUPLICATE_PARM, "Command"),
        (
            [("Command", "RegSub"), ("Topic", "T"), ("SubPoint", "a"), ("SubPoint", "a")],
            RC.RFH_DUPLICATE_PARM,
            "SubPoint",
        ),
        (
            [("Command", "RegSub"), ("Topic", "T"), ("QName", "a"), ("QName", "b")],
            RC.RFH_DUPLICATE_PARM,
            "QName",
        ),
        ([("Command", "RegSub")], RC.RFH_PARM_MISSING, "Topic"),
        ([("Command", "DeregSub")], RC.RFH_PARM_MISSING, "Topic"),
        ([("Command", "Publish")], RC.RFH_PARM_MISSING, "Topic"),
        ([("Command", "DeletePub")], RC.RFH_PARM_MISSING, "Topic"),
        ([("Command", "ReqUpdate")], RC.RFH_PARM_MISSING, "Topic"),
    ],
)
def test_psc_folder_rules(pairs: list[tuple[str, str]], reason: int, parm: str) -> None:
    """2336 bad or not-first Command, 2337 unknown property, 2338 repeated, 2339 missing
    (Command too)."""
    with pytest.raises(MQError) as raised:
        command_from_psc(pairs, MD)
    assert (raised.value.reason, raised.value.parm) == (reason, parm)


@pytest.mark.parametrize(
    ("pairs", "reason"),
    [
        ([("MQPSTopic", "T"), ("MQPSCommand", "RegSub")], RC.RFH_COMMAND_ERROR),
        ([("MQPSTopic", "T")], RC.RFH_PARM_MISSING),
        ([("MQPSCommand", "RegSub"), ("MQPSTopic", "T"), ("MQPSFilter", "x")], RC.RFH_PARM_ERROR),
        ([("MQPSCommand", "RegSub"), ("MQPSTopic", "T"), ("User", "x")], RC.RFH_PARM_ERROR),
        ([("MQPSCommand", "Publish"), ("MQPSTopic", "T"), ("MQPSBogus", "x")], RC.RFH_PARM_ERROR),
        (
            [
                ("MQPSCommand", "RegSub"),
                ("MQPSTopic", "T"),
                ("MQPSStreamName", "a"),
                ("MQPSStreamName", "a"),
            ],
            RC.RFH_DUPLICATE_PARM,
        ),
        ([("MQPSCommand", "RegPub")], RC.RFH_PARM_MISSING),
        ([("MQPSCommand", "DeregPub"), ("MQPSRegOpts", "DeregAll")], RC.NONE),
        ([("MQPSCommand", "DeregSub"), ("MQPSRegOpts", "DeregAll")], RC.NONE),
        ([("MQPSCommand", "RegPub"), ("MQPSTopic", "T"), ("MQPSRegOpts", "Anon")], RC.NONE),
    ],
)
def test_rfh1_name_value_rules(pairs: list[tuple[str, str]], reason: int) -> None:
    """ "MQPSCommand must be the first tag" (§2.3); user pairs only on a Publish."""
    assert reason_of(rfh1, *pairs) == reason


def test_rfh1_publish_keeps_user_pairs_and_inline_data_in_order() -> None:
    """ "User-defined name/value pairs in a Publish may be added but must not start with MQ";
    MQPSStringData / MQPSIntData are repeatable inline data (§2.3, §2.10)."""
    cmd = rfh1(
        ("MQPSCommand", "Publish"),
        ("MQPSTopic", "T"),
        ("MQPSStringData", "a"),
        ("Colour", "red"),
        ("MQPSIntData", "7"),
    )
    assert isinstance(cmd, Publish)
    assert cmd.content.name_values == (
        ("MQPSStringData", "a"),
        ("Colour", "red"),
        ("MQPSIntData", "7"),
    )
    assert command_to_rfh1(cmd)[-3:] == list(cmd.content.name_values)


def test_zero_correlid_with_correl_as_id_is_correl_id_error() -> None:
    """§2.6: "CorrelId is part of it only when CorrelAsId is given; it must then be non-zero
    (else MQRCCF_CORREL_ID_ERROR 3080)"."""
    md = MQMD(ReplyToQ="Q")
    for verb in ("RegSub", "DeregSub", "ReqUpdate", "Publish"):
        assert (
            reason_of(
                lambda *p: parse(*p, md=md),
                ("Command", verb),
                ("Topic", "T"),
                ("RegOpt", "CorrelAsId"),
            )
            == RC.CF_CORREL_ID_ERROR
        )


@pytest.mark.parametrize(
    ("given", "reply_to_q", "reply_to_qmgr", "expected"),
    [
        ({}, "RQ", "RQM", ("RQ", "RQM")),
        ({}, "RQ", "", ("RQ", "QM1")),
        ({"QName": "SUBQ"}, "RQ", "", ("SUBQ", "QM1")),
        ({"QName": "SUBQ", "QMgrName": "QM7"}, "RQ", "RQM", ("SUBQ", "QM7")),
        ({}, "", "", ("", "QM1")),
    ],
)
def test_identity_defaults_from_the_mqmd(
    given: dict[str, str], reply_to_q: str, reply_to_qmgr: str, expected: tuple[str, str]
) -> None:
    """§2.6: QName <- MQMD.ReplyToQ; QMgrName <- MQMD.ReplyToQMgr, then the local QM."""
    md = MQMD(ReplyToQ=reply_to_q, ReplyToQMgr=reply_to_qmgr)
    cmd = parse(("Command", "RegSub"), ("Topic", "T"), *given.items(), md=md)
    assert isinstance(cmd, RegSub)
    assert (cmd.q_name, cmd.q_mgr_name) == expected


def test_empty_filter_is_no_filter_and_topics_are_deduplicated() -> None:
    cmd = parse(
        ("Command", "RegSub"), ("Topic", "A"), ("Topic", "B"), ("Topic", "A"), ("Filter", " ")
    )
    assert isinstance(cmd, RegSub)
    assert cmd.topics == ("A", "B") and cmd.filter is None


def test_commands_remember_their_interface_and_source() -> None:
    pairs = [("Command", "Publish"), ("Topic", "T")]
    cmd = parse(*pairs)
    assert cmd.interface is Interface.RFH2 and cmd.source == tuple(pairs)
    cmd1 = rfh1(("MQPSCommand", "Publish"), ("MQPSTopic", "T"))
    assert cmd1.interface is Interface.RFH1


# ---- Hypothesis ---------------------------------------------------------------------------

names = st.text(st.characters(codec="ascii", categories=["L", "N"]), min_size=1, max_size=8)
topics = st.lists(
    st.text(min_size=1, max_size=12).filter(lambda t: t.strip() == t),
    min_size=1,
    max_size=3,
    unique=True,
)


@st.composite
def commands(draw: st.DrawFn) -> Command:
    kind = draw(st.sampled_from([RegSub, DeregSub, ReqUpdate, Publish, DeletePub]))
    md = MQMD(ReplyToQ=draw(names), CorrelId=b"Z" * 24)
    common: dict[str, Any] = {"md": md, "q_name": md.ReplyToQ, "q_mgr_name": "QM1"}
    if kind is RegSub:
        options = draw(
            st.sampled_from(
                [
                    RegOpt.NONE,
                    RegOpt.PUBLISH_ON_REQUEST_ONLY | RegOpt.CORREL_ID_AS_IDENTITY,
                    RegOpt.NEW_PUBLICATIONS_ONLY | RegOpt.PERSISTENT,
                ]
            )
        )
        return RegSub(
            topics=tuple(draw(topics)),
            options=options,
            sub_name=draw(st.none() | names),
            sub_point=draw(st.none() | names),
            **common,
        )
    if kind is DeregSub:
        return DeregSub(
            topics=tuple(draw(topics)),
            options=draw(st.sampled_from([RegOpt.NONE, RegOpt.VARIABLE_USER_ID])),
            **common,
        )
    if kind is ReqUpdate:
        return ReqUpdate(topic=draw(topics)[0], filter=draw(st.none() | names), **common)
    if kind is Publish:
        return Publish(
            topics=tuple(draw(topics)),
            options=draw(
                st.sampled_from(
                    [PubOpt.NONE, PubOpt.RETAIN_PUBLICATION | PubOpt.OTHER_SUBSCRIBERS_ONLY]
                )
            ),
            pub_time=draw(st.none() | names),
            **common,
        )
    return DeletePub(
        topics=tuple(draw(topics)),
        options=draw(st.sampled_from([DelOpt.NONE, DelOpt.LOCAL])),
        md=md,
    )


@given(commands())
def test_psc_round_trip(cmd: Command) -> None:
    """command_from_psc(command_to_psc(c)) == c: one option per element, nothing lost."""
    again = command_from_psc(command_to_psc(cmd), cmd.md, queue=cmd.queue, local_qmgr="QM1")
    assert again == cmd


pair_lists = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "Command",
                "Topic",
                "RegOpt",
                "PubOpt",
                "DelOpt",
                "SubPoint",
                "Filter",
                "QName",
                "QMgrName",
                "SubName",
                "SubIdentity",
                "SubUserData",
                "PubTime",
                "SeqNum",
                "Bogus",
            ]
        ),
        st.sampled_from(
            [
                "RegSub",
                "DeregSub",
                "ReqUpdate",
                "Publish",
                "DeletePub",
                "RegPub",
                "T",
                "#",
                "None",
                "CorrelAsId",
                "DeregAll",
                "Local",
                "RetainPub",
                "JoinShared",
                "",
                "x y",
            ]
        ),
    ),
    max_size=8,
)


@given(pair_lists, st.booleans())
def test_any_pairs_give_a_command_or_an_mqerror(
    pairs: list[tuple[str, str]], as_rfh1: bool
) -> None:
    """Bad input is never a crash: a command, or an MQError with a pub/sub reason."""
    if as_rfh1:
        pairs = [("MQPS" + k if k != "Bogus" else k, v) for k, v in pairs]
    try:
        (command_from_rfh1 if as_rfh1 else command_from_psc)(pairs, MD)
    except MQError as error:
        assert 2336 <= error.reason <= 2339 or 3072 <= error.reason <= 3157
