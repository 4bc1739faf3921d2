"""The queue catalogue: definitions that validate, stable records, compaction-safe replay."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.rules.catalogue import (
    CATALOGUE_TOPIC,
    OBJECT_NAME_CHARS,
    SYSTEM_DEFAULT_MODEL,
    SYSTEM_DURABLE_MODEL,
    SYSTEM_NDURABLE_MODEL,
    SYSTEM_PERMANENT_MODEL,
    Catalogue,
    CatalogueRecord,
    QueueDefinition,
    check_object_name,
)

NAMES = st.text(alphabet="".join(sorted(OBJECT_NAME_CHARS)), min_size=1, max_size=48)


@st.composite
def definitions(draw: st.DrawFn, name: st.SearchStrategy[str] = NAMES) -> QueueDefinition:
    queue_type = draw(st.sampled_from([C.MQQT_LOCAL, C.MQQT_MODEL]))
    if queue_type == C.MQQT_MODEL:
        definition_type = draw(
            st.sampled_from([C.MQQDT_TEMPORARY_DYNAMIC, C.MQQDT_PERMANENT_DYNAMIC])
        )
    else:
        definition_type = draw(
            st.sampled_from(
                [C.MQQDT_PREDEFINED, C.MQQDT_TEMPORARY_DYNAMIC, C.MQQDT_PERMANENT_DYNAMIC]
            )
        )
    dynamic = queue_type == C.MQQT_LOCAL and definition_type != C.MQQDT_PREDEFINED
    return QueueDefinition(
        name=draw(name),
        queue_type=queue_type,
        definition_type=definition_type,
        default_persistence=draw(st.sampled_from([0, 1])),
        max_depth=draw(st.integers(0, 999_999_999)),
        max_msg_length=draw(st.integers(0, 100 * 1024 * 1024)),
        description=draw(st.text(max_size=64)),
        model=draw(st.none() | NAMES),
        creator=draw(st.text(min_size=1, max_size=30)) if dynamic else None,
        created_by=draw(st.text(max_size=12)),
    )


def test_catalogue_topic_is_the_compacted_state_topic_of_the_toml() -> None:
    assert CATALOGUE_TOPIC == "mqk-queues"


@pytest.mark.parametrize(
    ("name", "queue_type", "definition_type"),
    [
        (SYSTEM_DEFAULT_MODEL, C.MQQT_MODEL, C.MQQDT_TEMPORARY_DYNAMIC),
        (SYSTEM_PERMANENT_MODEL, C.MQQT_MODEL, C.MQQDT_PERMANENT_DYNAMIC),
        (SYSTEM_DURABLE_MODEL, C.MQQT_MODEL, C.MQQDT_PERMANENT_DYNAMIC),
        (SYSTEM_NDURABLE_MODEL, C.MQQT_MODEL, C.MQQDT_TEMPORARY_DYNAMIC),
        ("SYSTEM.DEFAULT.LOCAL.QUEUE", C.MQQT_LOCAL, C.MQQDT_PREDEFINED),
        ("SYSTEM.BROKER.CONTROL.QUEUE", C.MQQT_LOCAL, C.MQQDT_PREDEFINED),
        ("SYSTEM.BROKER.DEFAULT.STREAM", C.MQQT_LOCAL, C.MQQDT_PREDEFINED),
        ("SYSTEM.DEAD.LETTER.QUEUE", C.MQQT_LOCAL, C.MQQDT_PREDEFINED),
    ],
)
def test_system_objects(name: str, queue_type: int, definition_type: int) -> None:
    definition = Catalogue.with_system_objects().lookup(name)
    assert (definition.queue_type, definition.definition_type) == (queue_type, definition_type)
    assert definition.default_persistence == C.MQPER_NOT_PERSISTENT


def test_unknown_queue_gives_2085() -> None:
    with pytest.raises(MQError) as raised:
        Catalogue.with_system_objects().lookup("NO.SUCH.QUEUE")
    assert raised.value.reason == RC.UNKNOWN_OBJECT_NAME


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"name": ""}, RC.OBJECT_NAME_ERROR),
        ({"name": "X" * 49}, RC.OBJECT_NAME_ERROR),
        ({"name": "HAS BLANK"}, RC.OBJECT_NAME_ERROR),
        ({"name": "HAS-DASH"}, RC.OBJECT_NAME_ERROR),  # '-' is the wire escape character
        ({"name": "Q", "queue_type": C.MQQT_ALIAS}, RC.Q_TYPE_ERROR),
        ({"name": "Q", "queue_type": C.MQQT_MODEL}, RC.Q_TYPE_ERROR),  # PREDEFINED model
        (
            {"name": "Q", "queue_type": C.MQQT_MODEL, "definition_type": C.MQQDT_SHARED_DYNAMIC},
            RC.Q_TYPE_ERROR,
        ),
        ({"name": "Q", "definition_type": C.MQQDT_SHARED_DYNAMIC}, RC.Q_TYPE_ERROR),
        ({"name": "Q", "default_persistence": 2}, RC.PERSISTENCE_ERROR),
        ({"name": "Q", "max_depth": -1}, RC.OBJECT_DAMAGED),
        ({"name": "Q", "definition_type": C.MQQDT_TEMPORARY_DYNAMIC}, RC.OBJECT_DAMAGED),
        ({"name": "Q", "model": "BAD MODEL"}, RC.OBJECT_NAME_ERROR),
    ],
)
def test_definitions_validate_when_built(kwargs: dict[str, object], reason: RC) -> None:
    with pytest.raises(MQError) as raised:
        QueueDefinition(**kwargs)  # type: ignore[arg-type]
    assert raised.value.reason == reason


def test_check_object_name_accepts_all_mq_name_characters() -> None:
    assert check_object_name("aZ09._/%") == "aZ09._/%"


@given(definitions())
def test_records_round_trip(definition: QueueDefinition) -> None:
    record = CatalogueRecord.put(definition)
    assert record.key == definition.name.encode()
    assert record.value is not None
    assert QueueDefinition.decode(record.value) == definition


@given(definitions())
def test_encoding_is_stable(definition: QueueDefinition) -> None:
    encoded = definition.encode()
    assert encoded == QueueDefinition.decode(encoded).encode()
    body = json.loads(encoded)
    assert list(body) == sorted(body)
    assert body["schema"] == 1


def test_encoding_is_exactly_this() -> None:
    definition = QueueDefinition("APP.Q", max_depth=10)
    assert definition.encode() == (
        b'{"created_by":"","creator":null,"default_persistence":0,"definition_type":1,'
        b'"description":"","logically_deleted":false,"max_depth":10,'
        b'"max_msg_length":4194304,"model":null,"name":"APP.Q","queue_type":1,"schema":1}'
    )


def test_a_record_written_before_logical_deletion_existed_still_reads() -> None:
    # Records of the first schema-1 writers have no logically_deleted field.
    old = (
        b'{"created_by":"","creator":null,"default_persistence":0,"definition_type":1,'
        b'"description":"","max_depth":10,"max_msg_length":4194304,"model":null,'
        b'"name":"APP.Q","queue_type":1,"schema":1}'
    )
    assert QueueDefinition.decode(old) == QueueDefinition("APP.Q", max_depth=10)
    assert not QueueDefinition.decode(old).logically_deleted


def test_logical_deletion_flag_round_trips_and_must_be_a_boolean() -> None:
    marked = QueueDefinition("APP.Q", logically_deleted=True)
    assert QueueDefinition.decode(marked.encode()).logically_deleted
    damaged = marked.encode().replace(b'"logically_deleted":true', b'"logically_deleted":1')
    with pytest.raises(MQError) as caught:
        QueueDefinition.decode(damaged)
    assert caught.value.reason == RC.OBJECT_DAMAGED


def test_fields_a_newer_writer_added_are_ignored() -> None:
    body = json.loads(QueueDefinition("APP.Q").encode())
    body["trigger_type"] = "FIRST"
    assert QueueDefinition.decode(json.dumps(body).encode()) == QueueDefinition("APP.Q")


@pytest.mark.parametrize(
    "value",
    [
        b"not json",
        b"\xff\xfe",
        b"[]",
        b'{"name":"Q"}',  # no schema
        b'{"schema":2,"name":"Q"}',  # a schema this reader does not know
        b'{"schema":1}',  # no name
        b'{"schema":1,"name":"Q","max_depth":"5000"}',
        b'{"schema":1,"name":"Q","max_depth":true}',
        b'{"schema":1,"name":"Q","creator":5}',
        b'{"schema":1,"name":"BAD NAME"}',
        b'{"schema":1,"name":"Q","queue_type":3}',
    ],
)
def test_damaged_records_give_2101(value: bytes) -> None:
    with pytest.raises(MQError) as raised:
        QueueDefinition.decode(value)
    assert raised.value.reason == RC.OBJECT_DAMAGED


def test_record_under_another_queue_name_is_damaged() -> None:
    record = CatalogueRecord(b"OTHER.Q", QueueDefinition("APP.Q").encode())
    with pytest.raises(MQError) as raised:
        Catalogue().apply(record)
    assert raised.value.reason == RC.OBJECT_DAMAGED


def test_put_then_tombstone() -> None:
    catalogue = Catalogue()
    catalogue.apply(CatalogueRecord.put(QueueDefinition("APP.Q")))
    assert "APP.Q" in catalogue and len(catalogue) == 1
    catalogue.apply(CatalogueRecord.delete("APP.Q"))
    assert "APP.Q" not in catalogue and len(catalogue) == 0
    catalogue.apply(CatalogueRecord.delete("NEVER.THERE"))  # tombstones are idempotent
    assert list(catalogue) == []


def test_queues_created_by_a_connection() -> None:
    mine = QueueDefinition(
        "AMQ.1", definition_type=C.MQQDT_TEMPORARY_DYNAMIC, creator="c1", created_by="alice"
    )
    theirs = QueueDefinition("AMQ.2", definition_type=C.MQQDT_PERMANENT_DYNAMIC, creator="c2")
    catalogue = Catalogue([mine, theirs, QueueDefinition("APP.Q")])
    assert catalogue.created_by_connection("c1") == [mine]


OPERATIONS = st.lists(
    st.one_of(
        definitions(name=st.sampled_from(["A", "B", "C", "D"])).map(CatalogueRecord.put),
        st.sampled_from(["A", "B", "C", "D"]).map(CatalogueRecord.delete),
    ),
    max_size=30,
)


@given(OPERATIONS)
def test_replaying_the_compacted_topic_equals_replaying_the_history(
    history: list[CatalogueRecord],
) -> None:
    """Kafka compaction keeps the last record per key (and may drop tombstones): replaying
    what is left must give the same catalogue as replaying everything."""
    full = Catalogue.replay(history)
    last_per_key = {record.key: record for record in history}
    compacted = [r for r in history if last_per_key[r.key] is r]
    without_tombstones = [r for r in compacted if r.value is not None]
    assert Catalogue.replay(compacted) == full
    assert Catalogue.replay(without_tombstones) == full


def test_replay_on_top_of_the_system_objects_keeps_the_base_untouched() -> None:
    base = Catalogue.with_system_objects()
    replayed = Catalogue.replay([CatalogueRecord.delete(SYSTEM_DEFAULT_MODEL)], base=base)
    assert SYSTEM_DEFAULT_MODEL not in replayed
    assert SYSTEM_DEFAULT_MODEL in base


def test_the_catalogue_reader_skips_a_damaged_record_and_applies_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from mqkafka.mqi.kafkaqm.cataloguereader import apply_catalogue_record

    catalogue = Catalogue()
    good = CatalogueRecord.put(QueueDefinition("APP.Q"))
    apply_catalogue_record(catalogue, b"OTHER.Q", QueueDefinition("APP.Q").encode())
    apply_catalogue_record(catalogue, b"BAD.Q", b"not json")
    apply_catalogue_record(catalogue, good.key, good.value)
    assert [d.name for d in catalogue.definitions()] == ["APP.Q"]
    assert caplog.text.count("skipping a damaged catalogue record") == 2
    apply_catalogue_record(catalogue, good.key, None)  # a tombstone deletes
    assert catalogue.definitions() == []
