"""Which queues exist: a cache of the cluster's topics, creating subscriber queues on demand.

Writing to a topic that does not exist would fail the whole transaction (the broker does not
auto-create topics), so every record the service writes to a queue first asks here; a queue
that does not exist and may not be created is answered None, and the caller dead-letters.
A name whose topic is Kafka's or the broker's own (``wire.names.reserved_topic``) is no queue:
writing there is refused, and a refused write would fail every retry of its batch.
"""

from __future__ import annotations

import logging
from typing import Any

from mqkafka.kafka import topicadmin
from mqkafka.kafka.clients import KafkaException
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.wire.names import queue_to_topic, reserved_topic

log = logging.getLogger(__name__)


class QueueDirectory:
    """Also the adapter of the engine's ``QueueDefaults`` port (``engine.ports``): every queue
    non-persistent at priority 0 (MQ's defaults for a new local queue), and a queue "exists"
    if it is a topic or may become one (the AdminClient is asked only here)."""

    def __init__(
        self, admin: Any, *, namespace: str = "", auto_create: bool = True, partitions: int = 1
    ) -> None:
        self._admin = admin
        self._namespace = namespace
        self.auto_create = auto_create
        self._partitions = partitions
        self._known: set[str] = set()
        self._listed = False  # every topic asked for in one request since the last forget()
        self._topics: dict[str, str] = {}

    def topic_of(self, queue: str) -> str:
        topic = self._topics.get(queue)
        if topic is None:
            topic = queue_to_topic(queue, self._namespace)  # validates: MQError if bad
            reserved = reserved_topic(topic, self._namespace)
            if reserved is not None:
                raise MQError(RC.UNKNOWN_OBJECT_NAME, f"topic {topic!r} is {reserved}")
            self._topics[queue] = topic
        return topic

    def default_persistence(self, queue: str) -> int:
        return 0

    def default_priority(self, queue: str) -> int:
        return 0

    def forget(self) -> None:
        """Ask the cluster again before the next write: a topic known here may have been
        deleted since (an MQI client deleted its queue, an operator the topic), which is
        what fails a transaction that writes to it."""
        self._known.clear()
        self._listed = False

    def exists(self, queue: str) -> bool:
        try:
            self.topic_of(queue)
        except MQError:  # a reserved topic is no queue, even where queues are made on demand
            return False
        return self.auto_create or self.is_topic(queue)

    def is_topic(self, queue: str) -> bool:
        try:
            topic = self.topic_of(queue)
        except MQError:
            return False
        if topic in self._known:
            return True
        if not self._listed:
            # after forget() (an aborted transaction, often Kafka coming back) every queue
            # of the next batch is asked again: all topics in one request, not one each (a
            # request per destination under load held the first batch back for seconds)
            self._listed = True
            listing = self._admin.list_topics(topic=None, timeout=10)
            self._known.update(
                name for name, found in listing.topics.items() if found.error is None
            )
            if topic in self._known:
                return True
        metadata = self._admin.list_topics(topic=topic, timeout=10)  # made since the listing
        found = metadata.topics.get(topic)
        if found is not None and found.error is None:
            self._known.add(topic)
            return True
        return False

    def ensure(self, queue: str) -> str | None:
        """The queue's topic, created if allowed; None when it cannot be had."""
        try:
            topic = self.topic_of(queue)
        except MQError:
            return None
        if topic in self._known or self.is_topic(queue):
            return topic
        if not self.auto_create:
            return None
        request = topicadmin.TopicRequest(topic, self._partitions)
        try:
            if topicadmin.create_topics(self._admin, [request]):
                log.info("created queue topic %s", topic)
        except KafkaException as error:
            log.warning("could not create topic %s: %s", topic, error)
            return None
        self._known.add(topic)
        return topic
