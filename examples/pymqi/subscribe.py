"""Read publications through a durable, managed subscription, until Ctrl-C.

The subscription has a name (SUBSCRIPTION_NAME) and outlives this program: at the end it
is closed with MQCO_KEEP_SUB, so what is published while nobody reads waits on its queue
(a managed one: the queue manager made it) for the next run, which resumes the same
subscription by name. MQSO_CREATE | MQSO_RESUME makes it the first time and resumes it
after that.

    python examples/pymqi/subscribe.py        # until Ctrl-C
    python examples/pymqi/subscribe.py 3      # or until three publications came

Environment: QMGR, CHANNEL, HOST, PORT, TOPIC_NAME (``dev/``), SUBSCRIPTION_NAME,
APP_USER, APP_PASSWORD. To remove the subscription for good, close with MQCO_REMOVE_SUB
(or DELETE SUB in MQSC).
"""

import json
import os
import sys

import mqkafka.mqi as pymqi  # for IBM MQ itself: import pymqi

CMQC = pymqi.CMQC
WAIT_MS = 5000


def shown(data):
    """A publication as JSON when it is, else as the bytes it is."""
    try:
        return json.dumps(json.loads(data))
    except ValueError:
        return repr(data)


def subscribe(qmgr, name, topic_string):
    """MQSUB: the durable subscription ``name`` on ``topic_string``, made or resumed."""
    sd = pymqi.SD()
    sd.Options = CMQC.MQSO_CREATE | CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED
    # SubName and ObjectString are variable-length fields (MQCHARV): pymqi sets them so
    sd.set_vs("SubName", name.encode())
    sd.set_vs("ObjectString", topic_string.encode())
    subscription = pymqi.Subscription(qmgr)
    subscription.sub(sub_desc=sd)
    return subscription


def read(subscription, wanted):
    """Print publications until ``wanted`` came (None: until Ctrl-C); return how many."""
    count = 0
    while wanted is None or count < wanted:
        md = pymqi.MD()
        gmo = pymqi.GMO()
        gmo.Options = CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING | CMQC.MQGMO_NO_SYNCPOINT
        gmo.WaitInterval = WAIT_MS
        try:
            data = subscription.get(None, md, gmo)
        except pymqi.MQMIError as error:
            if error.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                continue  # nothing published lately: keep waiting
            raise
        count += 1
        print("publication:", shown(data))
    return count


def main():
    wanted = int(sys.argv[1]) if len(sys.argv) > 1 else None
    conn_info = "{}({})".format(os.environ.get("HOST", "localhost"), os.environ.get("PORT", "1414"))
    topic_string = os.environ.get("TOPIC_NAME", "dev/")
    name = os.environ.get("SUBSCRIPTION_NAME", "EXAMPLES.DEV.SUB")
    qmgr = pymqi.connect(
        os.environ.get("QMGR", "QM1"),
        os.environ.get("CHANNEL", "DEV.APP.SVRCONN"),
        conn_info,
        os.environ.get("APP_USER") or None,
        os.environ.get("APP_PASSWORD") or None,
    )
    subscription = subscribe(qmgr, name, topic_string)
    print(f"subscription {name} on {topic_string}: waiting for publications (Ctrl-C ends)")
    try:
        count = read(subscription, wanted)
        print(f"{count} publications read")
    except KeyboardInterrupt:
        print("interrupted")
    finally:
        # keep the subscription (and what it collects) for the next run; close its queue
        subscription.close(sub_close_options=CMQC.MQCO_KEEP_SUB, close_sub_queue=True)
        qmgr.disconnect()
        print(f"closed; subscription {name} kept")


if __name__ == "__main__":
    main()
