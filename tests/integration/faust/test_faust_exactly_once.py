"""Why ``mqk serve`` has no Faust runtime (issue 25 point 2): Faust's exactly-once processing
does not keep a Table's changelog and the input offsets in one transaction (Kafka 4.2,
faust-streaming 0.15.3, aiokafka 0.14).

A service run by Faust would keep subscriptions in a Table. Exactly once means: whatever a
record changed in the Table is committed together with that record's input offset, or neither
is. Faust commits on a timer, in the middle of an agent's work on a record: the transaction
takes the Table writes made so far, but only the offsets of records already finished. A worker
that then crashes processes that record again on top of its committed effect (a RegSub applied
twice, a DeregSub's removal kept while its reply is sent again). The probe app counts records
and holds the second one (as a service worker awaits its sends) longer than the test looks, so
the commit timer always fires while that record is being worked on.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from tests.integration.faust.conftest import FaustWorker

pytestmark = pytest.mark.kafka

PROBE = Path(__file__).with_name("eos_probe_app.py")
FAUST_SPLITS_TRANSACTIONS = (
    "Faust exactly-once on Kafka 4.2: a timed commit mid-record commits the Table's changelog "
    "write of a record whose input offset it does not commit, so a crash then applies that "
    "record twice"
)


def committed_count(config: ClientConfig, changelog: str, at_least: int) -> int:
    """The Table's count as read_committed readers of its changelog see it, once it is at least
    ``at_least`` (0 when it never gets there within 40 s)."""
    consumer = clients.consumer(
        config, {"group.id": "probe-reader", "isolation.level": "read_committed"}
    )
    consumer.assign([clients.TopicPartition(changelog, 0, clients.OFFSET_BEGINNING)])
    count = 0
    deadline = time.monotonic() + 40
    try:
        while count < at_least and time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is not None and message.error() is None and message.value():
                count = int(json.loads(message.value()))
        return count
    finally:
        consumer.close()


def committed_offset(config: ClientConfig, group: str, topic: str) -> int:
    consumer = clients.consumer(config, {"group.id": group})
    try:
        [position] = consumer.committed([clients.TopicPartition(topic, 0)], timeout=30)
        return int(position.offset)
    finally:
        consumer.close()


@pytest.mark.xfail(strict=True, reason=FAUST_SPLITS_TRANSACTIONS)
def test_a_tables_committed_changes_come_with_their_input_offsets(
    kafka_bootstrap: str,
    new_topic: Callable[..., str],
    faust_worker: Callable[..., FaustWorker],
) -> None:
    config = ClientConfig(kafka_bootstrap)
    topic = new_topic()
    app_id = f"probe-{uuid.uuid4().hex[:8]}"
    producer = clients.producer(config)
    for number in range(2):
        producer.produce(topic, value=str(number).encode())
    producer.flush(30)
    del producer  # not left retrying a broker the session has stopped

    worker = faust_worker(
        PROBE, PROBE_ID=app_id, PROBE_TOPIC=topic, PROBE_HOLD_AT="2", PROBE_SECONDS="600"
    )
    worker.wait_for("counted 2", timeout=120)
    # The second record is counted and being worked on; its count is committed...
    assert committed_count(config, f"{app_id}-counts-changelog", at_least=2) == 2
    # ...so, exactly once, its input offset is committed too (2: both records consumed).
    offset = committed_offset(config, app_id, topic)
    worker.stop(timeout=5)  # it holds the record for minutes: no need to wait on it
    assert offset == 2
