"""Get every message from a queue, waiting a little for each, until none comes.

Each MQGET waits up to five seconds; the first one that finds nothing in that time
(MQRC_NO_MSG_AVAILABLE, 2033) ends the program. Messages are taken outside any unit of
work (MQGMO_NO_SYNCPOINT): once printed they are gone from the queue.

    python examples/pymqi/get.py

Environment: QMGR, CHANNEL, HOST, PORT, QUEUE_NAME, APP_USER, APP_PASSWORD (MQ developer
container defaults).
"""

import json
import os

import mqkafka.mqi as pymqi  # for IBM MQ itself: import pymqi

CMQC = pymqi.CMQC
WAIT_MS = 5000


def shown(data):
    """The message as JSON when it is, else as the bytes it is."""
    try:
        return json.dumps(json.loads(data))
    except ValueError:
        return repr(data)


def main():
    conn_info = "{}({})".format(os.environ.get("HOST", "localhost"), os.environ.get("PORT", "1414"))
    queue_name = os.environ.get("QUEUE_NAME", "DEV.QUEUE.1")
    qmgr = pymqi.connect(
        os.environ.get("QMGR", "QM1"),
        os.environ.get("CHANNEL", "DEV.APP.SVRCONN"),
        conn_info,
        os.environ.get("APP_USER") or None,
        os.environ.get("APP_PASSWORD") or None,
    )
    queue = pymqi.Queue(qmgr, queue_name, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_FAIL_IF_QUIESCING)

    received = 0
    while True:
        md = pymqi.MD()  # a fresh MD each time: MsgId and CorrelId blank match any message
        gmo = pymqi.GMO()
        gmo.Options = CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING | CMQC.MQGMO_NO_SYNCPOINT
        gmo.WaitInterval = WAIT_MS
        try:
            data = queue.get(None, md, gmo)
        except pymqi.MQMIError as error:
            if error.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                raise
            print(f"no more messages on {queue_name} ({received} received)")
            break
        received += 1
        print(f"got from {queue_name}: {shown(data)}")

    queue.close()
    qmgr.disconnect()


if __name__ == "__main__":
    main()
