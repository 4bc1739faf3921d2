"""Topics asked of and made on the cluster: the one place "create it if it is missing" lives.

A replication factor of -1 leaves it to the cluster (``default.replication.factor``), so the
same call makes a one-broker topic locally and a replicated one on a production cluster.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mqkafka.kafka import clients

log = logging.getLogger(__name__)

CLUSTER_DEFAULT = -1  # replication factor: the cluster's default.replication.factor


@dataclass(frozen=True)
class TopicRequest:
    name: str
    partitions: int = 1
    replication_factor: int = CLUSTER_DEFAULT
    config: Mapping[str, str] = field(default_factory=dict)


def existing_topics(admin: Any, timeout: float = 30.0) -> dict[str, int]:
    """Every topic of the cluster with its partition count."""
    metadata = admin.list_topics(timeout=timeout)
    return {
        name: len(topic.partitions)
        for name, topic in metadata.topics.items()
        if topic.error is None
    }


def partitions_of(admin: Any, topic: str, timeout: float = 10.0) -> int | None:
    """The topic's partition count, None when it does not exist."""
    found = admin.list_topics(topic=topic, timeout=timeout).topics.get(topic)
    if found is None or found.error is not None:
        return None
    return len(found.partitions)


def create_topics(admin: Any, requests: Iterable[TopicRequest], timeout: float = 30.0) -> list[str]:
    """Create these topics; one that exists already (made meanwhile by another worker) is
    fine. Returns those created; raises ``KafkaException`` for any other refusal."""
    new = [
        clients.NewTopic(r.name, r.partitions, r.replication_factor, config=dict(r.config))
        for r in requests
    ]
    if not new:
        return []
    created = []
    for topic, future in admin.create_topics(new, operation_timeout=timeout).items():
        try:
            future.result()
            created.append(topic)
        except clients.KafkaException as error:
            if error.args and error.args[0].name() == "TOPIC_ALREADY_EXISTS":
                continue
            raise
    return created


def ensure_topic(
    admin: Any,
    name: str,
    partitions: int = 1,
    config: Mapping[str, str] | None = None,
    *,
    replication_factor: int = CLUSTER_DEFAULT,
    timeout: float = 30.0,
) -> bool:
    """Create the topic unless it exists; True when this call created it."""
    if partitions_of(admin, name) is not None:
        return False
    request = TopicRequest(name, partitions, replication_factor, config or {})
    return bool(create_topics(admin, [request], timeout))


def topic_configs(
    admin: Any, topics: Iterable[str], timeout: float = 30.0
) -> dict[str, dict[str, str]]:
    """The current configuration of each topic (every entry the broker reports)."""
    resources = [clients.ConfigResource(clients.ConfigResource.Type.TOPIC, t) for t in topics]
    if not resources:
        return {}
    futures = admin.describe_configs(resources, request_timeout=timeout)
    return {
        resource.name: {k: entry.value for k, entry in future.result().items()}
        for resource, future in futures.items()
    }


def set_topic_configs(admin: Any, topic: str, settings: Mapping[str, str]) -> None:
    """Set these entries of the topic's configuration, leaving the others as they are."""
    change = clients.ConfigResource(
        clients.ConfigResource.Type.TOPIC,
        topic,
        incremental_configs=[
            clients.ConfigEntry(k, v, incremental_operation=clients.AlterConfigOpType.SET)
            for k, v in settings.items()
        ],
    )
    for future in admin.incremental_alter_configs([change]).values():
        future.result()


def raise_partitions(admin: Any, counts: Mapping[str, int], timeout: float = 30.0) -> None:
    grow = [clients.NewPartitions(topic, count) for topic, count in counts.items()]
    if grow:
        for future in admin.create_partitions(grow, operation_timeout=timeout).values():
            future.result()


__all__ = [
    "CLUSTER_DEFAULT",
    "TopicRequest",
    "create_topics",
    "ensure_topic",
    "existing_topics",
    "partitions_of",
    "raise_partitions",
    "set_topic_configs",
    "topic_configs",
]
