"""Idempotent provisioning of the system topics declared in ``topics/catalogue.toml``.

Creates what is missing, raises partition counts that are below the declaration and sets the
declared configs. It never deletes a topic, never lowers a partition count and never touches
a config the catalogue does not name, so running it at every start is safe.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqkafka.wire.names import queue_to_topic

REPO_CATALOGUE = Path(__file__).resolve().parents[3] / "topics" / "catalogue.toml"


@dataclass(frozen=True)
class TopicSpec:
    """One declared topic: a queue (named by MQ rules) or a state topic (a Kafka name)."""

    name: str
    kind: str  # "queue" or "state"
    partitions: int
    replication_factor: int
    purpose: str
    config: Mapping[str, str] = field(default_factory=dict)

    def topic(self, prefix: str = "") -> str:
        if self.kind == "queue":
            return queue_to_topic(self.name, prefix)
        return prefix + self.name


def catalogue_path() -> Path:
    return Path(os.environ.get("MQK_TOPICS") or REPO_CATALOGUE)


def load_catalogue(path: Path | None = None) -> list[TopicSpec]:
    with (path or catalogue_path()).open("rb") as handle:
        doc: dict[str, Any] = tomllib.load(handle)
    defaults = doc.get("defaults", {})
    specs = []
    for kind in ("queue", "state"):
        for entry in doc.get(kind, []):
            specs.append(
                TopicSpec(
                    name=entry["name"],
                    kind=kind,
                    partitions=int(entry.get("partitions", defaults.get("partitions", 1))),
                    replication_factor=int(
                        entry.get("replication_factor", defaults.get("replication_factor", 1))
                    ),
                    purpose=entry.get("purpose", ""),
                    config={k: str(v) for k, v in entry.get("config", {}).items()},
                )
            )
    return specs


def spec_named(name: str, specs: list[TopicSpec] | None = None) -> TopicSpec:
    for spec in specs if specs is not None else load_catalogue():
        if spec.name == name:
            return spec
    raise KeyError(name)


def apply_catalogue(
    bootstrap: str,
    *,
    prefix: str = "",
    specs: list[TopicSpec] | None = None,
    timeout: float = 30.0,
) -> list[str]:
    """Bring the cluster in line with the catalogue; returns the actions taken (may be empty)."""
    from confluent_kafka.admin import (
        AdminClient,
        AlterConfigOpType,
        ConfigEntry,
        ConfigResource,
        NewPartitions,
        NewTopic,
    )

    specs = load_catalogue() if specs is None else specs
    admin = AdminClient({"bootstrap.servers": bootstrap})
    existing = admin.list_topics(timeout=timeout).topics
    actions: list[str] = []

    missing = [s for s in specs if s.topic(prefix) not in existing]
    if missing:
        futures = admin.create_topics(
            [
                NewTopic(s.topic(prefix), s.partitions, s.replication_factor, config=dict(s.config))
                for s in missing
            ],
            operation_timeout=timeout,
        )
        for topic, future in futures.items():
            try:
                future.result()
                actions.append(f"created {topic}")
            except Exception as error:
                if "TOPIC_ALREADY_EXISTS" not in str(error):
                    raise
    present = [s for s in specs if s.topic(prefix) in existing]

    grow = [
        NewPartitions(s.topic(prefix), s.partitions)
        for s in present
        if len(existing[s.topic(prefix)].partitions) < s.partitions
    ]
    if grow:
        for topic, future in admin.create_partitions(grow, operation_timeout=timeout).items():
            future.result()
            actions.append(f"raised partitions of {topic}")

    configured = [s for s in present if s.config]
    if configured:
        resources = [ConfigResource(ConfigResource.Type.TOPIC, s.topic(prefix)) for s in configured]
        current = admin.describe_configs(resources)
        for spec, resource in zip(configured, resources, strict=True):
            have = current[resource].result()
            drift = {k: v for k, v in spec.config.items() if k not in have or have[k].value != v}
            if not drift:
                continue
            change = ConfigResource(
                ConfigResource.Type.TOPIC,
                spec.topic(prefix),
                incremental_configs=[
                    ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET)
                    for k, v in drift.items()
                ],
            )
            for future in admin.incremental_alter_configs([change]).values():
                future.result()
            actions.append(f"set {', '.join(sorted(drift))} on {spec.topic(prefix)}")
    return actions
