"""Idempotent provisioning of the system topics declared in ``topics/catalogue.toml``.

Creates what is missing, raises partition counts that are below the declaration and sets the
declared configs. It never deletes a topic, never lowers a partition count and never touches
a config the catalogue does not name, so running it at every start is safe (``mqk serve`` and
every MQI connection do). Two things it refuses rather than repairs, each in one line: a state
topic that exists with another ``cleanup.policy`` than declared (it may hold other data; a
compacted topic is what makes the state survive), and, where topics may not be created
(``--no-create-topics``), every system topic that is missing.

The catalogue ships inside the package (``mqkafka.resources``); ``MQK_TOPICS`` names another.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqkafka import resources
from mqkafka.kafka import clients, topicadmin
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import KafkaEdgeError
from mqkafka.wire.names import queue_to_topic


class ProvisionError(KafkaEdgeError):
    """The cluster's system topics are not as the catalogue needs them (one line)."""


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


def catalogue_path() -> Path | None:
    """The catalogue named by ``MQK_TOPICS``; None: the one shipped in the package."""
    named = os.environ.get("MQK_TOPICS")
    return Path(named) if named else None


def load_catalogue(path: Path | None = None) -> list[TopicSpec]:
    chosen = path or catalogue_path()
    if chosen is None:
        doc: dict[str, Any] = tomllib.loads(resources.catalogue_text())
    else:
        with chosen.open("rb") as handle:
            doc = tomllib.load(handle)
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
    kafka: ClientConfig | str | Any,
    *,
    prefix: str = "",
    specs: Iterable[TopicSpec] | None = None,
    create: bool = True,
    timeout: float = 30.0,
) -> list[str]:
    """Bring the cluster in line with the catalogue; returns the actions taken (may be empty).

    ``kafka``: where (bootstrap servers, a client configuration, or an admin client made by
    :mod:`mqkafka.kafka.clients`). ``create=False``: change nothing, only check that every
    declared topic exists."""
    if isinstance(kafka, str):
        kafka = ClientConfig(kafka)
    admin = clients.admin(kafka) if isinstance(kafka, ClientConfig) else kafka
    specs = load_catalogue() if specs is None else list(specs)
    existing = topicadmin.existing_topics(admin, timeout)
    missing = [s for s in specs if s.topic(prefix) not in existing]
    present = [s for s in specs if s.topic(prefix) in existing]
    _refuse_wrong_policy(admin, present, prefix, timeout)
    if not create:
        if missing:
            names = ", ".join(s.topic(prefix) for s in missing)
            raise ProvisionError(
                f"system topics missing and --no-create-topics given: {names} "
                "(create them with 'mqk topics apply', or let the service create them)"
            )
        return []
    created = topicadmin.create_topics(
        admin,
        [
            topicadmin.TopicRequest(
                s.topic(prefix), s.partitions, s.replication_factor, dict(s.config)
            )
            for s in missing
        ],
        timeout,
    )
    actions = [f"created {topic}" for topic in created]
    grow = {
        s.topic(prefix): s.partitions for s in present if existing[s.topic(prefix)] < s.partitions
    }
    topicadmin.raise_partitions(admin, grow, timeout)
    actions += [f"raised partitions of {topic}" for topic in grow]
    configured = [s for s in present if s.config]
    current = topicadmin.topic_configs(admin, [s.topic(prefix) for s in configured], timeout)
    for spec in configured:
        have = current.get(spec.topic(prefix), {})
        drift = {k: v for k, v in spec.config.items() if have.get(k) != v}
        if drift:
            topicadmin.set_topic_configs(admin, spec.topic(prefix), drift)
            actions.append(f"set {', '.join(sorted(drift))} on {spec.topic(prefix)}")
    return actions


def _refuse_wrong_policy(admin: Any, present: list[TopicSpec], prefix: str, timeout: float) -> None:
    declared = {
        s.topic(prefix): s.config["cleanup.policy"] for s in present if "cleanup.policy" in s.config
    }
    if not declared:
        return
    current = topicadmin.topic_configs(admin, declared, timeout)
    for topic, policy in declared.items():
        have = current.get(topic, {}).get("cleanup.policy")
        if have is not None and set(have.split(",")) != set(policy.split(",")):
            raise ProvisionError(
                f"topic {topic} exists with cleanup.policy={have}, but it holds state and must "
                f"be {policy}: delete it or point --namespace elsewhere"
            )
