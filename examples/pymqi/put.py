"""Put one JSON message to a queue, over a client connection made the long way.

``pymqi.connect`` hides the channel definition; here it is spelled out, as programs do
when they need to set more of it (TLS, heartbeats, ...): an MQCD for the client channel,
an MQSCO for its TLS settings (none here) and MQCONNX with a user id and password.

    python examples/pymqi/put.py

Environment: QMGR, CHANNEL, HOST, PORT, QUEUE_NAME, APP_USER, APP_PASSWORD (MQ developer
container defaults). Prints the message it put and its MsgId.
"""

import json
import os
import time

import mqkafka.mqi as pymqi  # for IBM MQ itself: import pymqi

CMQC = pymqi.CMQC


def client_connection():
    """MQCONNX over a client channel described field by field."""
    host = os.environ.get("HOST", "localhost")
    port = os.environ.get("PORT", "1414")

    channel = pymqi.CD()
    channel.ChannelName = os.environ.get("CHANNEL", "DEV.APP.SVRCONN").encode()
    channel.ConnectionName = f"{host}({port})".encode()
    channel.ChannelType = CMQC.MQCHT_CLNTCONN
    channel.TransportType = CMQC.MQXPT_TCP

    tls = pymqi.SCO()  # no key repository: a plain TCP channel

    qmgr = pymqi.QueueManager(None)
    qmgr.connect_with_options(
        os.environ.get("QMGR", "QM1"),
        user=os.environ.get("APP_USER") or None,
        password=os.environ.get("APP_PASSWORD") or None,
        opts=CMQC.MQCNO_HANDLE_SHARE_BLOCK,
        cd=channel,
        sco=tls,
    )
    return qmgr


def main():
    queue_name = os.environ.get("QUEUE_NAME", "DEV.QUEUE.1")
    qmgr = client_connection()
    try:
        target = pymqi.OD()
        target.ObjectName = queue_name.encode()
        queue = pymqi.Queue(qmgr)
        queue.open(target, CMQC.MQOO_OUTPUT | CMQC.MQOO_FAIL_IF_QUIESCING)

        body = {"text": "an order from put.py", "sent": time.strftime("%Y-%m-%dT%H:%M:%S")}
        md = pymqi.MD()
        md.Format = CMQC.MQFMT_STRING  # a receiver may ask the queue manager to convert it
        md.CodedCharSetId = 1208  # UTF-8
        queue.put(json.dumps(body).encode("utf-8"), md)

        print(f"put to {queue_name}: {json.dumps(body)}")
        print(f"MsgId {md.MsgId.hex()}")
        queue.close()
    except pymqi.MQMIError as error:
        print(f"put failed: {error}")
        raise SystemExit(1) from error
    finally:
        qmgr.disconnect()


if __name__ == "__main__":
    main()
