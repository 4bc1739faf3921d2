"""IBM's pymqi subscriber (mq-dev-patterns basicsubscribe.py), on mqkafka: a durable managed
subscription (created, or resumed if it exists), publications got from its queue. Needs the
broker service (``mqk serve``). Stops after MAX_MESSAGES or WAIT_SECONDS without one."""

import json
import os

import mqkafka.mqi as pymqi  # was: import pymqi

QMGR = os.environ.get("QMGR", "QM1")
TOPIC_NAME = os.environ.get("TOPIC_NAME", "dev/")
SUB_NAME = os.environ.get("SUB_NAME", "MySub")
CONN_INFO = "%s(%s)" % (os.environ.get("HOST", "localhost"), os.environ.get("PORT", "9092"))

qmgr = pymqi.connect(QMGR, os.environ.get("CHANNEL", "DEV.APP.SVRCONN"), CONN_INFO)

sub_desc = pymqi.SD()
sub_desc["Options"] = pymqi.CMQC.MQSO_CREATE + pymqi.CMQC.MQSO_RESUME + \
    pymqi.CMQC.MQSO_DURABLE + pymqi.CMQC.MQSO_MANAGED
sub_desc.set_vs("SubName", SUB_NAME)
sub_desc.set_vs("ObjectString", TOPIC_NAME)
subscription = pymqi.Subscription(qmgr)
subscription.sub(sub_desc=sub_desc)
print("subscribed", flush=True)

gmo = pymqi.GMO(Options=pymqi.CMQC.MQGMO_NO_SYNCPOINT + pymqi.CMQC.MQGMO_FAIL_IF_QUIESCING
                + pymqi.CMQC.MQGMO_WAIT)
gmo["WaitInterval"] = int(os.environ.get("WAIT_SECONDS", "30")) * 1000
md = pymqi.MD()
received = 0
while received < int(os.environ.get("MAX_MESSAGES", "1")):
    try:
        message = subscription.get(None, md, gmo)
    except pymqi.MQMIError as e:
        if e.comp == pymqi.CMQC.MQCC_FAILED and e.reason == pymqi.CMQC.MQRC_NO_MSG_AVAILABLE:
            break
        raise
    received += 1
    print("publication", json.loads(message.decode()), flush=True)
    md.MsgId = pymqi.CMQC.MQMI_NONE
    md.CorrelId = pymqi.CMQC.MQCI_NONE
    md.GroupId = pymqi.CMQC.MQGI_NONE

subscription.close(sub_close_options=pymqi.CMQC.MQCO_KEEP_SUB, close_sub_queue=True)
qmgr.disconnect()
