"""The registry of state kinds (``mqkafka.state.kinds``): its rules, and that what every
reader derives from it is what the wire contract and the code said before the registry (the
same topics, keys, values, schemas, snapshot columns, gauges, catalogue declarations)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client import generate_latest

from mqkafka import resources
from mqkafka.engine.effects import (
    DeleteRetained,
    DeregisterPublisher,
    Processed,
    RegisterPublisher,
    RemoveSubscription,
    Retain,
    StoreSubscription,
)
from mqkafka.engine.state import EngineState
from mqkafka.kafka.provision import TopicSpec, load_catalogue, with_state_topics
from mqkafka.state import recordcodec as codec
from mqkafka.state.kinds import (
    MQI_CHANGELOGS,
    PUBLISHERS,
    RETAINED,
    STATE_KINDS,
    SUBSCRIPTIONS,
    AnyKind,
    KindBinding,
    StateKinds,
    changelogs,
)
from tests.unit.state.strategies import PUBLISHERS as PUBLISHER_VALUES
from tests.unit.state.strategies import publications, subscriptions

# --- the registry's rules ----------------------------------------------------------------


def test_the_broker_registers_its_three_kinds_under_the_wire_contracts_topics() -> None:
    assert STATE_KINDS.names == ("retained", "subscriptions", "publishers")
    assert [kind.topic for kind in STATE_KINDS] == [
        "mqk-retained",
        "mqk-subscriptions",
        "mqk-publishers",
    ]
    assert STATE_KINDS.topics("ns.") == {
        "ns.mqk-retained": RETAINED,
        "ns.mqk-subscriptions": SUBSCRIPTIONS,
        "ns.mqk-publishers": PUBLISHERS,
    }
    assert STATE_KINDS.of_topic("mqk-publishers") is PUBLISHERS
    assert STATE_KINDS.of_topic("mqk-queues") is None
    assert "retained" in STATE_KINDS and "queues" not in STATE_KINDS
    assert len(STATE_KINDS) == 3 and STATE_KINDS["subscriptions"] is SUBSCRIPTIONS


@pytest.mark.parametrize(
    ("change", "clash"),
    [({"name": "retained"}, "name 'retained'"), ({"changelog": RETAINED.changelog}, "topic")],
)
def test_a_name_or_topic_is_registered_once(change: dict[str, Any], clash: str) -> None:
    registry = StateKinds([RETAINED])
    twin = replace(SUBSCRIPTIONS, **change)
    with pytest.raises(ValueError, match=clash):
        registry.register(twin)
    assert registry.names == ("retained",)  # refused: nothing registered


def test_an_engine_effect_belongs_to_one_kind() -> None:
    # a kind whose effects are another's: found when the registry first binds its kinds
    registry = StateKinds(
        [
            SUBSCRIPTIONS,
            replace(
                SUBSCRIPTIONS,
                name="copy",
                changelog=replace(SUBSCRIPTIONS.changelog, topic="mqk-copy"),
            ),
        ]
    )
    with pytest.raises(ValueError, match="StoreSubscription is already registered"):
        registry.record_of(StoreSubscription(next(iter(_samples()))))


def test_reading_the_declarations_imports_no_engine_codec_or_client() -> None:
    """Provisioning, the MQI and the CLI read the registry: it must stay cheap to import, and
    never bring a Kafka client, RocksDB or Spark (the layers)."""
    code = (
        "import sys; import mqkafka.state.kinds as k; "
        "k.STATE_KINDS.topics(); k.changelogs(); "
        "print(sorted(m for m in ('fastavro', 'mqkafka.engine.records', "
        "'mqkafka.state.recordcodec', 'confluent_kafka', 'rocksdict', 'pyspark') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- each kind: codec, keys and records as before ------------------------------------------

# the values are large (a publication is an MQMD and a body): few, and no speed check
FEW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _samples() -> list[Any]:
    from tests.unit.state.strategies import pub, publisher, sub

    return [sub("Sport/#"), pub("Sport/Soccer", body=b"1-0"), publisher("Sport/Soccer")]


@FEW
@given(subscriptions())
def test_a_subscription_record_is_the_codecs(s: Any) -> None:
    assert STATE_KINDS.record_of(StoreSubscription(s)) == (
        SUBSCRIPTIONS,
        codec.subscription_key(s.key),
        codec.encode_subscription(s),
    )
    assert STATE_KINDS.record_of(RemoveSubscription(s.key)) == (
        SUBSCRIPTIONS,
        codec.subscription_key(s.key),
        None,
    )


@FEW
@given(publications())
def test_a_retained_record_is_the_codecs(p: Any) -> None:
    key = codec.retained_key(p.namespace, p.topic.text)
    assert STATE_KINDS.record_of(Retain(p)) == (RETAINED, key, codec.encode_retained(p))
    assert STATE_KINDS.record_of(DeleteRetained(p.namespace, p.topic.text)) == (
        RETAINED,
        key,
        None,
    )


@FEW
@given(PUBLISHER_VALUES)
def test_a_publisher_record_is_the_codecs(p: Any) -> None:
    key = codec.publisher_key(p.key)
    assert STATE_KINDS.record_of(RegisterPublisher(p)) == (
        PUBLISHERS,
        key,
        codec.encode_publisher(p),
    )
    assert STATE_KINDS.record_of(DeregisterPublisher(p.key)) == (PUBLISHERS, key, None)


def test_an_effect_of_no_kind_has_no_state_record() -> None:
    assert STATE_KINDS.record_of("not an effect") is None
    assert STATE_KINDS.record_of(Processed.__new__(Processed)) is None


@FEW
@given(st.data())
def test_records_apply_to_the_engine_state_and_come_back_as_no_change(data: st.DataObject) -> None:
    state = EngineState()
    drawn: list[tuple[AnyKind, st.SearchStrategy[Any]]] = [
        (SUBSCRIPTIONS, subscriptions()),
        (RETAINED, publications()),
        (PUBLISHERS, PUBLISHER_VALUES),
    ]
    for kind, values in drawn:
        value = data.draw(values)
        b: KindBinding[Any, Any] = kind.binding
        key, encoded = kind.record(value)
        assert kind.apply_record(state, key, encoded)
        assert b.current(state, b.key_of(value)) == value
        assert not kind.apply_record(state, key, encoded)  # a worker's own record, back
        assert kind.size(state) == 1
        assert kind.apply_record(state, key, None)
        assert b.current(state, b.key_of(value)) is None
        assert not kind.apply_record(state, key, None)  # a tombstone of what is not there
    state.check_invariants()


# --- schemas, snapshot columns, gauges: the same as before the registry --------------------


def test_each_kind_names_its_documented_schema_and_the_codec_writes_with_it() -> None:
    assert {kind.name: kind.schema for kind in STATE_KINDS} == {
        "retained": "retained_publication",
        "subscriptions": "subscription",
        "publishers": "publisher",
    }
    assert resources.schema(RETAINED.schema)["name"] == "RetainedPublication"
    for kind, parsed in (
        (RETAINED, codec.RETAINED_SCHEMA),
        (SUBSCRIPTIONS, codec.SUBSCRIPTION_SCHEMA),
        (PUBLISHERS, codec.PUBLISHER_SCHEMA),
    ):
        assert parsed == codec.load_schema(kind.schema)


def _field(schema: Any, path: list[str], named: dict[str, Any]) -> Any:
    """The Avro type at ``path`` in ``schema`` (records through optional unions)."""
    if isinstance(schema, str):
        schema = named.get(schema, named.get(f"mqkafka.{schema}", schema))
    if isinstance(schema, list):  # ["null", T]: the non-null branch
        (schema,) = [branch for branch in schema if branch != "null"]
        return _field(schema, path, named)
    if isinstance(schema, dict) and schema.get("type") == "record":
        named[schema["name"]] = named[f"mqkafka.{schema['name']}"] = schema
        for each in schema["fields"]:  # register nested named types on the way
            _field(each["type"], [], named)
        if not path:
            return schema
        (found,) = [f for f in schema["fields"] if f["name"] == path[0]]
        return _field(found["type"], path[1:], named)
    if isinstance(schema, dict) and isinstance(schema.get("type"), dict | list | str):
        if schema["type"] in ("array", "map", "enum", "fixed"):
            assert not path, path
            return schema
        return _field(schema["type"], path, named)
    assert not path, (schema, path)
    return schema


@pytest.mark.parametrize("kind", list(STATE_KINDS), ids=STATE_KINDS.names)
def test_every_snapshot_column_and_required_field_is_in_the_schema(kind: AnyKind) -> None:
    schema = resources.schema(kind.schema)
    required = next(f for f in schema["fields"] if f["name"] == kind.required_field)
    assert "null" not in json.dumps(required["type"])  # never null in a value that decodes
    for column in kind.snapshot:
        assert column.path.startswith("v.")
        _field(schema, column.path.split(".")[1:], {})
    aliases = [column.alias for column in kind.snapshot]
    assert len(aliases) == len(set(aliases))


def test_the_snapshot_tables_keep_their_columns() -> None:
    assert [c.alias for c in PUBLISHERS.snapshot] == [
        "namespace_kind",
        "namespace_name",
        "topic",
        "q_name",
        "q_mgr_name",
        "correl_id",
        "user_id",
        "options",
        "implicit",
    ]
    assert [(c.alias, c.transform) for c in RETAINED.snapshot if c.transform] == [
        ("retained_at", "timestamp"),
        ("body_bytes", "length"),
    ]
    assert len(SUBSCRIPTIONS.snapshot) == 17 and len(RETAINED.snapshot) == 20


def test_the_pipeline_and_cli_name_the_registered_kinds() -> None:
    from mqkafka.cli.pipeline import SNAPSHOT_NAMES
    from mqkafka.pipeline.config import SNAPSHOT_TOPICS
    from mqkafka.pipeline.decode import REQUIRED_FIELD, STATE_SCHEMA_FILES

    assert STATE_KINDS.names == SNAPSHOT_NAMES  # the CLI keeps a copy: it starts fast
    assert {k.name: k.topic for k in STATE_KINDS} == SNAPSHOT_TOPICS
    assert {k.name: k.schema for k in STATE_KINDS} == STATE_SCHEMA_FILES
    assert REQUIRED_FIELD == {
        "retained": "topic",
        "subscriptions": "user_id",
        "publishers": "user_id",
    }


def test_the_gauges_are_the_metrics_they_were() -> None:
    from mqkafka.service.metrics import Metrics

    metrics = Metrics()
    state = EngineState()
    for effect in (StoreSubscription(_samples()[0]), Retain(_samples()[1])):
        state.apply([effect])
    metrics.observe_state(state)
    text = generate_latest(metrics.registry).decode()
    assert "# HELP mqk_subscriptions Subscriptions held" in text
    assert "mqk_subscriptions 1.0" in text
    assert "# HELP mqk_retained_publications Retained publications held" in text
    assert "mqk_retained_publications 1.0" in text
    assert "mqk_publishers" not in text  # no gauge declared: none made


# --- provisioning and the catalogue --------------------------------------------------------


def test_the_packaged_catalogue_declares_every_state_topic_as_the_registry_does() -> None:
    declared = {spec.name: spec for spec in load_catalogue() if spec.kind == "state"}
    for changelog in changelogs():
        spec = declared[changelog.topic]
        assert (spec.partitions, dict(spec.config), spec.purpose) == (
            changelog.partitions,
            dict(changelog.config),
            changelog.purpose,
        )
    assert with_state_topics(load_catalogue()) == load_catalogue()  # nothing to add


def test_state_topics_the_catalogue_omits_come_from_the_registry() -> None:
    queue = TopicSpec("Q1", "queue", 1, 1, "")
    specs = with_state_topics([queue])
    assert specs[0] == queue
    assert [s.name for s in specs[1:]] == [c.topic for c in changelogs()]
    retained = specs[1]
    assert (retained.kind, retained.partitions, retained.replication_factor) == ("state", 4, -1)
    assert retained.config["cleanup.policy"] == "compact"
    only_mqi = with_state_topics([], MQI_CHANGELOGS)
    assert [s.name for s in only_mqi] == ["mqk-queues", "mqk-connections"]


def test_the_mqi_keeps_its_two_topics_apart_from_the_engines() -> None:
    assert [c.topic for c in MQI_CHANGELOGS] == ["mqk-queues", "mqk-connections"]
    assert not {c.topic for c in MQI_CHANGELOGS} & set(STATE_KINDS.topics())
