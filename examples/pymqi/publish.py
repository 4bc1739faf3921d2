"""Publish one JSON message on a topic string.

Whoever subscribes to the topic gets a copy (subscribe.py, for one); with no subscriber
the publication goes nowhere, as in MQ.

    python examples/pymqi/publish.py

Environment: QMGR, CHANNEL, HOST, PORT, TOPIC_NAME (the topic string, ``dev/`` by
default), APP_USER, APP_PASSWORD.
"""

import json
import os
import time

import mqkafka.mqi as pymqi  # for IBM MQ itself: import pymqi

CMQC = pymqi.CMQC


def main():
    conn_info = "{}({})".format(os.environ.get("HOST", "localhost"), os.environ.get("PORT", "1414"))
    topic_string = os.environ.get("TOPIC_NAME", "dev/")
    qmgr = pymqi.connect(
        os.environ.get("QMGR", "QM1"),
        os.environ.get("CHANNEL", "DEV.APP.SVRCONN"),
        conn_info,
        os.environ.get("APP_USER") or None,
        os.environ.get("APP_PASSWORD") or None,
    )

    topic = pymqi.Topic(qmgr, topic_string=topic_string)
    topic.open(open_opts=CMQC.MQOO_OUTPUT)

    # a number that goes up from run to run, so a reader can tell publications apart
    news = {"headline": "published by publish.py", "stamp": time.time_ns()}
    md = pymqi.MD()
    md.Format = CMQC.MQFMT_STRING
    md.CodedCharSetId = 1208
    topic.pub(json.dumps(news).encode("utf-8"), md)
    print(f"published on {topic_string}: {json.dumps(news)}")

    topic.close()
    qmgr.disconnect()


if __name__ == "__main__":
    main()
