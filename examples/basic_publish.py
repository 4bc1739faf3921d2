"""IBM's pymqi publisher (mq-dev-patterns basicpublish.py), on mqkafka: open a topic by its
string and publish one message. Subscribers need the broker service (``mqk serve``)."""

import json
import os

import mqkafka.mqi as pymqi  # was: import pymqi

QMGR = os.environ.get("QMGR", "QM1")
TOPIC_NAME = os.environ.get("TOPIC_NAME", "dev/")
CONN_INFO = "%s(%s)" % (os.environ.get("HOST", "localhost"), os.environ.get("PORT", "9092"))

qmgr = pymqi.connect(QMGR, os.environ.get("CHANNEL", "DEV.APP.SVRCONN"), CONN_INFO)
topic = pymqi.Topic(qmgr, topic_string=TOPIC_NAME)
topic.open(open_opts=pymqi.CMQC.MQOO_OUTPUT)
md = pymqi.MD()
md.Format = pymqi.CMQC.MQFMT_STRING
topic.pub(json.dumps({"Greeting": "Hello from Python!"}).encode(), md)
print("published")
topic.close()
qmgr.disconnect()
