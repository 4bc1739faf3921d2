"""runmqsc's rules for DEFINE (REPLACE, LIKE), ALTER, DELETE and CLEAR (query/queueadmin.py),
on a fake queue manager that keeps definitions as the MQI's catalogue does."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from mqkafka.mqi import CMQC
from mqkafka.mqi.rules.catalogue import DEFAULT_MAX_DEPTH, QueueDefinition
from mqkafka.mqi.rules.errors import MQMIError
from mqkafka.query import queueadmin


class FakeQueueManager:
    def __init__(self) -> None:
        self.queues: dict[str, QueueDefinition] = {}
        self.partitions: dict[str, int | None] = {}

    def display_queue(self, name: str) -> QueueDefinition | None:
        return self.queues.get(name)

    def define_queue(self, name: str, *, partitions: int | None = None, **fields: Any) -> None:
        self.queues[name] = QueueDefinition(name, **fields)
        self.partitions[name] = partitions

    def alter_queue(self, name: str, *, partitions: int | None = None, **changes: Any) -> None:
        self.queues[name] = replace(self.queues[name], **changes)
        if partitions is not None:
            self.partitions[name] = partitions

    def delete_queue(self, name: str, *, purge: bool = False) -> None:
        del self.queues[name]

    def clear_queue(self, name: str) -> int:
        return 3


def reason(call: Any) -> int:
    with pytest.raises(MQMIError) as raised:
        call()
    return raised.value.reason


def test_define_then_again_is_2100_unless_replace_which_makes_it_anew() -> None:
    qmgr = FakeQueueManager()
    queueadmin.define_queue(qmgr, "A", {"max_depth": 7, "description": "first"}, partitions=2)
    assert qmgr.partitions["A"] == 2
    assert reason(lambda: queueadmin.define_queue(qmgr, "A", {})) == CMQC.MQRC_OBJECT_ALREADY_EXISTS
    said = queueadmin.define_queue(qmgr, "A", {"description": "second"}, replace=True)
    assert said == "queue A replaced (local)"
    # REPLACE: what is not given takes its default again, as runmqsc's DEFINE ... REPLACE
    assert (qmgr.queues["A"].max_depth, qmgr.queues["A"].description) == (
        DEFAULT_MAX_DEPTH,
        "second",
    )


def test_like_copies_every_attribute_but_the_name_and_a_model_is_temporary_by_default() -> None:
    qmgr = FakeQueueManager()
    queueadmin.define_queue(qmgr, "T", {"max_depth": 9, "inhibit_put": True})
    queueadmin.define_queue(qmgr, "C", {"description": "copy"}, like="T")
    assert (qmgr.queues["C"].max_depth, qmgr.queues["C"].inhibit_put) == (9, True)
    assert qmgr.queues["C"].description == "copy"
    assert reason(lambda: queueadmin.define_queue(qmgr, "D", {}, like="NONE")) == 2085
    queueadmin.define_queue(qmgr, "M", {}, model=True)
    assert qmgr.queues["M"].definition_type == CMQC.MQQDT_TEMPORARY_DYNAMIC
    assert reason(lambda: queueadmin.define_queue(qmgr, "L", {}, like="M")) == 4007
    assert reason(lambda: queueadmin.define_queue(qmgr, "M", {}, replace=True)) == 4007


WRONG = [
    (lambda q: queueadmin.alter_queue(q, "M", {}, model=False), 4007),
    (lambda q: queueadmin.delete_queue(q, "L", model=True), 4007),
    (lambda q: queueadmin.clear_queue(q, "M"), 4007),
    (lambda q: queueadmin.alter_queue(q, "NONE", {}), 2085),
    (lambda q: queueadmin.delete_queue(q, "NONE"), 2085),
    (lambda q: queueadmin.clear_queue(q, "NONE"), 2085),
]


@pytest.mark.parametrize(("call", "expected"), WRONG)
def test_an_object_named_as_the_wrong_type_or_not_there_is_refused(
    call: Any, expected: int
) -> None:
    qmgr = FakeQueueManager()
    queueadmin.define_queue(qmgr, "L", {})
    queueadmin.define_queue(qmgr, "M", {}, model=True)
    assert reason(lambda: call(qmgr)) == expected


def test_alter_delete_and_clear_say_what_they_did() -> None:
    qmgr = FakeQueueManager()
    queueadmin.define_queue(qmgr, "L", {})
    assert queueadmin.alter_queue(qmgr, "L", {"max_depth": 1}, model=False) == "queue L altered"
    assert qmgr.queues["L"].max_depth == 1
    assert queueadmin.clear_queue(qmgr, "L") == "queue L cleared (3 message(s) discarded)"
    assert queueadmin.delete_queue(qmgr, "L", purge=True) == "queue L deleted"
