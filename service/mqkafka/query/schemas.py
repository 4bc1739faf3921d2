"""The Avro schemas of the state and activity topics as a schema registry names them (issue 37).

Each value schema under its subject by the registries' default rule (TopicNameStrategy:
``<topic>-value``, the namespace's prefix included in the topic), whole: named types another
file declares are inlined, as a registry needs a schema to stand alone. The records on those
topics are plain Avro (no registry framing): a registry-aware reader is given the schema (for
Confluent's deserializers, ``use.latest.version``), or reads them with the files themselves.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mqkafka import resources
from mqkafka.activity.events import batch_schema
from mqkafka.state.kinds import STATE_KINDS

ACTIVITY_TOPIC = "mqk-activity"


@dataclass(frozen=True)
class RegistrySubject:
    subject: str  # <topic>-value
    topic: str
    schema: dict[str, Any]

    @property
    def text(self) -> str:
        """The schema as one line of JSON (what a registry's POST .../versions takes)."""
        return json.dumps(self.schema, separators=(",", ":"))

    @property
    def file_name(self) -> str:
        return f"{self.subject}.avsc"


def registry_subjects(namespace: str = "") -> list[RegistrySubject]:
    """Every Avro-valued topic the product writes, by subject."""
    found = [(namespace + kind.topic, resources.schema(kind.schema)) for kind in STATE_KINDS] + [
        (namespace + ACTIVITY_TOPIC, batch_schema())
    ]
    return [RegistrySubject(f"{topic}-value", topic, schema) for topic, schema in found]


def export(directory: Path, namespace: str = "") -> list[tuple[RegistrySubject, Path]]:
    """Each subject's schema as ``<subject>.avsc`` in ``directory`` (made if missing)."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for subject in registry_subjects(namespace):
        path = directory / subject.file_name
        path.write_text(json.dumps(subject.schema, indent=2) + "\n", encoding="utf-8")
        written.append((subject, path))
    return written


__all__ = ["RegistrySubject", "export", "registry_subjects"]
