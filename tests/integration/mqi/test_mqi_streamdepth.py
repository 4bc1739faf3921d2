"""A stream queue named with ``mqk serve --stream`` is not held to MAXDEPTH: the broker
service drains it with its own consumer group, so the share group's lag (a queue's depth)
only grows. Before the service marked it, the MAXDEPTH-th publication on was 2053."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

import mqkafka.mqi as pymqi
from mqkafka.cli.serveprocess import ServeProcess
from mqkafka.kafka.provision import apply_catalogue
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.psclient import PubSub
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.mqi.kafkaqm.streamqueues import STREAM_MAX_DEPTH

pytestmark = pytest.mark.kafka

PUBLICATIONS = 30
ROOT = "SYSTEM.BROKER.DEFAULT.SUBPOINT"
WAIT = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT, WaitInterval=30_000)


def test_a_stream_takes_more_publications_than_its_maxdepth(
    kafka_bootstrap: str,
    namespace: str,
    connect: Callable[..., QueueManager],
    new_queue: Callable[..., str],
    tmp_path: Path,
) -> None:
    stream, fresh = "APP.STREAM", f"APP.STREAM.{uuid.uuid4().hex[:6].upper()}"
    qmgr = connect()
    qmgr.define_queue(stream, max_depth=20)
    apply_catalogue(kafka_bootstrap, prefix=namespace)
    with ServeProcess(
        kafka_bootstrap, namespace, tmp_path, "--stream", stream, "--stream", fresh,
        instance_id="streams",
    ) as service:  # fmt: skip
        said = [line for line in service.lines if "MAXDEPTH(999999999)" in line]
        assert len(said) == 2, service.lines  # one line each: altered, defined
        assert qmgr.display_queue(stream).max_depth == STREAM_MAX_DEPTH  # type: ignore[union-attr]
        assert qmgr.display_queue(fresh).max_depth == STREAM_MAX_DEPTH  # type: ignore[union-attr]
        subscriber = new_queue()
        pubsub = PubSub(qmgr)
        reply = pubsub.register_subscriber(["stream/depth"], queue=subscriber)
        assert reply is not None and reply.reason == 0
        for i in range(PUBLICATIONS):  # an RFH2 subscriber sees a stream's by the subpoint
            pubsub.publish(["stream/depth"], b"pub-%02d" % i, stream=stream, sub_point=ROOT)
        queue = pymqi.Queue(qmgr, subscriber, C.MQOO_INPUT_SHARED)
        got = {queue.get(None, pymqi.MD(), WAIT)[-6:] for _ in range(PUBLICATIONS)}
        assert got == {b"pub-%02d" % i for i in range(PUBLICATIONS)}
        queue.close()
        pubsub.close()
