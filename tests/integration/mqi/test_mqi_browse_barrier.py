"""The browse barrier over the real broker (issue 35 point 4): another OS process gets
non-persistent messages outside syncpoint flat out while this one browses again and again
(the MQI's walk, BROWSE_FIRST then BROWSE_NEXT, and ``mqk browse``'s, in turn); no browse
call shows a message whose MQGET had returned before that call began: the walk's
BROWSE_NEXT calls no more than its BROWSE_FIRST.

Both processes stamp ``time.time()`` (one machine, one clock): the getter after each MQGET
returned, the browser before each browse call (``devsupport/browsegetter.py``, which the
benchmark drives too). The check is the order of those stamps, not how long anything took."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from devsupport.browsegetter import (
    Shown,
    browse_oldest,
    browse_walk,
    getter_process,
    shown_after_get,
)

from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import MD
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.query.messages import browse

pytestmark = pytest.mark.kafka

MESSAGES = 10000
LOOK = 20  # messages each walk reads: the oldest ones are those being got


def test_no_browse_call_shows_a_message_whose_get_returned_before_it_began(
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
    walks: list[Shown] = []
    # The keeper commits a busy lane's gets every half second, not every 10 ms: the window
    # the barrier closes is wide, so a browse call that did not wait for it would show got
    # messages (BROWSE_NEXT did, before it was strict: 152 in a run of the code before).
    # A millisecond's pause after each MQGET: the getter still at work (10 s at least) when
    # walks that wait for it begin, however loaded the machine (at a load average of 40, one
    # getting 30,000 flat out met no walk: the first found the queue empty).
    with getter_process(kafka_bootstrap, namespace, name, ack_gap=0.5, pause=0.001) as getter:
        getter.go()
        while True:  # the MQI's walk, then mqk browse's (and the console's), in turn
            if len(walks) % 2:
                began = time.time()  # one call: the listing as of its start
                found = browse(config, name, namespace=namespace, limit=LOOK, timeout=15)
                walk = [(began, m.body.text) for m in found.messages]
            else:
                walk = browse_walk(browser, LOOK)
            walks.append(walk)
            if not walk:
                break
        returned = getter.result().returned
    browser.close()
    assert len(returned) == MESSAGES  # every message got once
    busy = [w for w in walks if w]
    assert busy, "no browse met the getter at work"  # how many: the machine's load decides
    late = shown_after_get(walks, returned)
    assert late == [], f"{len(late)} shown after their MQGET returned (s before the call)"
    for walk in busy:
        bodies = [body for _, body in walk]
        assert bodies == sorted(bodies)  # in order
