"""Issue 35 point 4 on a secured cluster: browse never shows a message that was got. Two getters
in other OS processes, one of them getting out of order above the share group's start
offset; a third connection's browse (MQI and ``mqk browse``) as an application user.

With the shipped ACLs the application user reads Kafka's ``__share_group_state``, so a
browse knows exactly what was acknowledged, a crashed getter's last gets too. An operator may
withhold that (``mqk kafka acls --without-share-state``): the *blind* user here. Its browse
counts what was got from the share group's lag less what the getters named acknowledged.
Before that naming, the lag's count passed over the oldest message instead of the one got
by MsgId once the older one was backed out: ``m1 m2`` shown for ``m0 m2``."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest
from confluent_kafka.admin import ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion
from devsupport.browsegetter import commanded, mqi_browse

from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig, load_client_config, read_properties
from mqkafka.kafka.sharelog import STATE_TOPIC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import MD
from mqkafka.mqi.kafkaqm import browsecursor
from mqkafka.mqi.kafkaqm.browsebarrier import before_browse
from mqkafka.mqi.kafkaqm.browsevisitor import visit
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.query import messages
from mqkafka.query.messages import browse
from tests.integration.deploy.conftest import SecuredKafka, prepare_namespace, run_mqk

pytestmark = pytest.mark.kafka

GETTER = """
import os
import sys
from mqkafka.mqi import CMQC as C, GMO, MD
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

namespace, name = sys.argv[1:3]
qmgr = QueueManager("QM1", namespace=namespace)  # Kafka and its SASL user: $MQK_KAFKA_CONFIG
queue = Queue(qmgr, name, C.MQOO_INPUT_SHARED)
print("ready", qmgr.connection.id, flush=True)
for line in sys.stdin:  # "sync": the next under syncpoint; a MsgId in hex: that one outside
    got = []
    for word in line.split():
        if word in ("commit", "backout"):
            getattr(qmgr, word)()
            continue
        if word == "close":
            queue.close()
            continue
        if word == "crash":  # no MQCLOSE, no MQDISC: its heartbeats stop
            os._exit(9)
        unit = C.MQGMO_SYNCPOINT if word == "sync" else C.MQGMO_NO_SYNCPOINT
        gmo, md = GMO(Options=C.MQGMO_WAIT | unit, WaitInterval=30000), MD()
        if word != "sync":
            gmo.MatchOptions = C.MQMO_MATCH_MSG_ID
            md = MD(MsgId=bytes.fromhex(word))
        got.append(queue.get(None, md, gmo).decode())
    print(" ".join(got), flush=True)
qmgr.disconnect()
"""

Getting = Callable[[str], str]
T = TypeVar("T")


@contextmanager
def getter_process(
    env: dict[str, str], namespace: str, name: str, ids: list[str] | None = None, rc: int = 0
) -> Iterator[Getting]:
    """Another OS process getting from ``name`` as the application user, one command line
    at a time (its answer: the bodies got); it ends cleanly when its input closes (or as
    ``rc`` says: ``crash`` ends it at once). Its connection's id is added to ``ids``."""
    with commanded(GETTER, namespace, name, env=env, rc=rc) as (get, said):
        ready, connection = said.readline().split()
        assert ready == "ready"
        if ids is not None:
            ids.append(connection)
        yield get


@dataclass
class Scene:
    """A queue of three persistent messages in a namespace of its own on the SASL broker, an
    MQI connection and a browse handle as the application user, and what an OS process of
    that user needs (``env``)."""

    env: dict[str, str]
    namespace: str
    name: str
    ids: list[bytes]
    qmgr: QueueManager
    browser: Queue
    config: ClientConfig

    def shown(self) -> list[list[bytes]]:
        """What an MQI browse and ``mqk browse`` each show."""
        listed = browse(self.config, self.name, namespace=self.namespace, timeout=15)
        return [mqi_browse(self.browser), [m.body.text.encode() for m in listed.messages]]

    def reaped(self, connection: str) -> None:
        """Once ``connection``'s heartbeat expired and a client reaped it (its tombstone)."""
        table = self.qmgr.connection.replica.connections
        deadline = time.monotonic() + 60
        while table.heartbeat(connection) is not None:
            assert time.monotonic() < deadline, f"{connection} was not reaped"
            time.sleep(0.5)
            self.qmgr.connection.replica.sync()

    def end(self) -> None:
        self.browser.close()
        self.qmgr.disconnect()


TOPIC_AUTHORIZATION_FAILED = clients.KafkaError.TOPIC_AUTHORIZATION_FAILED
BLIND = "mqk-app-blind"  # an application user the operator left the share state out for


@pytest.fixture(scope="module")
def blind_app(secured_kafka: SecuredKafka) -> Path:
    """The client properties of ``BLIND``, a SCRAM user the admin adds to the running broker."""
    admin = clients.admin(load_client_config(config_file=secured_kafka.admin, environ={}))
    password = uuid.uuid4().hex
    info = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192)
    for future in admin.alter_user_scram_credentials(
        [UserScramCredentialUpsertion(BLIND, info, password.encode())]
    ).values():
        future.result()
    path = secured_kafka.app.with_name("blind.properties")
    lines = secured_kafka.app.read_text().splitlines()
    lines = [line for line in lines if not line.startswith(("sasl.username", "sasl.password"))]
    path.write_text("\n".join([*lines, f"sasl.username={BLIND}", f"sasl.password={password}"]))
    reader = clients.consumer(load_client_config(config_file=path, environ={}), {"group.id": "x"})
    try:  # what makes it blind: Kafka refuses it the share state's metadata
        listed = reader.list_topics(STATE_TOPIC, timeout=30).topics[STATE_TOPIC]
    finally:
        reader.close()
    assert listed.error is not None and listed.error.code() == TOPIC_AUTHORIZATION_FAILED
    return path


def three_on_a_queue(
    secured_kafka: SecuredKafka, prefix: str, bodies: tuple[bytes, ...], blind: Path | None = None
) -> Scene:
    """The scene as the shipped application user, or as ``BLIND`` (its properties file)."""
    ns = f"{prefix}{uuid.uuid4().hex[:6]}."
    prepare_namespace(secured_kafka, ns)
    app_file: Path = secured_kafka.app
    if blind is not None:
        acls = run_mqk(
            "kafka", "acls", "--apply", "--namespace", ns, "--app-user", BLIND,
            "--without-share-state", "--kafka-config", str(secured_kafka.admin),
            home=secured_kafka.home,
        )  # fmt: skip
        assert acls.returncode == 0, acls.stderr
        assert "__share_group_state" not in acls.stdout
        app_file = blind
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQK_")}
    env |= {"MQK_KAFKA_CONFIG": str(app_file), "MQK_NAMESPACE": ns}
    properties = read_properties(app_file)
    bootstrap = properties.pop("bootstrap.servers")
    qmgr = QueueManager("QM1", bootstrap_servers=bootstrap, namespace=ns, kafka_config=properties)
    name = f"APP.{uuid.uuid4().hex[:8].upper()}"
    qmgr.define_queue(name)
    out = Queue(qmgr, name, C.MQOO_OUTPUT)
    ids = []
    for body in bodies:
        md = MD(Persistence=C.MQPER_PERSISTENT)
        out.put(body, md)
        ids.append(md.MsgId)
    out.close()
    browser = Queue(qmgr, name, C.MQOO_BROWSE)
    config = load_client_config(config_file=app_file, environ={})
    return Scene(env, ns, name, ids, qmgr, browser, config)


def test_a_message_got_out_of_order_elsewhere_is_never_shown_without_the_share_state(
    secured_kafka: SecuredKafka, blind_app: Path
) -> None:
    """Without the share state: getter B gets m1 by MsgId while getter A holds m0 under syncpoint
    (the share group's start stays on m0, m1 acknowledged above it): every browse shows m2 alone; A
    backs out (m0 back on the queue, still locked to A): m0 and m2, never m1; A gets m0 again and
    commits: m2. B's acknowledgement above the start is named in its barrier answer, and stays named
    after B closed its handle."""
    scene = three_on_a_queue(secured_kafka, "o", (b"m0", b"m1", b"m2"), blind_app)
    env, ns, name, ids = scene.env, scene.namespace, scene.name, scene.ids
    shown = scene.shown

    assert shown() == [[b"m0", b"m1", b"m2"]] * 2
    with getter_process(env, ns, name) as a, getter_process(env, ns, name) as b:
        assert b(ids[1].hex()) == "m1"
        assert a("sync") == "m0"
        assert shown() == [[b"m2"]] * 2
        assert a("backout") == ""
        assert shown() == [[b"m0", b"m2"]] * 2
        assert b("close") == ""  # its acknowledgement of m1 stays named
        assert shown() == [[b"m0", b"m2"]] * 2
        assert a("sync commit") == "m0"
        assert shown() == [[b"m2"]] * 2
    scene.end()


def test_what_a_getter_got_out_of_order_stays_hidden_after_its_mqclose_and_mqdisc(
    secured_kafka: SecuredKafka, blind_app: Path
) -> None:
    """Without the share state: getter B gets n1 by MsgId and closes its handle before anybody
    browses, then ends (MQDISC) while A holds n0, backs it out, and holds it again: no browse shows
    n1, which B's MQCLOSE wrote in its acknowledgement ledger (nobody could ask B any more)."""
    scene = three_on_a_queue(secured_kafka, "l", (b"n0", b"n1", b"n2"), blind_app)
    env, ns, name, ids = scene.env, scene.namespace, scene.name, scene.ids
    shown = scene.shown

    with getter_process(env, ns, name) as a:
        with getter_process(env, ns, name) as b:
            assert b(ids[1].hex()) == "n1"
            assert b("close") == ""
            assert a("sync") == "n0"
        assert a("backout") == ""  # B has ended: MQDISC
        assert shown() == [[b"n0", b"n2"]] * 2
        assert a("sync") == "n0"
        assert shown() == [[b"n2"]] * 2
        assert a("commit") == ""
        assert shown() == [[b"n2"]] * 2
    scene.end()


def test_what_a_crashed_getter_named_stays_hidden_after_it_is_reaped(
    secured_kafka: SecuredKafka, blind_app: Path
) -> None:
    """Without the share state: getter B gets k1 by MsgId, a browse has it name k1 in its answer,
    then B crashes (no MQCLOSE, no MQDISC) while A holds k0; once B's heartbeat expired and a client
    reaped it (its tombstone takes its answers away), k1 is still never shown: the reaper kept what
    B named in a ledger record for it."""
    scene = three_on_a_queue(secured_kafka, "c", (b"k0", b"k1", b"k2"), blind_app)
    env, ns, name, ids = scene.env, scene.namespace, scene.name, scene.ids
    shown = scene.shown

    crashed: list[str] = []
    with getter_process(env, ns, name) as a:
        with getter_process(env, ns, name, crashed, rc=9) as b:
            assert b(ids[1].hex()) == "k1"
            assert a("sync") == "k0"
            assert shown() == [[b"k2"]] * 2  # B's answer names k1
            b("crash")
        scene.reaped(crashed[0])
        assert a("backout") == ""
        assert shown() == [[b"k0", b"k2"]] * 2
        assert a("sync commit") == "k0"
    scene.end()


def test_a_get_out_of_order_during_a_browse_call_hides_no_older_message_without_the_state(
    secured_kafka: SecuredKafka, blind_app: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the share state: getter B gets r1, then r3, by MsgId just after a browse
    call's round and before it reads the lag (an MQI browse, then ``mqk browse``). The lag
    counts one more got than B named in its answer; before, the count passed over the
    oldest, r0, which is on the queue. Now the call asks once more and B names it: r0 shows,
    and the one got while the call looked is passed over (MQ's browse may show it or not)."""
    scene = three_on_a_queue(secured_kafka, "r", (b"r0", b"r1", b"r2", b"r3"), blind_app)
    env, ns, name, ids = scene.env, scene.namespace, scene.name, scene.ids

    def racing(call: Callable[..., T], msg_id: bytes, got: list[str]) -> Callable[..., T]:
        """``call`` (the barrier round), after whose first run B gets ``msg_id``."""

        def run(*args: object) -> T:
            found = call(*args)
            if not got:
                got.append(b(msg_id.hex()))
            return found

        return run

    with getter_process(env, ns, name) as b:
        first: list[str] = []
        monkeypatch.setattr(browsecursor, "before_browse", racing(before_browse, ids[1], first))
        assert mqi_browse(scene.browser) == [b"r0", b"r2", b"r3"]
        assert first == ["r1"]
        second: list[str] = []
        monkeypatch.setattr(messages, "visit", racing(visit, ids[3], second))
        listed = browse(scene.config, name, namespace=ns, timeout=15)
        assert [m.body.text for m in listed.messages] == ["r0", "r2"]
        assert second == ["r3"]
        monkeypatch.undo()
        assert scene.shown() == [[b"r0", b"r2"]] * 2
    scene.end()


def test_a_crashed_getters_last_out_of_order_get_is_never_shown_with_the_shipped_acls(
    secured_kafka: SecuredKafka,
) -> None:
    """As the shipped application user: getter B gets s1 by MsgId while A holds s0 under
    syncpoint, and crashes before anybody asked it anything (no answer, no MQCLOSE, no
    MQDISC: nobody could name s1). Every browse, before B is reaped and after, passes over
    s1, which Kafka's share state says was acknowledged: ``s2``; A backs out: ``s0 s2``,
    never ``s1``. Without the share state (``--without-share-state``) the lag's count hid s0
    instead and showed s1 until Kafka's start offset passed it."""
    scene = three_on_a_queue(secured_kafka, "s", (b"s0", b"s1", b"s2"))
    env, ns, name, ids = scene.env, scene.namespace, scene.name, scene.ids
    shown = scene.shown

    crashed: list[str] = []
    with getter_process(env, ns, name) as a:
        with getter_process(env, ns, name, crashed, rc=9) as b:
            assert b(ids[1].hex()) == "s1"
            assert a("sync") == "s0"
            b("crash")
        assert shown() == [[b"s2"]] * 2  # B not yet reaped: its beat may still be alive
        assert a("backout") == ""
        assert shown() == [[b"s0", b"s2"]] * 2
        scene.reaped(crashed[0])
        assert shown() == [[b"s0", b"s2"]] * 2
        assert a("sync commit") == "s0"
        assert shown() == [[b"s2"]] * 2
    scene.end()
