"""Queues as operators see them: every topic that carries a queue in the namespace, its depth,
and who reads it.

Depth is what MQINQ(CURDEPTH) answers: the messages the queue's share group (the MQI's
destructive getters) has not taken, counted from its start (transaction markers and aborted
records are not messages). A queue the broker service reads (the control queue and the stream
queues) has the service's consumer group instead, and its depth is that group's lag: the
commands and publications not yet processed. Consumers are the members of the consumer groups
assigned one of the queue's partitions, and the queue's share group when it has members.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import IsolationLevel, KafkaException, OffsetSpec, TopicPartition
from mqkafka.kafka.groups import APP_GROUP_PREFIX, SERVICE_GROUP
from mqkafka.mq.errors import MQError
from mqkafka.mqi.kafkaqm.cataloguereader import read_catalogue
from mqkafka.mqi.rules.catalogue import QueueDefinition
from mqkafka.mqi.rules.cmqc import MQQDT_PERMANENT_DYNAMIC, MQQDT_TEMPORARY_DYNAMIC
from mqkafka.wire.names import reserved_topic, topic_to_queue

TIMEOUT = 10.0


@dataclass(frozen=True)
class Reader:
    """A consumer group that reads a queue: its members on the queue and its lag."""

    group: str
    members: int
    lag: int | None


@dataclass(frozen=True)
class QueueView:
    name: str
    topic: str
    partitions: int
    depth: int | None  # None: a model queue (no messages of its own) or not countable
    kind: str  # local | system | dynamic | model
    description: str
    readers: tuple[Reader, ...]
    # how publications lie on it (issue 37): MQ (an MQRFH2 before the data) or KAFKA (the
    # data alone, topic and properties in headers); a queue with no definition is MQ
    message_format: str = "MQ"

    @property
    def consumers(self) -> int:
        return sum(r.members for r in self.readers)


def _kind(name: str, definition: QueueDefinition | None) -> str:
    if definition is not None and definition.is_model:
        return "model"
    if definition is not None and definition.definition_type in (
        MQQDT_TEMPORARY_DYNAMIC,
        MQQDT_PERMANENT_DYNAMIC,
    ):
        return "dynamic"
    return "system" if name.startswith("SYSTEM.") else "local"


def queue_names(topics: Iterable[str], namespace: str = "") -> dict[str, str]:
    """The queues among ``topics``: queue name → topic (state and Kafka topics left out)."""
    found: dict[str, str] = {}
    for topic in topics:
        if not topic.startswith(namespace) or reserved_topic(topic, namespace) is not None:
            continue
        try:
            found[topic_to_queue(topic, namespace)] = topic
        except MQError:
            continue  # a topic that no queue maps to (another product's, another namespace's)
    return found


class QueueReader:
    """Reads queue listings from one cluster; keep one for repeated views (the console)."""

    def __init__(self, config: ClientConfig, namespace: str = "") -> None:
        from mqkafka.mqi.kafkaqm.admin import QueueAdmin
        from mqkafka.mqi.kafkaqm.settings import Settings

        self.config = config
        self.namespace = namespace
        self.admin = clients.admin(config)
        settings = Settings(
            config.bootstrap, namespace=namespace, kafka_config=dict(config.settings),
            admin_timeout=TIMEOUT, create_topics=False,
        )  # fmt: skip
        self._queues = QueueAdmin(settings)
        self._settings = settings

    def close(self) -> None:
        self._queues.close()

    def definitions(self) -> dict[str, QueueDefinition]:
        catalogue = read_catalogue(self.config, self.namespace, TIMEOUT)
        return {d.name: d for d in catalogue.definitions()}

    def list(self, names: Iterable[str] | None = None) -> list[QueueView]:
        """Every queue (or those ``names``), sorted by name."""
        metadata = self.admin.list_topics(timeout=TIMEOUT)
        topics = {t: len(m.partitions) for t, m in metadata.topics.items() if m.error is None}
        queues = queue_names(topics, self.namespace)
        definitions = self.definitions()
        wanted = set(names) if names is not None else None
        readers = self._readers({t: topics[t] for t in queues.values()})
        views = []
        for name, topic in queues.items():
            if wanted is not None and name not in wanted:
                continue
            depth, topic_readers = self._depth(topic, topics[topic], readers.get(topic, {}))
            definition = definitions.get(name)
            description = definition.description if definition else ""
            kind = _kind(name, definition)
            fmt = definition.message_format if definition else "MQ"
            views.append(
                QueueView(name, topic, topics[topic], depth, kind, description, topic_readers, fmt)
            )
        for name, definition in definitions.items():
            if definition.is_model and (wanted is None or name in wanted):
                model = (name, "", 0, None, "model", definition.description, ())
                views.append(QueueView(*model, definition.message_format))
        return sorted(views, key=lambda v: v.name)

    def show(self, name: str) -> QueueView | None:
        found = self.list([name])
        return found[0] if found else None

    # ---- who reads what ----

    def _readers(self, topics: dict[str, int]) -> dict[str, dict[str, tuple[int, dict[int, int]]]]:
        """topic → group → (members assigned to the topic, committed offset per partition)."""
        result: dict[str, dict[str, tuple[int, dict[int, int]]]] = {}
        listed = self.admin.list_consumer_groups(request_timeout=TIMEOUT).result()
        readers = ("mqk-reader", APP_GROUP_PREFIX)  # assign-only readers (mqk-reader: before 35)
        groups = [g.group_id for g in listed.valid if not g.group_id.startswith(readers)]
        if not groups:
            return result
        described: dict[str, Any] = {}
        for group, future in self.admin.describe_consumer_groups(
            groups, request_timeout=TIMEOUT
        ).items():
            try:
                described[group] = future.result()
            except KafkaException:
                continue  # a group that went as it was asked about
        for group, description in described.items():
            members: dict[str, int] = {}
            for member in description.members:
                assigned = member.assignment.topic_partitions if member.assignment else []
                for topic in {tp.topic for tp in assigned}:
                    members[topic] = members.get(topic, 0) + 1
            committed = self._committed(group, topics)
            for topic in set(members) | set(committed):
                if topic in topics:
                    entry = (members.get(topic, 0), committed.get(topic, {}))
                    result.setdefault(topic, {})[group] = entry
        return result

    def _committed(self, group: str, topics: dict[str, int]) -> dict[str, dict[int, int]]:
        """The group's committed offsets on ``topics`` (name → partitions), asked as the
        group without joining it."""
        consumer = clients.consumer(self.config, {"group.id": group, "enable.auto.commit": False})
        try:
            wanted = [TopicPartition(t, p) for t, n in topics.items() for p in range(n)]
            answer = consumer.committed(wanted, timeout=TIMEOUT) if wanted else []
        except KafkaException:
            return {}
        finally:
            consumer.close()
        found: dict[str, dict[int, int]] = {}
        for tp in answer:
            if tp.offset >= 0:
                found.setdefault(tp.topic, {})[tp.partition] = tp.offset
        return found

    def _ends(self, topic: str, partitions: int) -> dict[int, int]:
        request = {TopicPartition(topic, p): OffsetSpec.latest() for p in range(partitions)}
        futures = self.admin.list_offsets(
            request, isolation_level=IsolationLevel.READ_COMMITTED, request_timeout=TIMEOUT
        )
        return {tp.partition: f.result().offset for tp, f in futures.items()}

    def _depth(
        self, topic: str, partitions: int, groups: dict[str, tuple[int, dict[int, int]]]
    ) -> tuple[int | None, tuple[Reader, ...]]:
        ends = self._ends(topic, partitions) if groups else {}
        readers = []
        for group, (members, committed) in sorted(groups.items()):
            lag = sum(max(ends[p] - committed.get(p, 0), 0) for p in ends) if committed else None
            readers.append(Reader(group, members, lag))
        service = self.namespace + SERVICE_GROUP
        by_service = next((r for r in readers if r.group == service), None)
        if by_service is not None and by_service.lag is not None:
            return by_service.lag, tuple(readers)
        share_group = self._settings.share_group_of(topic)
        try:
            depth: int | None = self._queues.depth(topic, share_group, exact=True)
        except MQError:
            depth = None
        return depth, tuple(readers)


__all__ = ["SERVICE_GROUP", "QueueReader", "QueueView", "Reader", "queue_names"]
