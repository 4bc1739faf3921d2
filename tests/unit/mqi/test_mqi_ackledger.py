"""The acknowledgement ledger's writers over a fake connection and replica (no Kafka): what an
MQCLOSE notes, what a reaper keeps for a crashed connection, what a browse sweeps (issue 35
point 4, where ``__share_group_state`` may not be read)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from mqkafka.mqi.kafkaqm import ackledger
from mqkafka.mqi.kafkaqm.ackedspans import LEDGER_PREFIX, AckedSpans, LedgerEntry, encode_ledger
from mqkafka.mqi.kafkaqm.heartbeat import ConnectionTable, Heartbeat
from mqkafka.mqi.kafkaqm.logreader import Consumed

TOPIC_ID = bytes.fromhex("00" * 15 + "01")


class FakeReplica:
    """Writes are applied to the table at once, as a replica reading back would."""

    def __init__(self, table: ConnectionTable) -> None:
        self.connections = table
        self.settings = SimpleNamespace(
            connections_topic="mqk-connections",
            topic_of=lambda queue: "t." + queue,
            share_group_of=lambda topic: "g." + topic,
        )
        self.keys: list[str] = []

    def write(self, topic: str, key: bytes, value: bytes | None, *, wait: bool = True) -> None:
        self.keys.append(key.decode())
        self.connections.apply(key.decode(), value, self.connections.now)

    def flush(self) -> None:
        pass


class FakeAdmin:
    def __init__(self, starts: dict[int, int], topic_id: bytes | None = TOPIC_ID) -> None:
        self.starts = starts
        self.share_state = SimpleNamespace(topic_id=lambda group: topic_id)

    asked = 0

    def share_start(self, topic: str, group: str, partitions: int) -> dict[int, int]:
        self.asked += 1
        return dict(self.starts)


class FakeConnection:  # weakly referable, as a connection is
    def __init__(self, table: ConnectionTable, admin: FakeAdmin, consumed: Consumed) -> None:
        self.id, self.admin, self.consumed = "c1", admin, {"t.Q": consumed}
        self.replica = FakeReplica(table)
        self.settings = self.replica.settings


def connection(table: ConnectionTable, admin: FakeAdmin, got: list[int]) -> Any:
    consumed = Consumed()
    for offset in got:
        consumed.add((0, offset))
    return FakeConnection(table, admin, consumed)


def test_an_mqclose_notes_what_lies_above_the_start_and_takes_it_out_once_passed() -> None:
    table = ConnectionTable(timeout=10.0)
    conn = connection(table, FakeAdmin({0: 2}), [1, 3, 4])
    ackledger.note(conn, "Q", "t.Q", "g.t.Q", 1)
    assert table.acked("Q", TOPIC_ID.hex()).encode() == [[0, 3, 4]]
    conn.admin.starts = {0: 5}
    ackledger.note(conn, "Q", "t.Q", "g.t.Q", 1)  # nothing above any more: taken out
    assert not table.acked("Q", TOPIC_ID.hex())
    assert conn.replica.keys == [LEDGER_PREFIX + "c1"] * 2
    ackledger.note(conn, "Q", "t.Q", "g.t.Q", 1)  # nothing to say: nothing written
    assert len(conn.replica.keys) == 2


def test_no_topic_id_no_line() -> None:
    table = ConnectionTable(timeout=10.0)
    conn = connection(table, FakeAdmin({0: 0}, topic_id=None), [1])
    ackledger.note(conn, "Q", "t.Q", "g.t.Q", 1)
    assert conn.replica.keys == []


def answer(name: str, *spans: tuple[int, int, int]) -> bytes:
    line = LedgerEntry(TOPIC_ID.hex(), AckedSpans(spans))
    return Heartbeat(name, flushed={"b": 1}, acked={"Q": line}).encode()


def test_a_reaper_keeps_a_crashed_connections_answers_above_the_start() -> None:
    table = ConnectionTable(timeout=10.0)
    table.apply("dead", answer("dead", (0, 3, 3), (0, 6, 7)), 100.0)
    replica = FakeReplica(table)
    ackledger.keep_for_ended(replica, FakeAdmin({0: 2}), "dead")  # type: ignore[arg-type]
    table.apply("dead", None, 100.1)  # its tombstone: the answers go, the ledger stays
    assert table.acked("Q", TOPIC_ID.hex()).encode() == [[0, 3, 3], [0, 6, 7]]
    table.apply("gone", answer("gone", (0, 1, 1)), 100.2)
    ackledger.keep_for_ended(replica, FakeAdmin({0: 2}), "gone")  # type: ignore[arg-type]
    assert replica.keys == [LEDGER_PREFIX + "dead"]  # all below the start: nothing kept


def test_a_browse_sweeps_passed_or_foreign_lines_of_ended_connections_only() -> None:
    table = ConnectionTable(timeout=10.0)
    here = TOPIC_ID.hex()
    lines = {
        "passed": LedgerEntry(here, AckedSpans([(0, 1, 2)])),
        "above": LedgerEntry(here, AckedSpans([(0, 1, 9)])),
        "foreign": LedgerEntry("ff" * 16, AckedSpans([(0, 9, 9)])),
        "alive": LedgerEntry(here, AckedSpans([(0, 1, 2)])),
    }
    for name, line in lines.items():
        table.apply(LEDGER_PREFIX + name, encode_ledger({"Q": line, "R": line}), 100.0)
    table.apply("alive", Heartbeat("alive").encode(), 100.0)
    conn = connection(table, FakeAdmin({0: 5}), [])
    assert ackledger.sweep(conn, "Q") == here
    assert sorted(table.ledgers("Q")) == [LEDGER_PREFIX + n for n in ("above", "alive")]
    assert len(table.ledgers("R")) == 4  # another queue's lines are left
    asked = conn.admin.asked
    assert ackledger.sweep(conn, "S") is None  # no line: nothing asked
    assert ackledger.sweep(conn, "Q") == here  # the same lines as last time: not asked again
    assert ackledger.sweep(conn, "Q") == here and conn.admin.asked == asked + 1
