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


# ---- Queue.put_run (module putrun: the listener's runs of async puts) against put ----

RUN_GIVEN = [b"AMQ run test id %08d" % i for i in range(6)]  # 24 bytes each, as IBM's client's


def _each(queue: pymqi.Queue, md: pymqi.MD, items: list[tuple[bytes, bytes]]) -> list[int]:
    """put(data, md with the item's MsgId) each: the reason of each (0: put)."""
    reasons = []
    for data, msg_id in items:
        try:
            queue.put(data, pymqi.MD(**{**md.__dict__, "MsgId": msg_id}))
            reasons.append(0)
        except pymqi.MQMIError as error:
            reasons.append(error.reason)
    return reasons


def _run(queue: pymqi.Queue, md: pymqi.MD, items: list[tuple[bytes, bytes]]) -> list[int]:
    """put_run, on past each put that raised (as the listener's put stream), in two runs
    (as the listener's, a receive's worth each): the second starts by the handle's template
    where the first left one."""
    reasons: list[int] = []
    for run in (items[:3], items[3:]):
        while run:
            done, error = queue.put_run(md, run)
            reasons += [0] * done
            if error is None:
                break
            reasons.append(error.reason)
            run = run[done + 1 :]
    return reasons


def _got(queue: pymqi.Queue) -> list[tuple[bytes, dict[str, object]]]:
    out: list[tuple[bytes, dict[str, object]]] = []
    gmo = pymqi.GMO(Options=C.MQGMO_NO_WAIT | C.MQGMO_NO_SYNCPOINT)
    while True:
        md = pymqi.MD()
        try:
            data = queue.get(None, md, gmo)
        except pymqi.MQMIError as error:
            assert error.reason == C.MQRC_NO_MSG_AVAILABLE
            return out
        fields = dict(md.__dict__)
        del fields["PutDate"], fields["PutTime"]
        out.append((data, fields))


@pytest.mark.parametrize(
    ("md", "datas", "attributes"),
    [
        (pymqi.MD(Format=C.MQFMT_STRING, Priority=5, CorrelId=b"c" * 24),
         [b"x%d" % i for i in range(6)], {}),
        (pymqi.MD(Persistence=C.MQPER_PERSISTENT), [b"p%d" % i for i in range(3)], {}),
        (pymqi.MD(Priority=12), [b"w%d" % i for i in range(3)], {}),  # each put warned (2049)
        (pymqi.MD(), [b"s", b"long one", b"s", b"long two", b"s"], {"max_msg_length": 4}),
        (pymqi.MD(), [b"d%d" % i for i in range(5)], {"max_depth": 3}),
        (pymqi.MD(), [b"i%d" % i for i in range(3)], {"inhibit_put": True}),
    ],
    ids=["alike", "persistent", "warned", "too-long", "maxdepth", "inhibited"],
)  # fmt: skip
def test_a_run_of_puts_is_each_put_by_itself(
    md: pymqi.MD,
    datas: list[bytes],
    attributes: dict[str, object],
    qmgr: QueueManager,
    new_queue: Callable[..., str],
) -> None:
    """The same MDs and data, put one by one on one queue and as a run on another: the same
    outcome each, and the same messages got back (but for the time), in the same order; a
    blank MsgId in a run gets one of its own, as put's."""
    given = list(RUN_GIVEN[: len(datas)])
    given[1] = bytes(24)
    ways = []
    for put in (_each, _run):
        name = new_queue(**attributes)
        queue = pymqi.Queue(qmgr, name, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
        reasons = put(queue, md, list(zip(datas, given, strict=True)))
        got = _got(queue)
        for _, fields in got:
            assert fields["MsgId"] != bytes(24)
            if fields["MsgId"] not in given:  # the blank one's: its own, made by the put
                fields["MsgId"] = b"made"
        ways.append((reasons, got))
        queue.close()
    assert ways[0] == ways[1]
    assert ways[0][0] != [0] * len(datas) or not attributes
