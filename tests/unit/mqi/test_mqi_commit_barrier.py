"""MQCMIT asks the catalogue barrier (a list-offsets call and waiting for the replica to read
back its own heartbeat) only when a queue of the unit of work may be logically deleted: only
dynamic queues are (MQCO_DELETE, their creator's end; an administrative delete with work
fails), and a queue the replica does not know is asked about too. The barrier cost half of
an MQCMIT of ten gets (bench_mqi_kafka: 808 gets/s before, 3,370 after)."""

from __future__ import annotations

from typing import Any, cast

import pytest

from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.connection import Connection
from mqkafka.mqi.rules.catalogue import QueueDefinition

QUEUES = {
    "APP.LOCAL": QueueDefinition("APP.LOCAL"),
    "APP.PERMDYN": QueueDefinition(
        "APP.PERMDYN", definition_type=C.MQQDT_PERMANENT_DYNAMIC, creator="c1"
    ),
    "APP.TEMPDYN": QueueDefinition(
        "APP.TEMPDYN", definition_type=C.MQQDT_TEMPORARY_DYNAMIC, creator="c1"
    ),
}


class Replica:
    """The catalogue as this connection's replica holds it; counts the barriers asked."""

    def __init__(self) -> None:
        self.barriers = 0

    def lookup(self, name: str) -> QueueDefinition | None:
        return QUEUES.get(name)

    def sync(self) -> None:
        self.barriers += 1


@pytest.mark.parametrize(
    ("queues", "barriers"),
    [
        ([], 0),
        (["APP.LOCAL"], 0),  # a predefined queue is never logically deleted
        (["APP.LOCAL", "APP.PERMDYN"], 1),
        (["APP.TEMPDYN"], 1),
        (["NOT.KNOWN.HERE"], 1),  # not in the replica yet: the barrier decides
    ],
)
def test_the_catalogue_barrier_is_asked_only_for_a_unit_of_work_on_a_dynamic_queue(
    queues: list[str], barriers: int
) -> None:
    conn = Connection.__new__(Connection)  # no Kafka: only the commit's bookkeeping runs
    replica = Replica()
    conn.replica = cast(Any, replica)
    conn.id = "c1"
    conn.handles = {}
    conn._finish_after_work(queues, {})
    assert replica.barriers == barriers
