"""The browse barrier for a browser without an MQI connection: ``mqk browse`` and the console.

Steps 1, 2 and 4 of :mod:`.browsebarrier`, done once in the caller's thread: read the
heartbeat topic to its end (everything written before the browse began), list the queue's
getters, and if there are any, write a heartbeat of a connection of its own (a fresh id, no
queues, ``flush`` naming the queue) and read on until each getter has answered, stopped
getting from the queue, or died, waiting at most ``BARRIER_WAIT``; then a tombstone takes
the visitor's heartbeat away. The getters answer it as they answer any browsing connection,
naming what they hold got under syncpoint and what they acknowledged above the share group's
start (:mod:`.ackedspans`), which the listing passes over. A queue nobody gets from costs
the reading alone.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from dataclasses import dataclass

from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.compacted import CompactedReader, MissingTopic
from mqkafka.mq.errors import MQError
from mqkafka.mqi.kafkaqm.ackedspans import NONE, AckedSpans
from mqkafka.mqi.kafkaqm.browsebarrier import BARRIER_WAIT, getter_seen, outstanding
from mqkafka.mqi.kafkaqm.heartbeat import ConnectionTable, Heartbeat
from mqkafka.mqi.kafkaqm.settings import CONNECTIONS_TOPIC, Settings
from mqkafka.mqi.rules.matching import Position

log = logging.getLogger("mqkafka.mqi.kafkaqm.connection")  # the operator's lines: the MQI's

LIVENESS = Settings.liveness_timeout  # the MQI's default: a getter unheard this long is gone


@dataclass(frozen=True)
class Visit:
    """What the getters elsewhere said: the messages they hold got under syncpoint, and
    what they (and connections that got from the queue before: their answers and ledgers,
    :mod:`.ackledger`) acknowledged above the share group's start. The browse passes over
    both."""

    held: frozenset[Position] = frozenset()
    table: ConnectionTable | None = None

    def acked(self, queue: str, topic_id: str | None) -> AckedSpans:
        """What was named acknowledged (ledger lines of another topic id left out)."""
        return NONE if self.table is None else self.table.acked(queue, topic_id)


def visit(config: ClientConfig, namespace: str, queue: str, wait: float = BARRIER_WAIT) -> Visit:
    """Before a browse of ``queue`` reads the share state: the getters in other processes
    have committed what they got (or ``wait`` seconds passed, said in a line each)."""
    topic = namespace + CONNECTIONS_TOPIC
    table = ConnectionTable(LIVENESS)

    def apply(_topic: str, _partition: int, key: bytes, value: bytes | None, ts: int) -> None:
        table.apply(key.decode("utf-8", "replace"), value, ts / 1000.0)

    try:
        reader = CompactedReader(config, [topic], role={"fetch.wait.max.ms": 20}, wait_for_topics=0)
    except MissingTopic:
        return Visit()  # no MQI application ever connected: nobody gets
    except clients.KafkaException as error:
        log.warning("browse of %s: the getters could not be asked to commit: %s", queue, error)
        return Visit()
    me = uuid.uuid4().hex
    producer = None
    try:
        reader.catch_up(apply, timeout=30.0)
        getters = {c for c, use in table.uses(queue) if use.getting}
        if not getters:
            return Visit(table=table)
        producer = clients.producer(config, {"acks": "all", "linger.ms": 0})
        beat = Heartbeat(me, "", "mqk browse", socket.gethostname(), os.getpid(), {}, {queue: 1})
        producer.produce(topic, key=me.encode(), value=beat.encode())
        producer.flush(30)
        deadline = time.monotonic() + wait

        def left() -> set[str]:
            return outstanding({c: getter_seen(table, c, queue, me) for c in getters}, 1)

        while left():
            if time.monotonic() >= deadline:
                for connection in sorted(left()):
                    log.warning(
                        "browse of %s: connection %s did not confirm its gets within %.0f s; "
                        "a message it got in its last moments may show",
                        queue,
                        connection,
                        wait,
                    )
                break
            reader.poll(apply, 0.02)
        held = frozenset().union(*(table.held(c, queue) for c in getters))
        return Visit(held, table)
    except (clients.KafkaException, MQError) as error:  # the browse goes on without it
        log.warning("browse of %s: the getters could not be asked to commit: %s", queue, error)
        return Visit()
    finally:
        if producer is not None:
            producer.produce(topic, key=me.encode(), value=None)
            producer.flush(10)
        reader.close()


__all__ = ["Visit", "visit"]
