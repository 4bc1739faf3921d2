"""Adding a state kind is one registry entry plus its engine logic.

``NOTES`` is a kind that exists only here: a value, its two effects and an engine state that
applies them (the engine logic), and one ``StateKind`` entry in a fresh registry. Nothing else
is written for it, yet it flows through every reader of the registry: the service's effect
records, the replica's apply, a RocksDB column family of its own (kept across a reopen), the
gauges and provisioning."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import generate_latest

from mqkafka.engine.records import Publication
from mqkafka.engine.state import EngineState
from mqkafka.engine.topicspace import ROOT
from mqkafka.kafka.provision import load_catalogue, with_state_topics
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.service.config import ServiceConfig
from mqkafka.service.metrics import Metrics
from mqkafka.service.outputs import Outputs
from mqkafka.service.queues import QueueDirectory
from mqkafka.service.replica import StateRecords
from mqkafka.state.kinds import (
    STATE_KINDS,
    Changelog,
    GaugeSpec,
    KindBinding,
    SnapshotColumn,
    StateKind,
    StateKinds,
    changelogs,
)
from mqkafka.state.rocks import RocksKindStore, RocksState
from tests.unit.state.strategies import pub

# --- the engine logic of the new kind ------------------------------------------------------


@dataclass(frozen=True)
class Note:
    key: str
    text: str


@dataclass(frozen=True)
class PutNote:
    note: Note


@dataclass(frozen=True)
class DropNote:
    key: str


class MemoryNotes:
    def __init__(self) -> None:
        self._notes: dict[str, Note] = {}

    def get(self, key: str) -> Note | None:
        return self._notes.get(key)

    def put(self, note: Note) -> None:
        self._notes[note.key] = note

    def delete(self, key: str) -> None:
        self._notes.pop(key, None)

    def __len__(self) -> int:
        return len(self._notes)


class NotedState(EngineState):
    """The engine state with a store of notes, changed by their effects."""

    def __init__(self, notes: Any = None, **stores: Any) -> None:
        super().__init__(**stores)
        self.notes = notes if notes is not None else MemoryNotes()

    def apply(self, effects: Iterable[Any]) -> None:
        rest = []
        for effect in effects:
            if isinstance(effect, PutNote):
                self.notes.put(effect.note)
            elif isinstance(effect, DropNote):
                self.notes.delete(effect.key)
            else:
                rest.append(effect)
        super().apply(rest)


# --- its one entry -------------------------------------------------------------------------


def _decode(raw: bytes) -> Note:
    try:
        found = json.loads(raw)
        return Note(found["key"], found["text"])
    except (ValueError, KeyError, TypeError) as error:
        raise MQError(RC.OBJECT_DAMAGED, f"note does not decode: {error}") from error


def _bind_notes() -> KindBinding[Note, str]:
    return KindBinding(
        encode=lambda note: json.dumps({"key": note.key, "text": note.text}).encode(),
        decode=_decode,
        key_of=lambda note: note.key,
        key_bytes=str.encode,
        parse_key=bytes.decode,
        stores=PutNote,
        removes=DropNote,
        removing=DropNote,
        stored_value=lambda effect: effect.note,
        removed_key=lambda effect: effect.key,
        current=lambda state, key: state.notes.get(key),
    )


NOTES = StateKind[Note, str](
    name="notes",
    changelog=Changelog("mqk-notes", 2, "Notes: a kind of state that only this test has."),
    schema="note",
    required_field="text",
    snapshot=(SnapshotColumn("key", "v.key"), SnapshotColumn("text", "v.text")),
    gauge=GaugeSpec("mqk_notes", "Notes held"),
    bind=_bind_notes,
)


@dataclass
class _EveryTopicExists:
    """An admin client to whom every queue's topic exists (no Kafka needed here)."""

    @dataclass
    class _Metadata:
        topics: dict[str, Any] = field(default_factory=dict)

    def list_topics(self, topic: str, timeout: float) -> Any:
        return self._Metadata({topic: type("Found", (), {"error": None})()})


@pytest.fixture
def registry() -> StateKinds:
    return StateKinds([*STATE_KINDS, NOTES])


@pytest.fixture
def rocks(tmp_path: Path, registry: StateKinds) -> Iterator[RocksState]:
    with RocksState(tmp_path / "state", registry) as state:
        yield state


def _outputs(registry: StateKinds) -> Outputs:
    config = ServiceConfig(bootstrap="unused:9092", namespace="ns.")
    return Outputs(config, QueueDirectory(_EveryTopicExists(), namespace="ns."), kinds=registry)


# --- it flows through everything -----------------------------------------------------------


def test_a_new_kind_is_written_applied_stored_counted_and_provisioned(
    registry: StateKinds, rocks: RocksState, tmp_path: Path
) -> None:
    assert isinstance(rocks.stores["notes"], RocksKindStore)
    state = NotedState(**rocks.stores)
    records = StateRecords(state, registry.topics("ns."))
    outputs = _outputs(registry)
    note = Note("k1", "hello")

    # the service writes the effect as its kind's record (a real kind adds its effects to the
    # engine's Effect union: engine logic, so not done here)
    queue = "SYSTEM.BROKER.CONTROL.QUEUE"
    written = outputs.record(PutNote(note), queue)  # type: ignore[arg-type]
    assert (written.topic, written.key, written.value) == (
        "ns.mqk-notes",
        b"k1",
        b'{"key": "k1", "text": "hello"}',
    )
    # every worker's replica applies it: the engine state holds it, in its own column family
    records.apply_record(written.topic, written.key, written.value)
    assert state.notes.get("k1") == note and len(rocks.stores["notes"]) == 1
    assert not NOTES.apply_record(state, b"k1", written.value)  # own record back: no change
    # the gauges count it, beside the broker's own kinds
    metrics = Metrics(registry)
    metrics.observe_state(state)
    text = generate_latest(metrics.registry).decode()
    assert "# HELP mqk_notes Notes held" in text and "mqk_notes 1.0" in text
    assert "mqk_subscriptions 0.0" in text
    # provisioning creates its compacted topic from the entry alone
    (spec,) = [
        s
        for s in with_state_topics(load_catalogue(), changelogs(registry))
        if s.name == "mqk-notes"
    ]
    assert (spec.kind, spec.partitions, spec.config) == ("state", 2, {"cleanup.policy": "compact"})

    # a tombstone (the removing effect's record) removes it everywhere
    tombstone = outputs.record(DropNote("k1"), queue)  # type: ignore[arg-type]
    assert (tombstone.topic, tombstone.key, tombstone.value) == ("ns.mqk-notes", b"k1", None)
    records.apply_record(tombstone.topic, tombstone.key, tombstone.value)
    assert state.notes.get("k1") is None and len(rocks.stores["notes"]) == 0
    metrics.observe_state(state)
    assert "mqk_notes 0.0" in generate_latest(metrics.registry).decode()
    assert records.applied == 2


def test_the_new_kind_survives_a_reopen_beside_the_broker_kinds(
    registry: StateKinds, tmp_path: Path
) -> None:
    path = tmp_path / "state"
    retained: Publication = pub("Sport/Soccer", body=b"1-0")
    with RocksState(path, registry) as rocks:
        state = NotedState(**rocks.stores)
        records = StateRecords(state, registry.topics())
        for effect in (PutNote(Note("a", "one")), PutNote(Note("b", "two"))):
            found = registry.record_of(effect)
            assert found is not None and found[0] is NOTES
            records.apply_record(NOTES.topic, found[1], found[2])
        key, value = STATE_KINDS["retained"].record(retained)
        records.apply_record("mqk-retained", key, value)
        rocks.flush()
    with RocksState(path, registry) as again:
        state = NotedState(**again.stores)
        assert len(state.notes) == 2 and state.notes.get("b") == Note("b", "two")
        assert state.retained.get(ROOT, "Sport/Soccer") == retained
    # the broker's registry opens the same database: the notes' column family is left aside,
    # and a wipe (a rebuild from Kafka) empties it with the rest
    with RocksState(path) as broker:
        assert "notes" not in broker.stores
        assert broker.retained.get(ROOT, "Sport/Soccer") == retained
        broker.wipe()
    with RocksState(path, registry) as again:
        assert len(again.stores["notes"]) == 0 and list(again.stores["notes"]) == []
        assert again.retained.get(ROOT, "Sport/Soccer") is None


def test_a_damaged_record_of_the_new_kind_is_skipped(
    registry: StateKinds, rocks: RocksState
) -> None:
    state = NotedState(**rocks.stores)
    records = StateRecords(state, registry.topics())
    records.apply_record("mqk-notes", b"k1", b"not json")
    assert len(state.notes) == 0 and records.applied == 0
    with pytest.raises(MQError) as caught:
        rocks.stores["notes"].apply_record(b"k1", b'{"key": "other", "text": "x"}')
    assert caught.value.reason == RC.OBJECT_DAMAGED  # a value under another key's name
