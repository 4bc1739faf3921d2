"""MQPUT(msg, md) by its template (putmd.TemplatePut) against the real broker: each put of a
new MD with the same fields gets its own MsgId and the time, the MD is filled in as MQ fills
it, and the message got back carries the descriptor the rules made (issue 23, MQPUT speed)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import mqkafka.mqi as pymqi
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

pytestmark = pytest.mark.kafka

FILLED = ("UserIdentifier", "PutApplType", "PutApplName", "PutDate", "PutTime", "CorrelId")


@pytest.mark.parametrize(
    "make",
    [
        lambda: pymqi.MD(),
        lambda: pymqi.MD(Format=C.MQFMT_STRING, CodedCharSetId=1208, Priority=7),
        lambda: pymqi.MD(MsgType=C.MQMT_REQUEST, ReplyToQ=b"REPLY.Q", CorrelId=b"c" * 24),
        lambda: pymqi.MD(Persistence=C.MQPER_PERSISTENT, Expiry=6000),
    ],
    ids=["default", "string", "request", "persistent"],
)
def test_repeated_puts_of_alike_descriptors(
    make: Callable[[], pymqi.MD], qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    queue = pymqi.Queue(qmgr, new_queue(), C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    put: list[pymqi.MD] = []
    for i in range(3):  # the first by the rules, the others by the template it left
        md = make()
        queue.put(b"message %d" % i, md)
        put.append(md)
    assert len({md.MsgId for md in put}) == 3 and all(len(md.MsgId) == 24 for md in put)
    for md in put:
        assert md.PutDate and md.PutTime and md.UserIdentifier
        assert {
            name: getattr(md, name) for name in FILLED if name not in ("PutDate", "PutTime")
        } == {name: getattr(put[0], name) for name in FILLED if name not in ("PutDate", "PutTime")}
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=15000)
    for i, sent in enumerate(put):
        got = pymqi.MD(MsgId=sent.MsgId)
        gmo.MatchOptions = C.MQMO_MATCH_MSG_ID
        assert queue.get(None, got, gmo) == b"message %d" % i
        for name in ("Format", "Priority", "Persistence", "MsgType", "ReplyToQ", "CorrelId",
                     "PutDate", "PutTime", "UserIdentifier", "CodedCharSetId"):  # fmt: skip
            assert _same(getattr(got, name), getattr(sent, name), name)
    queue.close()


def _same(got: object, sent: object, name: str) -> bool:
    if name == "CodedCharSetId":
        return got == (sent or 1208)
    if name == "Priority" and sent == C.MQPRI_PRIORITY_AS_Q_DEF:
        return got == 0
    if name == "Persistence" and sent == C.MQPER_PERSISTENCE_AS_Q_DEF:
        return got == C.MQPER_NOT_PERSISTENT
    if isinstance(got, bytes) and isinstance(sent, bytes):
        return got.rstrip(b"\0 ") == sent.rstrip(b"\0 ")
    return got == sent


def test_a_reused_descriptor_keeps_its_msgid(
    qmgr: QueueManager, new_queue: Callable[..., str]
) -> None:
    """MQ puts with the MsgId the MD holds: a program reusing its MD puts the same id again
    (the template is for a blank MsgId only)."""
    queue = pymqi.Queue(qmgr, new_queue(), C.MQOO_OUTPUT)
    md = pymqi.MD()
    queue.put(b"one", md)
    first = md.MsgId
    queue.put(b"two", md)
    assert md.MsgId == first
    queue.put(b"three", md, pymqi.PMO(Options=C.MQPMO_NEW_MSG_ID))
    assert md.MsgId != first
    queue.close()
