"""IBM's pymqi put/get pattern (mq-dev-patterns basicput.py + basicget.py), on mqkafka.

The only change from a pymqi program is the import. The queue manager's listener is Kafka:
HOST/PORT name a bootstrap server (MQK_NAMESPACE, if set, chooses the namespace).
"""

import json
import os

import mqkafka.mqi as pymqi  # was: import pymqi

QMGR = os.environ.get("QMGR", "QM1")
CHANNEL = os.environ.get("CHANNEL", "DEV.APP.SVRCONN")
QUEUE_NAME = os.environ.get("QUEUE_NAME", "DEV.QUEUE.1")
CONN_INFO = "%s(%s)" % (os.environ.get("HOST", "localhost"), os.environ.get("PORT", "9092"))

cd = pymqi.CD()
cd.ChannelName = CHANNEL
cd.ConnectionName = CONN_INFO
cd.ChannelType = pymqi.CMQC.MQCHT_CLNTCONN
cd.TransportType = pymqi.CMQC.MQXPT_TCP
sco = pymqi.SCO()

qmgr = pymqi.QueueManager(None)
qmgr.connect_with_options(QMGR, user=os.environ.get("APP_USER"),
                          password=os.environ.get("APP_PASSWORD"), cd=cd, sco=sco)

# put
queue = pymqi.Queue(qmgr, QUEUE_NAME)
md = pymqi.MD()
md.Format = pymqi.CMQC.MQFMT_STRING
queue.put(json.dumps({"Greeting": "Hello from Python!", "value": 42}).encode(), md)
queue.close()
print("put", md.MsgId.hex())

# get
queue = pymqi.Queue(qmgr)
od = pymqi.OD()
od.ObjectName = QUEUE_NAME
queue.open(od, pymqi.CMQC.MQOO_INPUT_AS_Q_DEF)
md = pymqi.MD()
gmo = pymqi.GMO()
gmo.Options = pymqi.CMQC.MQGMO_WAIT | pymqi.CMQC.MQGMO_FAIL_IF_QUIESCING
gmo.WaitInterval = 5000
while True:
    try:
        message = queue.get(None, md, gmo)
    except pymqi.MQMIError as e:
        if e.comp == pymqi.CMQC.MQCC_FAILED and e.reason == pymqi.CMQC.MQRC_NO_MSG_AVAILABLE:
            break  # no more messages
        raise
    print("got", json.loads(message.decode()))
    md.MsgId = pymqi.CMQC.MQMI_NONE
    md.CorrelId = pymqi.CMQC.MQCI_NONE
    md.GroupId = pymqi.CMQC.MQGI_NONE
queue.close()
qmgr.disconnect()
