"""What IBM's JMS client (v6 migration mode) writes into command messages, read as a broker
reads it: option values in their decimal integer form (§2.5) and the UNIQUE_CONNECTION_ID
name it puts in every Publish (a choice, see ``mqkafka.mq.commandparse``). One test per rule."""

from __future__ import annotations

import pytest

from mqkafka.mq import rfh1 as rfh1_codec
from mqkafka.mq import rfh2 as rfh2_codec
from mqkafka.mq.commandparse import command_from_psc, command_from_rfh1
from mqkafka.mq.commands import Command, DeletePub, DelOpt, Publish, PubOpt, RegOpt, RegSub
from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import MQFMT_RF_HEADER_1, MQFMT_RF_HEADER_2, MQFMT_STRING, MQMD
from mqkafka.mq.reasons import RC
from mqkafka.wire import messagecodec as codec
from mqkafka.wire.messagecodec import CommandReader

MD = MQMD(ReplyToQ="REPLY", CorrelId=b"C" * 24, UserIdentifier="fred")
CONN = "46414B454D53474944303030303030303030303030303031"  # as the transcripts show it


def psc(*pairs: tuple[str, str]) -> Command:
    return command_from_psc(list(pairs), MD, local_qmgr="QM1")


def rfh1(*pairs: tuple[str, str]) -> Command:
    return command_from_rfh1(list(pairs), MD, local_qmgr="QM1")


def reason_of(build: object, *pairs: tuple[str, str]) -> int:
    try:
        build(*pairs)  # type: ignore[operator]
    except MQError as error:
        return error.reason
    return RC.NONE


_JMS_NONDURABLE = RegOpt.CORREL_ID_AS_IDENTITY | RegOpt.NON_PERSISTENT | RegOpt.FULL_RESPONSE
_JMS_DURABLE = (
    RegOpt.CORREL_ID_AS_IDENTITY
    | RegOpt.NO_ALTERATION
    | RegOpt.FULL_RESPONSE
    | RegOpt.JOIN_EXCLUSIVE
    | RegOpt.VARIABLE_USER_ID
)


@pytest.mark.parametrize(
    ("build", "pairs", "field", "expected"),
    [
        # JMS's non-durable RegSub, both generations (transcripts jms_v6_pubsub_rfh1/2).
        (rfh1, [("MQPSCommand", "RegSub"), ("MQPSTopic", "T"), ("MQPSRegOpts", "66561")],
         "options", _JMS_NONDURABLE),
        (psc, [("Command", "RegSub"), ("Topic", "T"), ("RegOpt", "66561")],
         "options", _JMS_NONDURABLE),
        # JMS's durable RegSub (design README "Observed since").
        (psc, [("Command", "RegSub"), ("Topic", "T"), ("RegOpt", "1409025"), ("SubName", "S"),
               ("SubIdentity", "<null>")],
         "options", _JMS_DURABLE),
        (psc, [("Command", "RegSub"), ("Topic", "T"), ("RegOpt", "0")], "options", RegOpt.NONE),
        # Integer and string forms mix, in one element or several; leading zeros are decimal.
        (psc, [("Command", "RegSub"), ("Topic", "T"), ("RegOpt", "CorrelAsId 1024")],
         "options", RegOpt.CORREL_ID_AS_IDENTITY | RegOpt.NON_PERSISTENT),
        (psc, [("Command", "RegSub"), ("Topic", "T"), ("RegOpt", "0512"),
               ("RegOpt", "InformIfRet")],
         "options", RegOpt.INFORM_IF_RETAINED | RegOpt.DUPLICATES_OK),
        (psc, [("Command", "Publish"), ("Topic", "T"), ("PubOpt", "6")],
         "options", PubOpt.RETAIN_PUBLICATION | PubOpt.OTHER_SUBSCRIBERS_ONLY),
        (rfh1, [("MQPSCommand", "Publish"), ("MQPSTopic", "T"), ("MQPSPubOpts", "8")],
         "options", PubOpt.NO_REGISTRATION),
        (psc, [("Command", "Publish"), ("Topic", "T"), ("RegOpt", "1")],
         "reg_options", RegOpt.CORREL_ID_AS_IDENTITY),
        (psc, [("Command", "DeletePub"), ("Topic", "T"), ("DelOpt", "4")], "options", DelOpt.LOCAL),
    ],
)  # fmt: skip
def test_integer_option_values_are_read_as_their_flags(
    build: object, pairs: list[tuple[str, str]], field: str, expected: int
) -> None:
    cmd = build(*pairs)  # type: ignore[operator]
    assert isinstance(cmd, (RegSub, Publish, DeletePub))
    assert getattr(cmd, field) == expected


@pytest.mark.parametrize(
    ("build", "pairs", "reason"),
    [
        (psc, [("Command", "RegSub"), ("Topic", "T"), ("RegOpt", "4194304")],
         RC.CF_REG_OPTIONS_ERROR),  # 0x400000: no MQREGO_ bit
        (psc, [("Command", "RegSub"), ("Topic", "T"), ("RegOpt", "66561 8388608")],
         RC.CF_REG_OPTIONS_ERROR),
        (psc, [("Command", "RegSub"), ("Topic", "T"), ("RegOpt", "2")],
         RC.CF_REG_OPTIONS_ERROR),  # Anon exists only in RFH1, as its string does
        (rfh1, [("MQPSCommand", "RegSub"), ("MQPSTopic", "T"), ("MQPSRegOpts", "64")],
         RC.CF_REG_OPTIONS_ERROR),  # DeregAll is not a RegSub option, in either form
        (psc, [("Command", "RegSub"), ("Topic", "T"), ("RegOpt", "-1")], RC.CF_REG_OPTIONS_ERROR),
        (psc, [("Command", "RegSub"), ("Topic", "T"), ("RegOpt", "0x1")], RC.CF_REG_OPTIONS_ERROR),
        (psc, [("Command", "Publish"), ("Topic", "T"), ("PubOpt", "32")],
         RC.CF_PUB_OPTIONS_ERROR),
        (psc, [("Command", "Publish"), ("Topic", "T"), ("PubOpt", "16")],
         RC.CF_PUB_OPTIONS_ERROR),  # IsRetainedPub: set only by the broker
        (psc, [("Command", "Publish"), ("Topic", "T"), ("PubOpt", "1073741824")],
         RC.CF_PUB_OPTIONS_ERROR),  # the emulator's private Local bit has no integer form
        (psc, [("Command", "Publish"), ("Topic", "T"), ("PubOpt", "8")],
         RC.CF_PUB_OPTIONS_ERROR),  # NoReg: RFH1 only
        (psc, [("Command", "DeletePub"), ("Topic", "T"), ("DelOpt", "1")],
         RC.CF_DEL_OPTIONS_ERROR),
    ],
)  # fmt: skip
def test_integer_option_values_with_an_unknown_bit_are_options_errors(
    build: object, pairs: list[tuple[str, str]], reason: int
) -> None:
    assert reason_of(build, *pairs) == reason


@pytest.mark.parametrize(
    ("build", "pairs"),
    [
        # V1: first, before MQPSCommand (transcript jms_v6_pubsub_rfh1.txt).
        (rfh1, [("UNIQUE_CONNECTION_ID", CONN), ("MQPSCommand", "Publish"), ("MQPSTopic", "T"),
                ("MQPSPubOpts", "NoReg")]),
        # V2: last inside <psc> (transcript jms_v6_pubsub_rfh2.txt).
        (psc, [("Command", "Publish"), ("PubOpt", "None"), ("Topic", "T"),
               ("UNIQUE_CONNECTION_ID", CONN)]),
        (psc, [("Command", "RegSub"), ("UNIQUE_CONNECTION_ID", CONN), ("Topic", "T")]),
    ],
)  # fmt: skip
def test_the_jms_connection_id_is_accepted_and_ignored(
    build: object, pairs: list[tuple[str, str]]
) -> None:
    cmd = build(*pairs)  # type: ignore[operator]
    assert cmd.topics == ("T",)
    assert all(tag != "UNIQUE_CONNECTION_ID" for tag, _ in cmd.source)
    if isinstance(cmd, Publish):
        assert cmd.content.name_values == ()  # not passed on as a user pair either


@pytest.mark.parametrize(
    ("build", "pairs", "reason"),
    [
        (rfh1, [("UNIQUE_CONNECTION", CONN), ("MQPSCommand", "Publish"), ("MQPSTopic", "T")],
         RC.RFH_COMMAND_ERROR),  # any other name first: MQPSCommand must be first (§2.3)
        (rfh1, [("MQPSUNIQUE_CONNECTION_ID", CONN), ("MQPSCommand", "Publish")],
         RC.RFH_COMMAND_ERROR),
        (psc, [("Command", "Publish"), ("Topic", "T"), ("unique_connection_id", CONN)],
         RC.RFH_PARM_ERROR),  # names are case sensitive
        (psc, [("Command", "Publish"), ("Topic", "T"), ("UNIQUE_CONNECTION_IDS", CONN)],
         RC.RFH_PARM_ERROR),
        (psc, [("UNIQUE_CONNECTION_ID", CONN)], RC.RFH_PARM_MISSING),  # still no Command
    ],
)  # fmt: skip
def test_other_unknown_names_keep_their_reason_codes(
    build: object, pairs: list[tuple[str, str]], reason: int
) -> None:
    assert reason_of(build, *pairs) == reason


def _rfh2(folder: str, encoding: int) -> bytes:
    header = rfh2_codec.Rfh2(format=MQFMT_STRING, folders=(folder,))
    return rfh2_codec.encode(header, encoding) + b"hello-pubsub"


@pytest.mark.parametrize("encoding", [273, 546])
@pytest.mark.parametrize(
    "folder",
    [
        "<psc><Command>RegSub</Command><RegOpt>66561</RegOpt><QMgrName>QM1</QMgrName>"
        "<SubUserData></SubUserData><Topic>probe/topic</Topic>"
        "<QName>SYSTEM.JMS.ND.SUBSCRIBER.QUEUE</QName></psc>",
        "<psc><Command>Publish</Command><PubOpt>None</PubOpt><Topic>probe/topic</Topic>"
        f"<UNIQUE_CONNECTION_ID>{CONN}</UNIQUE_CONNECTION_ID></psc>",
    ],
)
def test_the_fast_reader_and_the_general_codecs_read_jms_commands_alike(
    folder: str, encoding: int
) -> None:
    value = _rfh2(folder, encoding)
    md = MQMD(Format=MQFMT_RF_HEADER_2, Encoding=encoding, CorrelId=b"C" * 24, ReplyToQ="R")
    assert codec._read_plain_rfh2(value, encoding) is not None  # the fast path takes it
    fast = CommandReader().decode(value, md, "SYSTEM.BROKER.CONTROL.QUEUE")
    general = command_from_psc(
        list(codec._read_general(value, md).pairs), md, queue="SYSTEM.BROKER.CONTROL.QUEUE"
    )
    assert fast.topics == general.topics == ("probe/topic",)
    assert fast.source == general.source


def test_the_observed_rfh1_publish_decodes() -> None:
    text = (
        f"UNIQUE_CONNECTION_ID {CONN} MQPSCommand Publish MQPSTopic probe/topic MQPSPubOpts NoReg"
    )
    header = rfh1_codec.Rfh1(format=MQFMT_STRING, name_values=text)
    value = rfh1_codec.encode(header, 273) + b"body"
    md = MQMD(Format=MQFMT_RF_HEADER_1, Encoding=273, CorrelId=b"C" * 24, ReplyToQ="R")
    cmd = CommandReader().decode(value, md, "SYSTEM.BROKER.DEFAULT.STREAM")
    assert isinstance(cmd, Publish)
    assert cmd.options == PubOpt.NO_REGISTRATION and cmd.content.body == b"body"
