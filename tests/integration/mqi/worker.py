"""A separate MQI application for the tests that need another process.

python worker.py creator BOOTSTRAP NAMESPACE
    connect, open SYSTEM.DEFAULT.MODEL.QUEUE (a temporary dynamic queue), print its name,
    then sit until killed - so the test can kill it as a crash would.
python worker.py subscriber BOOTSTRAP NAMESPACE TOPIC SUBNAME
    as creator, and register the subscription SUBNAME on TOPIC with that queue as its
    subscriber queue (through the broker service), print the queue's name, sit until killed.
python worker.py getter BOOTSTRAP NAMESPACE QUEUE IDLE_SECONDS
    get messages until none comes for IDLE_SECONDS, print each body as one line, disconnect.
python worker.py failing BOOTSTRAP NAMESPACE QUEUE
    open QUEUE for exclusive input, get one message, print it, then fail with an uncaught
    exception (no MQCLOSE, no MQDISC), as a program with a bug does.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD, OD, MQMIError
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

FAST: dict[str, Any] = {"heartbeat_interval": 0.5, "liveness_timeout": 3.0}


def creator(bootstrap: str, namespace: str) -> None:
    qmgr = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace, **FAST)
    od = OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"CRASH.*")
    queue = Queue(qmgr, od, C.MQOO_INPUT_EXCLUSIVE)  # kept: a collected handle is closed
    print(od.ObjectName.decode(), flush=True)
    while queue:
        time.sleep(1)


def subscriber(bootstrap: str, namespace: str, topic: str, sub_name: str) -> None:
    from mqkafka.mqi.kafkaqm.pubsub import PubSub, raise_for

    qmgr = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace, **FAST)
    od = OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"CRASH.*")
    queue = Queue(qmgr, od, C.MQOO_INPUT_EXCLUSIVE)  # kept: a collected handle is closed
    name = od.ObjectName.decode().rstrip()
    raise_for(PubSub(qmgr).register_subscriber([topic], queue=name, sub_name=sub_name))
    print(name, flush=True)
    while queue:
        time.sleep(1)


def getter(bootstrap: str, namespace: str, queue: str, idle: str) -> None:
    qmgr = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace, **FAST)
    handle = Queue(qmgr, queue, C.MQOO_INPUT_SHARED)
    print("ready", flush=True)
    gmo = GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=int(float(idle) * 1000))
    while True:
        try:
            body = handle.get(None, MD(), gmo)
        except MQMIError as error:
            if error.reason != RC.NO_MSG_AVAILABLE:
                raise
            break
        print(body.decode(), flush=True)
    handle.close()
    qmgr.disconnect()


def failing(bootstrap: str, namespace: str, queue: str) -> None:
    qmgr = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace, **FAST)
    handle = Queue(qmgr, queue, C.MQOO_INPUT_EXCLUSIVE)
    gmo = GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=30000)
    print(handle.get(None, MD(), gmo).decode(), flush=True)
    raise RuntimeError("the application fails with its queue open")


if __name__ == "__main__":
    modes: dict[str, Callable[..., None]] = {
        "creator": creator,
        "subscriber": subscriber,
        "getter": getter,
        "failing": failing,
    }
    modes[sys.argv[1]](*sys.argv[2:])
