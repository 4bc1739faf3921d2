"""Getting started: connect, put one message, get it back.

The shortest pymqi program there is: ``pymqi.connect`` to a queue manager over a client
channel, one string message put to a queue and taken off it again.

    python examples/pymqi/getting_started.py

Settings come from the environment, with the defaults of IBM's MQ developer container:
QMGR, CHANNEL, HOST, PORT, QUEUE_NAME, APP_USER and APP_PASSWORD.
"""

import os

import mqkafka.mqi as pymqi  # for IBM MQ itself: import pymqi

qmgr_name = os.environ.get("QMGR", "QM1")
channel = os.environ.get("CHANNEL", "DEV.APP.SVRCONN")
conn_info = "{}({})".format(os.environ.get("HOST", "localhost"), os.environ.get("PORT", "1414"))
queue_name = os.environ.get("QUEUE_NAME", "DEV.QUEUE.1")
user = os.environ.get("APP_USER") or None
password = os.environ.get("APP_PASSWORD") or None

text = "Hello from a pymqi program!"

qmgr = pymqi.connect(qmgr_name, channel, conn_info, user, password)
# Opened for both: pymqi opens a queue given no options at its first use, for that use only.
queue = pymqi.Queue(qmgr, queue_name, pymqi.CMQC.MQOO_OUTPUT | pymqi.CMQC.MQOO_INPUT_AS_Q_DEF)

queue.put(text)  # pymqi 1.12 puts a str as UTF-8 with Format MQFMT_STRING
print("Put:", text)

got = queue.get()  # no wait: the message is there already
print("Got:", got.decode("utf-8"))

queue.close()
qmgr.disconnect()
