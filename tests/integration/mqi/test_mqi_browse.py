"""Browse is MQ's browse (issue 35 point 4): a browse never shows a message that was got and
shows every message on the queue, in order, for the getter's own connection and for others:
MQI browse, and ``mqk browse`` / the console (``query.messages.browse``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from devsupport.browsegetter import commanded, mqi_browse

from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD, PMO, MQMIError
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.query.messages import browse

Getting = Callable[[str], str]  # a command to the getter process -> the bodies it got

pytestmark = pytest.mark.kafka

Connect = Callable[..., QueueManager]


def filled(
    putter: QueueManager, name: str, bodies: list[bytes], persistence: int | None = None
) -> list[bytes]:
    """``name`` defined and ``bodies`` put to it in order (with ``persistence`` when given);
    their MsgIds."""
    putter.define_queue(name)
    out = Queue(putter, name, C.MQOO_OUTPUT)
    ids = []
    for body in bodies:
        md = MD() if persistence is None else MD(Persistence=persistence)
        out.put(body, md)
        ids.append(md.MsgId)
    out.close()
    return ids


def cli_browse(kafka_bootstrap: str, namespace: str, name: str) -> list[bytes]:
    found = browse(ClientConfig(kafka_bootstrap), name, namespace=namespace, timeout=15)
    return [m.body.text.encode() for m in found.messages]


def take(queue: Queue, count: int, gmo: GMO | None = None, md: MD | None = None) -> list[bytes]:
    wait = gmo or GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=15000)
    return [queue.get(None, md or MD(), wait) for _ in range(count)]


def test_browse_never_shows_a_got_message_on_any_connection(
    connect: Connect, kafka_bootstrap: str, namespace: str
) -> None:
    putter, getter, other = connect(), connect(), connect()
    name = f"APP.BROWSE{id(putter) % 100000}"
    putter.define_queue(name)
    out = Queue(putter, name, C.MQOO_OUTPUT)
    bodies = [b"m%d" % i for i in range(5)]
    for body in bodies:
        out.put(body)
    own = Queue(getter, name, C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    elsewhere = Queue(other, name, C.MQOO_BROWSE)
    assert mqi_browse(elsewhere) == bodies  # every message, in order
    assert take(own, 2) == bodies[:2]
    for shown in (
        mqi_browse(own),
        mqi_browse(elsewhere),
        cli_browse(kafka_bootstrap, namespace, name),
    ):
        assert shown == bodies[2:]
    # out of order: m3 by its MsgId, under syncpoint, then committed
    md = MD()
    elsewhere.get(None, MD(), GMO(Options=C.MQGMO_BROWSE_FIRST))
    assert elsewhere.get(None, md, GMO(Options=C.MQGMO_BROWSE_NEXT)) == b"m3"
    by_id = GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_WAIT, WaitInterval=15000)
    by_id.MatchOptions = C.MQMO_MATCH_MSG_ID
    assert take(own, 1, by_id, MD(MsgId=md.MsgId)) == [b"m3"]
    # got under syncpoint, not yet committed: not shown either (MQ's browse skips it)
    assert mqi_browse(own) == mqi_browse(elsewhere) == [b"m2", b"m4"]
    getter.commit()
    # got out of order: the MQI knows it, and mqk browse (another process) reads Kafka's
    # per-record share state (the lag alone would have hidden m2 instead)
    assert mqi_browse(own) == mqi_browse(elsewhere) == [b"m2", b"m4"]
    assert cli_browse(kafka_bootstrap, namespace, name) == [b"m2", b"m4"]
    assert take(own, 2) == [b"m2", b"m4"]
    for shown in (
        mqi_browse(own),
        mqi_browse(elsewhere),
        cli_browse(kafka_bootstrap, namespace, name),
    ):
        assert shown == []
    out.put(b"m5")  # and a message put after all that is shown
    assert mqi_browse(elsewhere) == [b"m5"] == cli_browse(kafka_bootstrap, namespace, name)
    for queue in (out, own, elsewhere):
        queue.close()


def test_messages_put_in_transactions_are_all_shown_after_a_get_and_a_backout(
    connect: Connect, kafka_bootstrap: str, namespace: str
) -> None:
    """Each committed transaction leaves a marker that takes an offset and is no message
    (the service's deliveries are all written so): a browse must not take the markers for
    messages got. The console's dead-letter re-put met it: its backed-out get hid the
    dead letter it had just given back."""
    putter, getter = connect(), connect()
    name = f"APP.BROWSETX{id(putter) % 100000}"
    putter.define_queue(name)
    out = Queue(putter, name, C.MQOO_OUTPUT)
    bodies = [b"t%d" % i for i in range(4)]
    for body in bodies:
        out.put(body, MD(), PMO(Options=C.MQPMO_SYNCPOINT))
        putter.commit()  # one transaction, and one marker, per message
    own = Queue(getter, name, C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    under = GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_WAIT, WaitInterval=15000)
    assert take(own, 1, under) == bodies[:1]
    getter.backout()  # given back: still on the queue
    for shown in (mqi_browse(own), cli_browse(kafka_bootstrap, namespace, name)):
        assert shown == bodies
    assert take(own, 1) == bodies[:1]
    for shown in (mqi_browse(own), cli_browse(kafka_bootstrap, namespace, name)):
        assert shown == bodies[1:]
    for queue in (out, own):
        queue.close()


def test_the_issues_mqk_session_put_get_browse(
    connect: Connect, kafka_bootstrap: str, namespace: str
) -> None:
    """The issue's session, each mqk command its own process: m0-m2 put, ``mqk get --count 2``,
    ``mqk browse`` shows m2 alone (it showed m0 m1 m2 for minutes)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    name, qmgr = "APP.SESSION", connect()
    qmgr.define_queue(name)
    out = Queue(qmgr, name, C.MQOO_OUTPUT)
    for body in (b"m0", b"m1", b"m2"):
        out.put(body)
    out.close()
    env = {**os.environ, "MQK_BOOTSTRAP_SERVERS": kafka_bootstrap, "MQK_NAMESPACE": namespace}
    mqk = str(Path(sys.executable).with_name("mqk"))

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [mqk, *args], capture_output=True, text=True, env=env, timeout=120, check=False
        )

    def browsed() -> list[str]:
        done = run("browse", name, "--json")
        return [m["body"]["text"] for m in json.loads(done.stdout or "[]")]

    assert browsed() == ["m0", "m1", "m2"]
    got = run("get", name, "--count", "2", "--wait", "15")
    assert got.returncode == 0 and "m0" in got.stdout and "m1" in got.stdout, got.stderr
    assert browsed() == ["m2"]


GETTER = """
import sys
import time
from mqkafka.mqi import CMQC as C, GMO, MD
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

bootstrap, namespace, name = sys.argv[1:4]
keeper = sys.argv[4:] == ["keeper"]  # each line answered once the keeper committed its gets
qmgr = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=namespace)
queue = Queue(qmgr, name, C.MQOO_INPUT_SHARED)
opened = True
for line in sys.stdin:  # MQGETs, one after another: "next" or a MsgId in hex outside
    got = []  # syncpoint, "sync" the next under syncpoint; "commit" and "backout" end its unit
    for word in line.split():
        if word in ("commit", "backout"):
            getattr(qmgr, word)()
            continue
        if word == "close":  # MQCLOSE, its unit of work left open
            queue.close()
            opened = False
            continue
        unit = C.MQGMO_SYNCPOINT if word == "sync" else C.MQGMO_NO_SYNCPOINT
        gmo = GMO(Options=C.MQGMO_WAIT | unit, WaitInterval=15000)
        md = MD()
        if word not in ("next", "sync"):
            gmo.MatchOptions = C.MQMO_MATCH_MSG_ID
            md = MD(MsgId=bytes.fromhex(word))
        got.append(queue.get(None, md, gmo).decode())
    if keeper:  # no further MQI call: the keeper thread alone commits the acceptances
        getter = qmgr.connection.handles[queue.get_handle()].getter
        deadline = time.monotonic() + 60
        while any(lane.unsent for lane in getter.lanes) and time.monotonic() < deadline:
            time.sleep(0.001)
        if any(lane.unsent for lane in getter.lanes):
            got.append("uncommitted")
    print(" ".join(got), flush=True)  # every MQGET has returned
if opened:
    queue.close()
qmgr.disconnect()
"""


@contextmanager
def getter_process(bootstrap: str, namespace: str, name: str, *mode: str) -> Iterator[Getting]:
    """Another OS process running GETTER on queue ``name``: each command line it is given
    gets messages ("next" or a MsgId in hex, space-separated) and answers their bodies; it
    must end cleanly when its input closes."""
    with commanded(GETTER, bootstrap, namespace, name, *mode) as (get, _):
        yield get


def test_what_another_process_got_is_never_shown_in_or_out_of_order(
    connect: Connect, kafka_bootstrap: str, namespace: str
) -> None:
    """Another OS process gets m1 by MsgId (out of order: Kafka's start offset stays on m0)
    and, at once, the oldest message, outside syncpoint; the moment its MQGETs have
    returned, a browse from a third connection (and ``mqk browse``) shows exactly what is
    left, in order. Persistent messages: their non-syncpoint get is acknowledged before it
    returns (a non-persistent one by the getter's keeper a moment later, as the README says)."""

    putter, browser = connect(), connect()
    name = f"APP.BROWSEOTHER{id(putter) % 100000}"
    ids = filled(putter, name, [b"m0", b"m1", b"m2", b"m3", b"m4"], C.MQPER_PERSISTENT)
    elsewhere = Queue(browser, name, C.MQOO_BROWSE)
    assert mqi_browse(elsewhere) == [b"m0", b"m1", b"m2", b"m3", b"m4"]
    with getter_process(kafka_bootstrap, namespace, name) as get:
        # m1 out of order, then m0 at once (within the batching window of other gets)
        assert get(f"{ids[1].hex()} next") == "m1 m0"
        assert mqi_browse(elsewhere) == [b"m2", b"m3", b"m4"]
        assert cli_browse(kafka_bootstrap, namespace, name) == [b"m2", b"m3", b"m4"]
        assert get(f"{ids[3].hex()}") == "m3"
        assert mqi_browse(elsewhere) == [b"m2", b"m4"]
        assert cli_browse(kafka_bootstrap, namespace, name) == [b"m2", b"m4"]
        assert get("next next") == "m2 m4"
        assert mqi_browse(elsewhere) == [] == cli_browse(kafka_bootstrap, namespace, name)
    elsewhere.close()


def test_a_non_persistent_get_by_another_process_is_hidden_once_its_keeper_committed_it(
    connect: Connect, kafka_bootstrap: str, namespace: str
) -> None:
    """Non-persistent messages got outside syncpoint by another OS process, which then makes
    no further MQI call: its keeper thread commits the acceptances at once (getter.ACK_GAP;
    milliseconds, bench/bench_browse_window.py), and from then on no browse shows them, in
    order or by MsgId, back to back or one at a time."""

    putter, browser = connect(), connect()
    name = f"APP.BROWSENP{id(putter) % 100000}"
    bodies = [b"n%d" % i for i in range(6)]
    ids = filled(putter, name, bodies, C.MQPER_NOT_PERSISTENT)
    elsewhere = Queue(browser, name, C.MQOO_BROWSE)
    assert mqi_browse(elsewhere) == bodies
    with getter_process(kafka_bootstrap, namespace, name, "keeper") as get:
        assert get("next") == "n0"  # one, then nothing more from the getter
        assert mqi_browse(elsewhere) == bodies[1:]
        assert get(f"{ids[4].hex()} next") == "n4 n1"  # out of order, then the oldest
        assert mqi_browse(elsewhere) == [b"n2", b"n3", b"n5"]
        assert cli_browse(kafka_bootstrap, namespace, name) == [b"n2", b"n3", b"n5"]
        assert get("next next next") == "n2 n3 n5"  # back to back
        assert mqi_browse(elsewhere) == [] == cli_browse(kafka_bootstrap, namespace, name)
    elsewhere.close()


def test_a_message_got_elsewhere_is_no_longer_under_the_cursor(
    connect: Connect, kafka_bootstrap: str, namespace: str
) -> None:
    """MQ's NO_MSG_UNDER_CURSOR (2034): the message the browse cursor is on was got by
    another OS process (its non-syncpoint get not yet committed by its keeper, which is
    asked to) or by another connection of this process; browse and destructive get under
    the cursor both say so. A message nobody got is still got under the cursor."""
    putter, browser, neighbour = connect(), connect(), connect()
    name = f"APP.CURSOR{id(putter) % 100000}"
    filled(putter, name, [b"c0", b"c1", b"c2"], C.MQPER_NOT_PERSISTENT)
    mine = Queue(browser, name, C.MQOO_BROWSE | C.MQOO_INPUT_SHARED)
    beside = Queue(neighbour, name, C.MQOO_INPUT_SHARED)

    def under_cursor(options: int) -> int:
        with pytest.raises(MQMIError) as caught:
            mine.get(None, MD(), GMO(Options=options))
        return caught.value.reason

    browse_under = C.MQGMO_BROWSE_MSG_UNDER_CURSOR
    get_under = C.MQGMO_MSG_UNDER_CURSOR | C.MQGMO_NO_SYNCPOINT
    assert mine.get(None, MD(), GMO(Options=C.MQGMO_BROWSE_FIRST)) == b"c0"
    with getter_process(kafka_bootstrap, namespace, name) as get:
        assert get("next") == "c0"
        assert under_cursor(browse_under) == RC.NO_MSG_UNDER_CURSOR
        assert under_cursor(get_under) == RC.NO_MSG_UNDER_CURSOR
    assert mine.get(None, MD(), GMO(Options=C.MQGMO_BROWSE_NEXT)) == b"c1"
    assert take(beside, 1) == [b"c1"]
    beside.close()  # its read-ahead (c2) given back
    assert under_cursor(browse_under) == RC.NO_MSG_UNDER_CURSOR
    assert under_cursor(get_under) == RC.NO_MSG_UNDER_CURSOR
    assert mine.get(None, MD(), GMO(Options=C.MQGMO_BROWSE_NEXT)) == b"c2"
    assert mine.get(None, MD(), GMO(Options=browse_under)) == b"c2"
    assert mine.get(None, MD(), GMO(Options=get_under)) == b"c2"
    mine.close()


def test_what_another_process_got_under_syncpoint_is_shown_only_once_backed_out(
    connect: Connect, kafka_bootstrap: str, namespace: str
) -> None:
    """MQ hides a message got under syncpoint from every browse from the moment MQGET
    returns: another OS process's too, whose acknowledgement waits for its MQCMIT (the
    barrier's answer names what it holds). Backed out, it shows again; committed, never."""
    putter, browser = connect(), connect()
    name = f"APP.BROWSESYNC{id(putter) % 100000}"
    bodies = [b"s0", b"s1", b"s2"]
    filled(putter, name, bodies)
    elsewhere = Queue(browser, name, C.MQOO_BROWSE)
    assert mqi_browse(elsewhere) == bodies
    with getter_process(kafka_bootstrap, namespace, name) as get:
        assert get("sync") == "s0"
        assert mqi_browse(elsewhere) == bodies[1:]
        assert cli_browse(kafka_bootstrap, namespace, name) == bodies[1:]
        assert get("backout") == ""
        assert mqi_browse(elsewhere) == bodies == cli_browse(kafka_bootstrap, namespace, name)
        assert get("sync sync") == "s0 s1"  # s0 again first, as MQ gives a backed-out one
        assert mqi_browse(elsewhere) == bodies[2:]
        assert get("commit") == ""
        assert mqi_browse(elsewhere) == bodies[2:] == cli_browse(kafka_bootstrap, namespace, name)
    elsewhere.close()


def test_a_get_under_syncpoint_is_not_shown_after_its_handle_closed_before_mqcmit(
    connect: Connect, kafka_bootstrap: str, namespace: str
) -> None:
    """MQ's pattern open, get under syncpoint, MQCLOSE, work, MQCMIT: the message stays
    hidden from every browse until MQBACK gives it back (then shown) or MQCMIT (never), by
    another OS process and by this one (the getter's own connection, another connection,
    ``mqk browse``). The closed handle's connection is still a getter of the queue for the
    barrier while it holds the get (before: another process's browse showed it)."""
    putter, browser, getter = connect(), connect(), connect()
    name = f"APP.BROWSECLOSED{id(putter) % 100000}"
    bodies = [b"h0", b"h1", b"h2"]
    filled(putter, name, bodies)
    elsewhere = Queue(browser, name, C.MQOO_BROWSE)
    assert mqi_browse(elsewhere) == bodies

    def shown(*queues: Queue) -> list[list[bytes]]:
        listings = [mqi_browse(q) for q in queues]
        return [*listings, cli_browse(kafka_bootstrap, namespace, name)]

    with getter_process(kafka_bootstrap, namespace, name) as get:
        assert get("sync close") == "h0"
        assert shown(elsewhere) == [bodies[1:]] * 2
        assert get("backout") == ""
        assert shown(elsewhere) == [bodies] * 2
    under = GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_WAIT, WaitInterval=15000)
    own = Queue(getter, name, C.MQOO_BROWSE)
    for end, after in ((getter.backout, bodies), (getter.commit, bodies[1:])):
        held = Queue(getter, name, C.MQOO_INPUT_SHARED)
        assert take(held, 1, under) == bodies[:1]
        held.close()
        assert shown(own, elsewhere) == [bodies[1:]] * 3
        end()
        assert shown(own, elsewhere) == [after] * 3
    for queue in (own, elsewhere):
        queue.close()
