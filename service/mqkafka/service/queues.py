"""Which queues exist: a cache of the cluster's topics, creating subscriber queues on demand.

Writing to a topic that does not exist would fail the whole transaction (the broker does not
auto-create topics), so every record the service writes to a queue first asks here; a queue
that does not exist and may not be created is answered None, and the caller dead-letters.
A name whose topic is Kafka's or the broker's own (``wire.names.reserved_topic``) is no queue:
writing there is refused, and a refused write would fail every retry of its batch.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from mqkafka.kafka import topicadmin
from mqkafka.kafka.clients import KafkaException
from mqkafka.kafka.provision import queue_topic_config
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.wire.names import queue_to_topic, reserved_topic

log = logging.getLogger(__name__)
ABSENT_SECONDS = 1.0  # a queue ensure_all found missing is not asked again within this


class QueueDirectory:
    """Also the adapter of the engine's ``QueueDefaults`` port (``engine.ports``): every queue
    non-persistent at priority 0 (MQ's defaults for a new local queue), and a queue "exists"
    if it is a topic or may become one (the AdminClient is asked only here)."""

    def __init__(
        self,
        admin: Any,
        *,
        namespace: str = "",
        auto_create: bool = True,
        partitions: int = 1,
        topic_config: Mapping[str, str] | None = None,
    ) -> None:
        """``topic_config``: what the queue topics it makes are made with (None: every queue
        topic's, the catalogue's ``[defaults.queue_config]``)."""
        self._admin = admin
        self._config = dict(queue_topic_config() if topic_config is None else topic_config)
        self._namespace = namespace
        self.auto_create = auto_create
        self._partitions = partitions
        self._known: set[str] = set()
        self._listed = False  # every topic asked for in one request since the last forget()
        self._topics: dict[str, str] = {}
        self._absent: set[str] = set()  # missing at ensure_all's listing, at _absent_at
        # told the queue topics of each listing (Outputs: their limits asked ahead)
        self.on_listed: Callable[[list[str]], None] | None = None
        self._absent_at = 0.0

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
        self._absent = set()

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
            self._list_all()
            if topic in self._known:
                return True
        if topic in self._absent and time.monotonic() - self._absent_at < ABSENT_SECONDS:
            return False  # ensure_all found it missing a moment ago
        metadata = self._admin.list_topics(topic=topic, timeout=10)  # made since the listing
        found = metadata.topics.get(topic)
        if found is not None and found.error is None:
            self._known.add(topic)
            return True
        return False

    def ensure_all(self, queues: Iterable[str]) -> list[str]:
        """Many queues' topics made sure of at once, before their records are made: one
        listing if any is not known, one create request for those missing (when allowed).
        The first publication after a start to 1,000 subscriber queues asked and made them
        one by one. Returns the topics known now; ``ensure`` still answers each queue."""
        topics = set()
        for queue in queues:
            try:
                topics.add(self.topic_of(queue))
            except MQError:
                continue
        unknown = topics - self._known
        if unknown:
            self._list_all()
            missing = unknown - self._known
            if missing and self.auto_create:
                requests = [self._request(t) for t in sorted(missing)]
                try:
                    created = topicadmin.create_topics(self._admin, requests)
                except KafkaException as error:  # each is tried again alone by ensure()
                    log.warning("could not create %d queue topics: %s", len(missing), error)
                else:
                    if created:
                        log.info("created %d queue topics", len(created))
                    self._known.update(missing)
            elif missing:  # not made here: not asked again one by one for this batch
                self._absent, self._absent_at = missing, time.monotonic()
        return sorted(topics & self._known)

    def _list_all(self) -> None:
        self._listed = True
        listing = self._admin.list_topics(topic=None, timeout=10)
        listed = [name for name, found in listing.topics.items() if name and found.error is None]
        self._known.update(listed)
        if self.on_listed is not None:
            ns = self._namespace
            self.on_listed([t for t in listed if t.startswith(ns) and not reserved_topic(t, ns)])

    def _request(self, topic: str) -> topicadmin.TopicRequest:
        return topicadmin.TopicRequest(topic, self._partitions, config=self._config)

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
        request = self._request(topic)
        try:
            if topicadmin.create_topics(self._admin, [request]):
                log.info("created queue topic %s", topic)
        except KafkaException as error:
            log.warning("could not create topic %s: %s", topic, error)
            return None
        self._known.add(topic)
        return topic
