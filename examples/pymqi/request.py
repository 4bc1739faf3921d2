"""Ask a question and wait for the answer: a request with a reply queue of its own.

The reply queue is a temporary dynamic queue, made from a model queue for this program
alone and gone when it closes it. The request carries its name in ReplyToQ; the responder
(respond.py) sends its reply there with the request's MsgId as CorrelId, and this program
gets that one reply by CorrelId.

    python examples/pymqi/respond.py &   # first, in another terminal
    python examples/pymqi/request.py

Environment: QMGR, CHANNEL, HOST, PORT, QUEUE_NAME (where requests go), MODEL_QUEUE_NAME,
DYNAMIC_QUEUE_PREFIX, APP_USER, APP_PASSWORD (MQ developer container defaults), and
REPLY_WAIT_SECONDS (30: how long to wait for the reply).
"""

import json
import os
import random

import mqkafka.mqi as pymqi  # for IBM MQ itself: import pymqi

CMQC = pymqi.CMQC


def open_reply_queue(qmgr, model, prefix):
    """MQOPEN of the model queue: a new temporary dynamic queue, whose name MQ writes into
    the object descriptor."""
    od = pymqi.OD()
    od.ObjectName = model.encode()
    od.DynamicQName = prefix.encode()
    queue = pymqi.Queue(qmgr)
    queue.open(od, CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_FAIL_IF_QUIESCING)
    return queue, od.ObjectName.rstrip(b"\0 ").decode()


def send_request(qmgr, queue_name, reply_to, question):
    """MQPUT1 of a request message; returns its MsgId, which the reply will correlate to."""
    md = pymqi.MD()
    md.MsgType = CMQC.MQMT_REQUEST
    md.Format = CMQC.MQFMT_STRING
    md.CodedCharSetId = 1208
    md.ReplyToQ = reply_to.encode()
    md.Report = CMQC.MQRO_NONE  # the default: the reply's CorrelId is our MsgId
    qmgr.put1(queue_name, json.dumps(question).encode("utf-8"), md)
    return md.MsgId


def await_reply(reply_queue, msg_id, wait_seconds):
    """MQGET of the reply whose CorrelId is ``msg_id``; None when none comes in time."""
    md = pymqi.MD()
    md.CorrelId = msg_id
    gmo = pymqi.GMO()
    gmo.Version = CMQC.MQGMO_VERSION_2  # MatchOptions came with version 2
    gmo.MatchOptions = CMQC.MQMO_MATCH_CORREL_ID
    gmo.Options = CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING | CMQC.MQGMO_NO_SYNCPOINT
    gmo.WaitInterval = int(wait_seconds * 1000)
    try:
        return reply_queue.get(None, md, gmo)
    except pymqi.MQMIError as error:
        if error.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
            return None
        raise


def main():
    conn_info = "{}({})".format(os.environ.get("HOST", "localhost"), os.environ.get("PORT", "1414"))
    queue_name = os.environ.get("QUEUE_NAME", "DEV.QUEUE.1")
    model = os.environ.get("MODEL_QUEUE_NAME", "DEV.APP.MODEL.QUEUE")
    prefix = os.environ.get("DYNAMIC_QUEUE_PREFIX", "APP.REPLIES.*")
    wait_seconds = float(os.environ.get("REPLY_WAIT_SECONDS", "30"))
    qmgr = pymqi.connect(
        os.environ.get("QMGR", "QM1"),
        os.environ.get("CHANNEL", "DEV.APP.SVRCONN"),
        conn_info,
        os.environ.get("APP_USER") or None,
        os.environ.get("APP_PASSWORD") or None,
    )
    reply_queue, reply_to = open_reply_queue(qmgr, model, prefix)
    print(f"reply queue {reply_to}")
    try:
        question = {"factorise": random.randint(2, 1_000_000)}
        msg_id = send_request(qmgr, queue_name, reply_to, question)
        print(f"request to {queue_name}: {json.dumps(question)} (MsgId {msg_id.hex()})")

        answer = await_reply(reply_queue, msg_id, wait_seconds)
        if answer is None:
            print(f"no reply within {wait_seconds:g} s: is respond.py running?")
            raise SystemExit(1)
        print(f"reply: {json.dumps(json.loads(answer))}")
    finally:
        reply_queue.close()  # a temporary dynamic queue is deleted as it closes
        qmgr.disconnect()


if __name__ == "__main__":
    main()
