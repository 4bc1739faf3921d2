"""Answer requests, one unit of work each, until Ctrl-C.

Each request is got under syncpoint, so it stays on the queue until the reply is put and
both are committed together. A request that cannot be answered (not JSON, no number, no
ReplyToQ, a reply that cannot be put) is backed out: it goes back on the queue with its
BackoutCount one higher and comes round again. Once it has been backed out
BACKOUT_THRESHOLD times it is moved to the backout queue instead (as MQ's BOTHRESH and
BOQNAME have a queue manager do), so a poison message cannot block the queue.

The answer to ``{"factorise": n}`` is n's prime factors, sent to the request's ReplyToQ
with the request's MsgId as CorrelId (or its CorrelId, if it asked MQRO_PASS_CORREL_ID).

    python examples/pymqi/respond.py

Environment: QMGR, CHANNEL, HOST, PORT, QUEUE_NAME (requests), BACKOUT_QUEUE, APP_USER,
APP_PASSWORD (MQ developer container defaults), BACKOUT_THRESHOLD (5).
"""

import json
import os

import mqkafka.mqi as pymqi  # for IBM MQ itself: import pymqi

CMQC = pymqi.CMQC
WAIT_MS = 5000


class CannotAnswer(Exception):
    """A request this responder cannot answer."""


def prime_factors(n):
    factors, p = [], 2
    while p * p <= n:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    if n > 1:
        factors.append(n)
    return factors


def answer(data):
    """The reply's body for a request's data."""
    try:
        n = json.loads(data)["factorise"]
    except (ValueError, KeyError, TypeError) as error:
        raise CannotAnswer(f"not a request to factorise: {data!r}") from error
    if not isinstance(n, int) or n < 2:
        raise CannotAnswer(f"cannot factorise {n!r}")
    return {"number": n, "prime_factors": prime_factors(n)}


def reply(qmgr, request_md, body):
    """MQPUT1 of the reply, in the unit of work of the request's MQGET."""
    reply_to = request_md.ReplyToQ.rstrip(b"\0 ")
    if not reply_to:
        raise CannotAnswer("the request has no ReplyToQ")
    od = pymqi.OD()
    od.ObjectName = reply_to
    od.ObjectQMgrName = request_md.ReplyToQMgr

    md = pymqi.MD()
    md.MsgType = CMQC.MQMT_REPLY
    md.Format = CMQC.MQFMT_STRING
    md.CodedCharSetId = 1208
    if request_md.Report & CMQC.MQRO_PASS_CORREL_ID:
        md.CorrelId = request_md.CorrelId
    else:
        md.CorrelId = request_md.MsgId
    pmo = pymqi.PMO()
    pmo.Options = CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_FAIL_IF_QUIESCING
    qmgr.put1(od, json.dumps(body).encode("utf-8"), md, pmo)
    return reply_to.decode()


def move_to_backout_queue(qmgr, backout_queue, data, md):
    """MQPUT1 of the request as it came (its MsgId, CorrelId, ReplyToQ...) to the backout
    queue, in the unit of work of its MQGET."""
    pmo = pymqi.PMO()
    pmo.Options = CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_FAIL_IF_QUIESCING
    qmgr.put1(backout_queue, data, md, pmo)


def serve(qmgr, requests, backout_queue, threshold):
    """Get, answer and commit, one request at a time, until Ctrl-C."""
    while True:
        md = pymqi.MD()
        gmo = pymqi.GMO()
        gmo.Options = CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING
        gmo.WaitInterval = WAIT_MS
        try:
            data = requests.get(None, md, gmo)
        except pymqi.MQMIError as error:
            if error.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                continue
            raise
        print(f"request (backed out {md.BackoutCount} times): {data.decode('utf-8', 'replace')}")

        if md.BackoutCount >= threshold:
            move_to_backout_queue(qmgr, backout_queue, data, md)
            qmgr.commit()
            print(f"moved to {backout_queue} (MsgId {md.MsgId.hex()})")
            continue

        try:
            body = answer(data)
            reply_to = reply(qmgr, md, body)
        except (CannotAnswer, pymqi.MQMIError) as problem:  # MQMIError: e.g. no such ReplyToQ
            qmgr.backout()  # back on the queue, BackoutCount + 1
            print(f"backed out: {problem}")
            continue
        qmgr.commit()
        print(f"replied to {reply_to}: {json.dumps(body)}")


def main():
    conn_info = "{}({})".format(os.environ.get("HOST", "localhost"), os.environ.get("PORT", "1414"))
    queue_name = os.environ.get("QUEUE_NAME", "DEV.QUEUE.1")
    backout_queue = os.environ.get("BACKOUT_QUEUE", "DEV.QUEUE.2")
    threshold = int(os.environ.get("BACKOUT_THRESHOLD", "5"))
    qmgr = pymqi.connect(
        os.environ.get("QMGR", "QM1"),
        os.environ.get("CHANNEL", "DEV.APP.SVRCONN"),
        conn_info,
        os.environ.get("APP_USER") or None,
        os.environ.get("APP_PASSWORD") or None,
    )
    requests = pymqi.Queue(qmgr, queue_name, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_FAIL_IF_QUIESCING)
    print(f"answering requests on {queue_name} (Ctrl-C ends)")
    try:
        serve(qmgr, requests, backout_queue, threshold)
    except KeyboardInterrupt:
        qmgr.backout()  # a request got but not answered goes back on the queue
        print("interrupted")
    finally:
        requests.close()
        qmgr.disconnect()
        print("closed")


if __name__ == "__main__":
    main()
