"""Seed rules through the MQI against the real broker service (``mqk serve``): MQSUB's
always-false selection string, MQSO_ALTER keeping MQSO_NEW_PUBLICATIONS_ONLY (seed 003), and
a killed creator's temporary dynamic queue reaped by the service alone (seed 004, §9.6)."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from mqkafka.mq.commands import RegOpt
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import SD, MQMIError
from mqkafka.mqi.kafkaqm.pubsub import PubSub, Subscription
from mqkafka.mqi.kafkaqm.queue import Queue, wait_until
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.mqi.kafkaqm.reaper import reap_bound
from mqkafka.mqi.kafkaqm.settings import Settings

pytestmark = pytest.mark.kafka

WORKER = str(Path(__file__).with_name("worker.py"))
Connect = Callable[..., QueueManager]


@pytest.fixture
def served(broker_service: str, connect: Connect) -> Connect:
    return connect


def mqsub(app: QueueManager, queue: str, options: int, **sd: bytes) -> Subscription:
    subscription = Subscription(app)
    subscription.sub(
        sub_desc=SD(Options=options, **sd), sub_queue=Queue(app, queue, C.MQOO_INPUT_SHARED)
    )
    return subscription


def reason_of(call: Callable[[], object]) -> int:
    with pytest.raises(MQMIError) as raised:
        call()
    return raised.value.reason


def registered(app: QueueManager, sub_name: str) -> int:
    """What the service answers about a SubName (RegSub NoAlter, as MQSO_RESUME asks)."""
    pubsub = PubSub(app)
    try:
        reply = pubsub.register_subscriber(
            [], options=RegOpt.NO_ALTERATION | RegOpt.FULL_RESPONSE, sub_name=sub_name
        )
        assert reply is not None
        return reply.reason
    finally:
        pubsub.close()


@pytest.mark.parametrize(
    ("selection", "reason"),
    [
        (b"1 = 2", RC.SELECTOR_ALWAYS_FALSE),
        (b"NOT TRUE", RC.SELECTOR_ALWAYS_FALSE),
        (b"'a' = 'b' AND x > 1", RC.SELECTOR_ALWAYS_FALSE),
        (b"x >", RC.SELECTOR_SYNTAX_ERROR),  # a syntax error is not "always false"
    ],
)
def test_mqsub_with_an_always_false_selection_string_is_selector_always_false(
    served: Connect, new_queue: Callable[..., str], selection: bytes, reason: int
) -> None:
    """Reference §8: "A selector that is constant-FALSE is rejected with
    MQRC_SELECTOR_ALWAYS_FALSE 2504" - the service decides it by constant folding and MQSUB
    reports it as it is (MQRCCF_FILTER_ERROR becomes MQRC_SELECTOR_SYNTAX_ERROR)."""
    app, queue = served(), new_queue()
    name = f"SELECT.{uuid.uuid4().hex[:8]}"
    sd = {"ObjectString": b"Always/#", "SubName": name.encode(), "SelectionString": selection}
    assert reason_of(lambda: mqsub(app, queue, C.MQSO_CREATE, **sd)) == reason
    assert registered(app, name) == RC.CF_NOT_REGISTERED  # nothing was made


def test_mqso_alter_keeping_new_publications_only_on_a_subscription_created_with_it(
    served: Connect, new_queue: Callable[..., str]
) -> None:
    """Seed 003: "MQSO_NEW_PUBLICATIONS_ONLY is allowed in combination with: MQSO_CREATE;
    MQSO_ALTER, if MQSO_NEW_PUBLICATIONS_ONLY was set on the original subscription" - and
    only then: altering one created without it is MQRC_OPTIONS_ERROR."""
    app, queue = served(), new_queue()
    durable, new_only = C.MQSO_DURABLE, C.MQSO_NEW_PUBLICATIONS_ONLY
    with_it, without = (f"{kind}.{uuid.uuid4().hex[:8]}".encode() for kind in ("NEW", "ALL"))
    for name, created in ((with_it, new_only), (without, 0)):
        mqsub(app, queue, C.MQSO_CREATE | durable | created, ObjectString=b"News/#", SubName=name)
    alter = C.MQSO_ALTER | durable | new_only
    mqsub(app, queue, alter, ObjectString=b"News/#", SubName=with_it)  # no 2046
    assert registered(app, with_it.decode()) == RC.NONE  # still there, altered
    assert (
        reason_of(lambda: mqsub(app, queue, alter, ObjectString=b"News/#", SubName=without))
        == RC.OPTIONS_ERROR
    )
    for name in (with_it, without):
        resumed = Subscription(app)
        resumed.sub(sub_desc=SD(Options=C.MQSO_RESUME, SubName=name))
        resumed.close(C.MQCO_REMOVE_SUB)


def test_the_service_reaps_a_killed_creators_temporary_queue_and_its_subscription(
    served: Connect, kafka_bootstrap: str, namespace: str
) -> None:
    """Seed 004: temporary dynamic queues "are deleted when the application that issued the
    MQOPEN call that created the queue ... terminates" - here killed (no MQCLOSE, no MQDISC)
    while no MQI client that reaps is connected: the broker service does it, within
    ``reap_bound`` of the creator's last heartbeat (14 s with its default settings), and the
    subscription delivering to the queue goes with it (reference §9.6)."""
    observer = served(reap=False)  # the service is the only reaper in this namespace
    topic, sub_name = f"Reaped/{uuid.uuid4().hex[:6]}", f"reaped.{uuid.uuid4().hex[:8]}"
    worker = subprocess.Popen(
        [sys.executable, WORKER, "subscriber", kafka_bootstrap, namespace, topic, sub_name],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    pubsub = PubSub(observer)
    try:
        assert worker.stdout is not None
        name = worker.stdout.readline().strip()
        assert name.startswith("CRASH.") and observer.display_queue(name) is not None
        found = pubsub.register_subscriber(
            [], options=RegOpt.NO_ALTERATION | RegOpt.FULL_RESPONSE, sub_name=sub_name
        )
        assert found is not None and found.attribute("QName") == name  # delivers to it
        worker.kill()  # SIGKILL: the creator never closes, never disconnects
        worker.wait(30)
        service = Settings(kafka_bootstrap)  # the service's connection has the defaults
        bound = reap_bound(service.heartbeat_interval, service.liveness_timeout)
        # waited for generously (Kafka's delays on two shared cores), the bound is the README's
        assert wait_until(lambda: observer.display_queue(name) is None, 5 * bound)
        topic_of = observer.connection.settings.topic_of(name)
        assert wait_until(lambda: observer.connection.admin.partitions_of(topic_of) is None, 30)
        assert registered(observer, sub_name) == RC.CF_NOT_REGISTERED  # went with its queue
    finally:
        worker.kill()
        pubsub.close()
