"""The MQI's state copy gets a new consumer when its own reads nothing while Kafka answers
(``kafka.readstall``; librdkafka 2.16 can leave one with no broker after an outage, for good),
over the session's Kafka. The stuck consumer is the real one, paused by the replica's own
thread: it fetches nothing and Kafka answers everything else. A queue another connection
defines is then opened by this one once a new consumer has read on from where the stuck one
stopped; without the renewal, MQOPEN's catalogue barrier ends in 2009 after 30 s. The
fake-client tests: tests/unit/mqi/test_mqi_replica_renewal.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mqkafka.kafka import readstall
from mqkafka.kafka.clients import TopicPartition
from mqkafka.kafka.compacted import ApplyRecord, CompactedReader
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

pytestmark = pytest.mark.kafka


def test_a_replica_whose_consumer_reads_nothing_gets_a_new_one_and_sees_new_queues(
    connect: Callable[..., QueueManager], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(readstall, "REPLACE_AFTER", 3.0)  # read as the replica is made
    to_stick: list[CompactedReader] = []
    stuck: list[Any] = []
    poll = CompactedReader.poll

    def sticking(self: CompactedReader, apply: ApplyRecord, *args: Any) -> int:
        if self in to_stick and not stuck:  # on the thread that polls: librdkafka's own
            self._consumer.pause([TopicPartition(t, p) for t, p in self.partitions])
            stuck.append(self._consumer)
        return poll(self, apply, *args)

    monkeypatch.setattr(CompactedReader, "poll", sticking)
    stuck_one, other = connect(), connect()
    reader = stuck_one.connection.replica._reader
    to_stick.append(reader)
    name = "APP.RENEWED.REPLICA"
    other.define_queue(name)
    queue = Queue(stuck_one, name, C.MQOO_OUTPUT)  # its barrier waits for the new consumer
    queue.put(b"seen")
    queue.close()
    assert stuck and reader.renewals == 1 and reader._consumer is not stuck[0]
