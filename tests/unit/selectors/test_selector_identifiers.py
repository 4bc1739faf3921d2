"""What names refer to: usr properties, JMS header names over the MQMD, ``Root.MQMD.<Field>``."""

from __future__ import annotations

import calendar
from datetime import datetime

import pytest

from mqkafka.selectors import DictMessageView, compile_selector
from mqkafka.selectors.identifiers import JMS_HEADERS, MQMD_FIELDS
from tests.unit.selectors.helpers import evaluate

CORREL = bytes(range(1, 25))
MSGID = b"AMQ QM1     " + bytes(range(12))
PUT_MS = calendar.timegm(datetime(2024, 1, 31, 12, 34, 56).timetuple()) * 1000 + 780

JMS_ROWS = [
    # (filter, MQMD fields, expected)
    (f"JMSCorrelationID = 'ID:{CORREL.hex()}'", {"CorrelId": CORREL}, True),
    ("JMSCorrelationID LIKE 'ID:0102%'", {"CorrelId": CORREL}, True),
    ("JMSCorrelationID IS NULL", {"CorrelId": bytes(24)}, True),  # MQCI_NONE: no correl id
    ("JMSCorrelationID IS NULL", {}, True),
    (f"JMSMessageID = 'ID:{MSGID.hex()}'", {"MsgId": MSGID}, True),
    ("JMSMessageID LIKE 'ID:414d51%'", {"MsgId": MSGID}, True),  # lower-case hex, as MQ JMS
    ("JMSMessageID IS NULL", {}, True),
    ("JMSPriority = 7", {"Priority": 7}, True),
    ("JMSPriority > 4", {"Priority": 9}, True),
    ("JMSPriority = 0", {}, True),  # MQPRI_PRIORITY_AS_Q_DEF → DEFPRTY(0) (choice)
    ("JMSPriority = 0", {"Priority": -1}, True),
    ("JMSDeliveryMode = 'PERSISTENT'", {"Persistence": 1}, True),
    ("JMSDeliveryMode = 'NON_PERSISTENT'", {"Persistence": 0}, True),
    ("JMSDeliveryMode = 'NON_PERSISTENT'", {}, True),  # as-queue-def → DEFPSIST(NO) (choice)
    ("JMSTimestamp = " + str(PUT_MS), {"PutDate": "20240131", "PutTime": "12345678"}, True),
    ("JMSTimestamp > 0", {"PutDate": "20240131", "PutTime": "123456"}, True),
    ("JMSTimestamp IS NULL", {}, True),  # no put time
    ("JMSTimestamp IS NULL", {"PutDate": "20241341", "PutTime": "12345678"}, True),
    ("JMSTimestamp IS NULL", {"PutDate": "2024013", "PutTime": "12345678"}, True),
    ("JMSExpiration = 0", {}, True),  # MQEI_UNLIMITED → JMS "never"
    (
        "JMSExpiration = " + str(PUT_MS + 60_000),
        {"PutDate": "20240131", "PutTime": "12345678", "Expiry": 600},  # tenths of a second
        True,
    ),
    ("JMSExpiration IS NULL", {"Expiry": 600}, True),  # expiring, but no put time
    ("JMSRedelivered = FALSE", {}, True),
    ("JMSRedelivered", {"BackoutCount": 2}, True),
    ("JMSXDeliveryCount = 3", {"BackoutCount": 2}, True),
    ("JMSXDeliveryCount = 1", {}, True),
    ("JMSReplyTo = 'queue://QM1/REPLY.Q'", {"ReplyToQ": "REPLY.Q", "ReplyToQMgr": "QM1"}, True),
    ("JMSReplyTo = 'queue:///REPLY.Q'", {"ReplyToQ": "REPLY.Q"}, True),
    ("JMSReplyTo IS NULL", {"ReplyToQ": "   "}, True),
    ("JMSType IS NULL", {}, True),  # the mcd Type is not part of a MessageView
    ("JMSDestination IS NULL", {}, True),
    ("JMSXUserID = 'bob'", {"UserIdentifier": "bob         "}, True),
    ("JMSXUserID IS NULL", {}, True),
    ("JMSXAppID = 'amqsput'", {"PutApplName": "amqsput"}, True),
    (f"JMSXGroupID = 'ID:{CORREL.hex()}'", {"GroupId": CORREL}, True),
    ("JMSXGroupSeq = 0", {}, True),  # wire contract default
    ("JMSXGroupSeq = 3", {"MsgSeqNumber": 3}, True),
    ("JMS_IBM_Format = 'MQSTR'", {"Format": "MQSTR   "}, True),
    ("JMS_IBM_Format IS NULL", {}, True),
    ("JMS_IBM_MsgType = 8", {}, True),
    ("JMS_IBM_MsgType = 1", {"MsgType": 1}, True),
    ("JMS_IBM_Feedback = 0", {}, True),
    ("JMS_IBM_PutApplType = 28", {"PutApplType": 28}, True),
    ("JMS_IBM_Encoding = 546", {}, True),
    ("JMS_IBM_PutDate = '20240131'", {"PutDate": "20240131"}, True),
    ("JMS_IBM_PutTime = '12345678'", {"PutTime": "12345678"}, True),
]

ROOT_MQMD_ROWS = [
    ("Root.MQMD.Priority = -1", {}, True),  # raw field: the default, unresolved
    ("Root.MQMD.Priority = 5", {"Priority": 5}, True),
    ("Root.MQMD.Persistence = 2", {}, True),
    ("Root.MQMD.Encoding = 546", {}, True),
    ("Root.MQMD.CodedCharSetId = 1208", {}, True),
    ("Root.MQMD.MsgType = 8", {}, True),
    ("Root.MQMD.Expiry = -1", {}, True),
    ("Root.MQMD.Format = 'MQSTR'", {"Format": "MQSTR   "}, True),  # trailing blanks dropped
    ("Root.MQMD.Format = ''", {}, True),
    ("Root.MQMD.UserIdentifier = 'bob'", {"UserIdentifier": "bob"}, True),
    (f'Root.MQMD.CorrelId = 0x"{CORREL.hex()}"', {"CorrelId": CORREL}, True),
    (f'Root.MQMD.CorrelId = 0x"{CORREL.hex()}"', {"CorrelId": bytearray(CORREL)}, True),
    (f'Root.MQMD.CorrelId = 0x"{bytes(24).hex()}"', {}, True),
    ('Root.MQMD.AccountingToken = 0x"' + "00" * 32 + '"', {}, True),
    ("Root.MQMD.PutDate = '20240131'", {"PutDate": "20240131"}, True),
    ("Root.MQMD.BackoutCount > 0", {"BackoutCount": 1}, True),
]


@pytest.mark.parametrize(("text", "mqmd", "expected"), JMS_ROWS)
def test_jms_header_names(text: str, mqmd: dict[str, object], expected: bool) -> None:
    assert evaluate(text, mqmd=mqmd) is expected


@pytest.mark.parametrize(("text", "mqmd", "expected"), ROOT_MQMD_ROWS)
def test_root_mqmd_fields(text: str, mqmd: dict[str, object], expected: bool) -> None:
    assert evaluate(text, mqmd=mqmd) is expected


def test_every_mqmd_field_of_the_wire_contract_is_addressable() -> None:
    view = DictMessageView()
    for field in MQMD_FIELDS:
        assert compile_selector(f"Root.MQMD.{field} IS NOT NULL").matches(view), field


def test_every_jms_header_compiles_and_evaluates_on_an_empty_mqmd() -> None:
    view = DictMessageView()
    for name in JMS_HEADERS:
        result = compile_selector(f"{name} IS NULL OR {name} IS NOT NULL").evaluate(view)
        assert result is True, name


@pytest.mark.parametrize(
    ("text", "properties", "expected"),
    [
        ("colour = 'red'", {"colour": "red"}, True),
        ("Root.MQRFH2.usr.colour = 'red'", {"colour": "red"}, True),  # ESQL spelling
        ("Root.MQRFH2.usr.colour IS NULL", {}, True),
        ("JMSFoo = 1", {"JMSFoo": 1}, True),  # an unknown JMS* name is a usr property
        ("JMSPriority = 9", {"JMSPriority": 9}, False),  # header names are not usr properties
        ("missing IS NULL", {"present": 1}, True),
    ],
)
def test_usr_properties(text: str, properties: dict[str, object], expected: bool) -> None:
    assert evaluate(text, properties) is expected


def test_property_types_follow_their_dt() -> None:
    """ports.MessageView: properties are typed by their ``dt`` (i4 → int, r8 → float ...)."""
    properties = {"i": 5, "r": 2.5, "b": True, "s": "x", "bin": b"\x01", "empty": None}
    text = "i = 5 AND r = 2.5 AND b AND s = 'x' AND bin = 0x\"01\" AND empty IS NULL"
    assert evaluate(text, properties) is True
