"""IBM's pymqi responder (mq-dev-patterns basicresponse.py), on mqkafka: gets requests under
syncpoint, puts each reply to the request's ReplyToQ with CorrelId = the request's MsgId and
commits both together. Stops when no request comes for WAIT_SECONDS (default 30)."""

import json
import os

import mqkafka.mqi as pymqi  # was: import pymqi

QMGR = os.environ.get("QMGR", "QM1")
QUEUE_NAME = os.environ.get("QUEUE_NAME", "DEV.QUEUE.1")
CONN_INFO = "%s(%s)" % (os.environ.get("HOST", "localhost"), os.environ.get("PORT", "9092"))

qmgr = pymqi.connect(QMGR, os.environ.get("CHANNEL", "DEV.APP.SVRCONN"), CONN_INFO)
queue = pymqi.Queue(qmgr, QUEUE_NAME, pymqi.CMQC.MQOO_INPUT_AS_Q_DEF)
print("responder ready", flush=True)

gmo = pymqi.GMO()
gmo.Options = pymqi.CMQC.MQGMO_WAIT | pymqi.CMQC.MQGMO_SYNCPOINT
gmo.WaitInterval = int(os.environ.get("WAIT_SECONDS", "30")) * 1000
while True:
    md = pymqi.MD()
    try:
        request = queue.get(None, md, gmo)
    except pymqi.MQMIError as e:
        if e.reason == pymqi.CMQC.MQRC_NO_MSG_AVAILABLE:
            break
        raise
    body = json.loads(request.decode())
    reply_md = pymqi.MD()
    reply_md.CorrelId = md.MsgId
    reply_md.Format = pymqi.CMQC.MQFMT_STRING
    reply_md.MsgType = pymqi.CMQC.MQMT_REPLY
    reply = json.dumps({"value": body["value"] * 2})
    qmgr.put1(md.ReplyToQ.strip(), reply, reply_md,
              pymqi.PMO(Options=pymqi.CMQC.MQPMO_SYNCPOINT))
    qmgr.commit()
    print("replied", reply, flush=True)
    if os.environ.get("ONE_REQUEST"):
        break

queue.close()
qmgr.disconnect()
