"""``mqk schemas export``: every Avro-valued topic's schema under its registry subject, whole
(issue 37)."""

from __future__ import annotations

import json
from pathlib import Path

import fastavro

from mqkafka.cli import main
from mqkafka.query.schemas import export, registry_subjects


def test_each_state_and_activity_topic_has_a_standalone_schema_under_topic_value() -> None:
    subjects = {s.subject: s for s in registry_subjects("ns.")}
    assert set(subjects) == {
        "ns.mqk-retained-value", "ns.mqk-subscriptions-value", "ns.mqk-publishers-value",
        "ns.mqk-activity-value",
    }  # fmt: skip
    for subject in subjects.values():
        assert subject.subject == subject.topic + "-value"
        fastavro.parse_schema(json.loads(subject.text), named_schemas={})  # no outside names


def test_export_writes_one_file_per_subject(tmp_path: Path) -> None:
    written = export(tmp_path / "schemas")
    assert sorted(p.name for _, p in written) == sorted(
        f"{s.subject}.avsc" for s in registry_subjects()
    )
    for subject, path in written:
        assert json.loads(path.read_text()) == subject.schema


def test_mqk_schemas_export(tmp_path: Path, capsys: object) -> None:
    assert main(["schemas", "export", str(tmp_path), "--namespace", "a."]) == 0
    assert (tmp_path / "a.mqk-activity-value.avsc").exists()
