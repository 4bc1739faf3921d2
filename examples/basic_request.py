"""IBM's pymqi requester (mq-dev-patterns basicrequest.py), on mqkafka: a temporary dynamic
reply queue from the model queue, a request that names it, and a wait for the reply whose
CorrelId is the request's MsgId."""

import json
import os

import mqkafka.mqi as pymqi  # was: import pymqi

QMGR = os.environ.get("QMGR", "QM1")
QUEUE_NAME = os.environ.get("QUEUE_NAME", "DEV.QUEUE.1")
MODEL_QUEUE_NAME = os.environ.get("MODEL_QUEUE_NAME", "SYSTEM.DEFAULT.MODEL.QUEUE")
DYNAMIC_QUEUE_PREFIX = os.environ.get("DYNAMIC_QUEUE_PREFIX", "APP.REPLIES.*")
CONN_INFO = "%s(%s)" % (os.environ.get("HOST", "localhost"), os.environ.get("PORT", "9092"))

cd = pymqi.CD()
cd.ChannelName = os.environ.get("CHANNEL", "DEV.APP.SVRCONN")
cd.ConnectionName = CONN_INFO
cd.ChannelType = pymqi.CMQC.MQCHT_CLNTCONN
cd.TransportType = pymqi.CMQC.MQXPT_TCP
qmgr = pymqi.QueueManager(None)
qmgr.connect_with_options(QMGR, opts=pymqi.CMQC.MQPMO_NEW_CORREL_ID, cd=cd, sco=pymqi.SCO())

queue = pymqi.Queue(qmgr)
od = pymqi.OD()
od.ObjectName = QUEUE_NAME
queue.open(od, pymqi.CMQC.MQOO_OUTPUT)

dyn_od = pymqi.OD()
dyn_od.ObjectName = MODEL_QUEUE_NAME
dyn_od.DynamicQName = DYNAMIC_QUEUE_PREFIX
dyn_queue = pymqi.Queue(qmgr, dyn_od, pymqi.CMQC.MQOO_INPUT_EXCLUSIVE)
dynamic_name = dyn_od.ObjectName.strip()
print("reply queue", dynamic_name.decode())

md = pymqi.MD()
md.ReplyToQ = dynamic_name
md.MsgType = pymqi.CMQC.MQMT_REQUEST
md.Format = pymqi.CMQC.MQFMT_STRING
queue.put(json.dumps({"Greeting": "Hello from Python!", "value": 21}).encode(), md)

reply_md = pymqi.MD()
reply_md.CorrelId = md.MsgId
gmo = pymqi.GMO()
gmo.Options = pymqi.CMQC.MQGMO_WAIT | pymqi.CMQC.MQGMO_FAIL_IF_QUIESCING
gmo.WaitInterval = int(os.environ.get("WAIT_SECONDS", "30")) * 1000
gmo.MatchOptions = pymqi.CMQC.MQMO_MATCH_CORREL_ID
reply = dyn_queue.get(None, reply_md, gmo)
print("reply", json.loads(reply.decode()))

dyn_queue.close()
queue.close()
qmgr.disconnect()
