"""Queues as operators see them: every topic that carries a queue in the namespace, its depth,
and who reads it.

Depth is what MQINQ(CURDEPTH) answers: the messages the queue's share group (the MQI's
destructive getters) has not taken, counted from its start (transaction markers and aborted
records are not messages). A queue the broker service reads (the control queue and the stream
queues) has the service's consumer group instead, and its depth is that group's lag: the
commands and publications not yet processed. Consumers are the members of the consumer groups
assigned one of the queue's partitions, and the queue's share group when it has members.

A listing asks Kafka for every queue at once: one list_offsets round for the ends, one
committed-offsets request per consumer group (all in flight together), and the share groups'
depths through ``mqi/kafkaqm/depths.py`` (it was a second a queue, one after another). mqk's
own reply queue (``MQK.CLIENT.REPLY``) is plumbing, not an application's queue: it is listed
only when named or asked for (``every``).
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from mqkafka.client.kafka_pubsub import REPLY_QUEUE
from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import (
    ConsumerGroupTopicPartitions,
    KafkaException,
)
from mqkafka.kafka.compacted import MissingTopic
from mqkafka.kafka.groups import APP_GROUP_PREFIX, SERVICE_GROUP
from mqkafka.mq.errors import MQError
from mqkafka.mqi.kafkaqm.cataloguereader import CatalogueTail
from mqkafka.mqi.kafkaqm.depths import depths, watermarks
from mqkafka.mqi.rules.catalogue import QueueDefinition
from mqkafka.mqi.rules.cmqc import MQQDT_PERMANENT_DYNAMIC, MQQDT_TEMPORARY_DYNAMIC
from mqkafka.wire.names import reserved_topic, topic_to_queue

TIMEOUT = 10.0
HIDDEN_QUEUES = frozenset({REPLY_QUEUE})  # listed when named or asked for (every=True)


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
        self._tail: CatalogueTail | None = None

    def close(self) -> None:
        self._queues.close()
        if self._tail is not None:
            self._tail.close()

    def definitions(self) -> dict[str, QueueDefinition]:
        """The catalogue, followed from one reader kept for the next listing (making a
        reader cost half a second of every listing); none while its topic is missing."""
        if self._tail is None:
            try:
                self._tail = CatalogueTail(self.config, self.namespace, TIMEOUT, wait=0)
            except MissingTopic:
                return {}
        self._tail.changes  # noqa: B018 - applies what arrived since the last listing
        return {d.name: d for d in self._tail.catalogue.definitions()}

    def list(self, names: Iterable[str] | None = None, *, every: bool = False) -> list[QueueView]:
        """Every queue (or those ``names``), sorted by name; ``every``: mqk's own too."""
        metadata = self.admin.list_topics(timeout=TIMEOUT)
        topics = {t: len(m.partitions) for t, m in metadata.topics.items() if m.error is None}
        wanted = set(names) if names is not None else None
        chosen = {
            name: topic
            for name, topic in queue_names(topics, self.namespace).items()
            if (name in wanted if wanted is not None else every or name not in HIDDEN_QUEUES)
        }
        partitions = {topic: topics[topic] for topic in chosen.values()}
        with ThreadPoolExecutor(1) as pool:  # the catalogue read meanwhile (a first is 0.5 s)
            catalogue = pool.submit(self.definitions)
            depth_of, read = self._depths(partitions)
            definitions = catalogue.result()
        views = []
        for name, topic in chosen.items():
            definition = definitions.get(name)
            description = definition.description if definition else ""
            fmt = definition.message_format if definition else "MQ"
            views.append(
                QueueView(name, topic, topics[topic], depth_of.get(topic), _kind(name, definition),
                          description, read.get(topic, ()), fmt)
            )  # fmt: skip
        for name, definition in definitions.items():
            if definition.is_model and (wanted is None or name in wanted):
                model = (name, "", 0, None, "model", definition.description, ())
                views.append(QueueView(*model, definition.message_format))
        return sorted(views, key=lambda v: v.name)

    def _depths(
        self, partitions: dict[str, int]
    ) -> tuple[dict[str, int], dict[str, tuple[Reader, ...]]]:
        """topic → depth, and topic → the consumer groups that read it."""
        readers = self._readers(partitions)
        try:  # one round of offset requests for every partition of every queue
            marks = watermarks(
                self._queues, [(t, p) for t, n in partitions.items() for p in range(n)]
            )
        except MQError:
            marks = {}
        ends: dict[str, dict[int, int]] = {}
        for (topic, partition), (_, high) in marks.items():
            ends.setdefault(topic, {})[partition] = high
        service = self.namespace + SERVICE_GROUP
        read: dict[str, tuple[Reader, ...]] = {}
        by_service: dict[str, int] = {}
        for topic, groups in readers.items():
            read[topic] = tuple(
                _reader(g, m, c, ends.get(topic, {})) for g, (m, c) in sorted(groups.items())
            )
            lag = next((r.lag for r in read[topic] if r.group == service), None)
            if lag is not None:
                by_service[topic] = lag  # the service's queues: commands not yet processed
        shared = {t: n for t, n in partitions.items() if t not in by_service}
        try:
            counted = depths(
                self._queues, shared, self._settings.share_group_of, marks if marks else None
            )
        except MQError:
            counted = {}
        return {**counted, **by_service}, read

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
        offsets = self._committed(list(described), topics)
        for group, description in described.items():
            members: dict[str, int] = {}
            for member in description.members:
                assigned = member.assignment.topic_partitions if member.assignment else []
                for topic in {tp.topic for tp in assigned}:
                    members[topic] = members.get(topic, 0) + 1
            committed = offsets.get(group, {})
            for topic in set(members) | set(committed):
                if topic in topics:
                    entry = (members.get(topic, 0), committed.get(topic, {}))
                    result.setdefault(topic, {})[group] = entry
        return result

    def _committed(
        self, groups: Iterable[str], topics: dict[str, int]
    ) -> dict[str, dict[str, dict[int, int]]]:
        """group → its committed offsets on ``topics`` (name → partitions): one request per
        group, all in flight at once, asked of the admin without joining any group."""
        futures = {}
        for group in groups:
            request = [ConsumerGroupTopicPartitions(group)]  # every partition it committed
            futures.update(self.admin.list_consumer_group_offsets(request, request_timeout=TIMEOUT))
        found: dict[str, dict[str, dict[int, int]]] = {}
        for group, future in futures.items():
            try:
                answer = future.result().topic_partitions or []
            except KafkaException:
                continue  # a group that went, or one this user may not describe
            for tp in answer:
                if tp.topic in topics and tp.offset >= 0:
                    found.setdefault(group, {}).setdefault(tp.topic, {})[tp.partition] = tp.offset
        return found


def _reader(group: str, members: int, committed: dict[int, int], ends: dict[int, int]) -> Reader:
    lag = sum(max(ends[p] - committed.get(p, 0), 0) for p in ends) if committed else None
    return Reader(group, members, lag)


__all__ = ["HIDDEN_QUEUES", "SERVICE_GROUP", "QueueReader", "QueueView", "Reader", "queue_names"]
