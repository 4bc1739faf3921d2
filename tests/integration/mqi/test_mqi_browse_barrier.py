"""The browse barrier over the real broker (issue 35 point 4): another OS process gets
non-persistent messages outside syncpoint flat out while this one browses again and again
(the MQI's browse and ``mqk browse``'s, in turn); no browse shows a message whose MQGET had
returned before the browse began.

Both processes stamp ``time.time()`` (one machine, one clock): the getter after each MQGET
returned, the browser before each MQGMO_BROWSE_FIRST. The check is the order of those
stamps, not how long anything took."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable

import pytest

from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD, MQMIError
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.query.messages import browse

pytestmark = pytest.mark.kafka

MESSAGES = 30000
LOOK = 10  # messages each browse reads: the oldest ones are those just got

GETTER = """
import json, sys, time
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C, GMO, MD, MQMIError
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

from mqkafka.mqi.kafkaqm import getter

bootstrap, namespace, name = sys.argv[1:4]
# The keeper commits a busy lane's gets every half second, not every 10 ms: the window the
# barrier closes is wide, so a browse that did not wait for it would show got messages.
getter.ACK_GAP, getter.ACK_FLUSH = 0.5, 5.0
qmgr = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace)
queue = Queue(qmgr, name, C.MQOO_INPUT_SHARED)
gmo = GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=15000)
first = queue.get(None, MD(), gmo)  # joined the share group: not part of the run
print("ready", flush=True)
sys.stdin.readline()
returned = [(first.decode(), time.time())]
gmo.WaitInterval = 3000
while True:
    try:
        body = queue.get(None, MD(), gmo)
    except MQMIError as error:
        if error.reason != RC.NO_MSG_AVAILABLE:
            raise
        break
    returned.append((body.decode(), time.time()))  # after MQGET returned
print(json.dumps(returned), flush=True)
queue.close()
qmgr.disconnect()
"""


def browse_oldest(queue: Queue, count: int) -> list[str]:
    shown: list[str] = []
    option = C.MQGMO_BROWSE_FIRST
    while len(shown) < count:
        try:
            shown.append(queue.get(None, MD(), GMO(Options=option)).decode())
        except MQMIError as error:
            assert error.reason == RC.NO_MSG_AVAILABLE
            break
        option = C.MQGMO_BROWSE_NEXT
    return shown


def test_no_browse_shows_a_message_whose_get_returned_before_it_began(
    connect: Callable[..., QueueManager], kafka_bootstrap: str, namespace: str
) -> None:
    putter = connect()
    name = f"APP.BARRIER{id(putter) % 100000}"
    putter.define_queue(name, max_depth=MESSAGES * 2)
    out = Queue(putter, name, C.MQOO_OUTPUT)
    for i in range(MESSAGES):
        out.put(b"b%05d" % i, MD(Persistence=C.MQPER_NOT_PERSISTENT))
    putter.connection.producer.flush(60)
    out.close()
    # the default liveness (10 s): on a crowded machine a getter's beat may come 3 s late,
    # and a getter taken for dead is not waited for
    browser = Queue(connect(heartbeat_interval=2.0, liveness_timeout=10.0), name, C.MQOO_BROWSE)
    config = ClientConfig(kafka_bootstrap)
    assert browse_oldest(browser, 3) == ["b00000", "b00001", "b00002"]  # the reader is ready
    getter = subprocess.Popen(
        [sys.executable, "-c", GETTER, kafka_bootstrap, namespace, name],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert getter.stdin is not None and getter.stdout is not None
    browses: list[tuple[float, list[str]]] = []
    try:
        assert getter.stdout.readline().strip() == "ready"
        getter.stdin.write("go\n")
        getter.stdin.flush()
        while True:  # the MQI's browse, then mqk browse's (and the console's), in turn
            began = time.time()  # before BROWSE_FIRST
            if len(browses) % 2:
                found = browse(config, name, namespace=namespace, limit=LOOK, timeout=15)
                shown = [m.body.text for m in found.messages]
            else:
                shown = browse_oldest(browser, LOOK)
            browses.append((began, shown))
            if not shown:
                break
        returned = dict(json.loads(getter.stdout.readline()))
    finally:
        getter.stdin.close()
        assert getter.wait(60) == 0
        browser.close()
    assert len(returned) == MESSAGES  # every message got once
    busy = [b for b in browses if b[1]]
    assert busy, "no browse met the getter at work"  # how many: the machine's load decides
    late = [
        (body, began - returned[body])
        for began, shown in browses
        for body in shown
        if body in returned and returned[body] < began
    ]
    assert late == [], f"{len(late)} shown after their MQGET returned (s before the browse)"
    for _, shown in busy:
        assert shown == sorted(shown)  # in order
