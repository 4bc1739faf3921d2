"""The Kafka administration a queue needs: its topic, its share group, its depth.

Thin on purpose: every call is one Kafka admin request (or the share-offsets probe) and a
translation of its failure into an MQ reason code:

| Kafka outcome | MQ reason |
|---|---|
| TOPIC_ALREADY_EXISTS on create | the name is taken: ``False`` (callers answer 2100) |
| UNKNOWN_TOPIC_OR_PART on delete/purge | already gone: ignored |
| anything else (broker down, timeout) | ``MQRC_CONNECTION_BROKEN`` (2009) |

Creating the topic is what claims a queue name: Kafka creates a topic once, so of two
applications defining the same name at the same moment exactly one succeeds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from mqkafka.kafka import clients
from mqkafka.kafka.clients import (
    OFFSET_BEGINNING,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    IsolationLevel,
    KafkaError,
    KafkaException,
    NewTopic,
    OffsetSpec,
    TopicPartition,
)
from mqkafka.kafka.groups import reader_group
from mqkafka.kafka.provision import queue_topic_config
from mqkafka.kafka.sharestate import ShareOffsets, ShareStateClient, got_unseen
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm.settings import Settings

DEFAULT_DELIVERY_LIMIT = 5  # group.share.delivery.count.limit, Kafka's default


def _code(error: BaseException) -> int | None:
    if isinstance(error, KafkaException) and error.args and isinstance(error.args[0], KafkaError):
        code: int = error.args[0].code()
        return code
    return None


def broken(error: BaseException, what: str) -> MQError:
    return MQError(RC.CONNECTION_BROKEN, f"{what}: {error}")


class QueueAdmin:
    """Topic and share-group administration for one connection (thread-safe)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.client = clients.admin(settings.client)
        self.share_state = ShareStateClient(settings.client, settings.admin_timeout)
        self._configured: set[str] = set()
        self._queue_config: dict[str, str] | None = None  # the catalogue's, read at first need
        self._lock = threading.Lock()
        self._delivery_limit: int | None = None
        self.timeout = settings.admin_timeout
        self._counting: Any = None
        self._uncommitted: Any = None

    # ---- topics ----

    def partitions_of(self, topic: str) -> int | None:
        """The topic's partition count, or None when it does not exist."""
        try:
            metadata = self.client.list_topics(topic=topic, timeout=self.timeout)
        except KafkaException as error:
            raise broken(error, f"metadata of {topic}") from None
        found = metadata.topics.get(topic)
        if found is None or found.error is not None or not found.partitions:
            return None
        return len(found.partitions)

    def create_topic(
        self, topic: str, partitions: int, config: dict[str, str] | None = None
    ) -> bool:
        """Create queue ``topic`` with every queue topic's configs (the catalogue's, ``config``
        over them); False if it already exists (the name is someone else's)."""
        if self._queue_config is None:
            self._queue_config = queue_topic_config()
        configs = {**self._queue_config, **(config or {})}
        future = self.client.create_topics(
            [NewTopic(topic, partitions, 1, config=configs)], operation_timeout=self.timeout
        )[topic]
        try:
            future.result()
        except KafkaException as error:
            if _code(error) == KafkaError.TOPIC_ALREADY_EXISTS:
                return False
            raise broken(error, f"create topic {topic}") from None
        # Created on the controller; wait until the metadata everyone reads shows it.
        deadline = time.monotonic() + self.timeout
        while self.partitions_of(topic) is None:
            if time.monotonic() > deadline:
                raise MQError(RC.CONNECTION_BROKEN, f"topic {topic} never became visible")
            time.sleep(0.05)
        return True

    def delete_topic(self, topic: str) -> None:
        """Delete ``topic``; a topic already gone is deleted. Several clients may delete one
        queue at once (reaping a crashed connection), and the queue's definition is gone
        before its topic: a failed request is asked again rather than leaving the topic."""
        deadline = time.monotonic() + self.timeout
        while True:
            future = self.client.delete_topics([topic], operation_timeout=self.timeout)[topic]
            try:
                future.result()
                self._until_gone(topic, deadline)
                return
            except KafkaException as error:
                if _code(error) == KafkaError.UNKNOWN_TOPIC_OR_PART:
                    return
                if self.partitions_of(topic) is None:
                    return  # another client's deletion won
                if time.monotonic() > deadline:
                    raise broken(error, f"delete topic {topic}") from None
                time.sleep(0.2)

    def _until_gone(self, topic: str, deadline: float) -> None:
        """Kafka answers a deletion before the metadata stops showing the topic: a queue
        defined again under the name at once would find the old topic (and lose it a moment
        later, MQRC_Q_DELETED). pymqi's test suites delete and define one name per test."""
        while self.partitions_of(topic) is not None and time.monotonic() < deadline:
            time.sleep(0.05)

    def purge(self, topic: str) -> None:
        """Delete every record of ``topic`` (MQ: purge the committed messages)."""
        partitions = self.partitions_of(topic)
        if partitions is None:
            return
        futures = self.client.delete_records(
            [TopicPartition(topic, p, -1) for p in range(partitions)],
            operation_timeout=self.timeout,
        )
        for future in futures.values():
            try:
                future.result()
            except KafkaException as error:
                if _code(error) != KafkaError.UNKNOWN_TOPIC_OR_PART:
                    raise broken(error, f"purge {topic}") from None

    def watermarks(self, topic: str, partitions: int) -> dict[int, tuple[int, int]]:
        """Per partition (log start, last stable offset)."""
        result: dict[int, tuple[int, int]] = {}
        for spec, slot in ((OffsetSpec.earliest(), 0), (OffsetSpec.latest(), 1)):
            request = {TopicPartition(topic, p): spec for p in range(partitions)}
            futures = self.client.list_offsets(
                request, isolation_level=IsolationLevel.READ_COMMITTED, request_timeout=self.timeout
            )
            for tp, future in futures.items():
                try:
                    offset = future.result().offset
                except KafkaException as error:
                    raise broken(error, f"offsets of {topic}") from None
                low, high = result.get(tp.partition, (0, 0))
                result[tp.partition] = (offset, high) if slot == 0 else (low, offset)
        return result

    # ---- share groups ----

    def configure_share_group(self, group: str) -> None:
        """Share-group settings every getter of a queue relies on, set once per process:
        start at the first message (not 'latest'), see syncpoint puts only once committed,
        and the lock duration of the settings."""
        with self._lock:
            if group in self._configured:
                return
        entries = {
            "share.auto.offset.reset": "earliest",
            "share.isolation.level": "read_committed",
            "share.record.lock.duration.ms": str(self.settings.lock_duration_ms),
        }
        resource = ConfigResource(
            ConfigResource.Type.GROUP,
            group,
            incremental_configs=[
                ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET)
                for k, v in entries.items()
            ],
        )
        for future in self.client.incremental_alter_configs([resource]).values():
            try:
                future.result()
            except KafkaException as error:
                raise broken(error, f"configure share group {group}") from None
        with self._lock:
            self._configured.add(group)

    def depth(
        self,
        topic: str,
        group: str,
        *,
        exact: bool = False,
        gone: Callable[[tuple[int, int]], bool] = lambda position: False,
        partitions: int | None = None,
    ) -> int:
        """Committed messages on the queue: the share group's lag, or every record where the
        group has not started (``in_flight`` counts the syncpoint puts not yet committed,
        which MQ's CURDEPTH counts too; a getter must not see them).

        Lag counts offsets, and the markers of transactions (syncpoint puts) and the records
        of aborted ones take offsets too until a getter passes them. ``exact`` also counts
        the committed records from the share group's start and answers the smaller of the
        two: the lag (which knows what was acknowledged out of order) unless offsets that
        hold no message inflate it. ``gone`` names records known to be got already (the start
        offset Kafka reports trails the acknowledgements). ``partitions``: the topic's count
        where the caller knows it (a metadata request less).
        """
        if partitions is None:
            partitions = self.partitions_of(topic)
        if partitions is None:
            return 0
        try:
            known = self.share_state.offsets(group, topic, range(partitions))
        except MQError:
            known = {}
        unknown = [p for p in range(partitions) if p not in known or known[p].lag < 0]
        total = sum(known[p].lag for p in range(partitions) if p not in unknown)
        if unknown:
            marks = self.watermarks(topic, partitions)
            total += sum(max(marks[p][1] - marks[p][0], 0) for p in unknown)
        if total and exact:
            starts = {p: known[p].start if p in known else -1 for p in range(partitions)}
            total = min(total, self._count_committed(topic, starts, gone))
        return total

    def _count_committed(
        self, topic: str, starts: dict[int, int], gone: Callable[[tuple[int, int]], bool]
    ) -> int:
        with self._lock:
            consumer = self._counter()
            consumer.assign(
                [
                    TopicPartition(topic, p, start if start >= 0 else OFFSET_BEGINNING)
                    for p, start in starts.items()
                ]
            )
            try:
                counted, ended = 0, set[int]()
                deadline = time.monotonic() + self.timeout
                while len(ended) < len(starts) and time.monotonic() < deadline:
                    for record in consumer.consume(1000, 0.05):
                        error = record.error()
                        if error is None:
                            counted += not gone((record.partition(), record.offset()))
                        elif error.code() == KafkaError._PARTITION_EOF:
                            ended.add(record.partition())
                return counted
            finally:
                consumer.unassign()

    def in_flight(self, topic: str) -> int:
        """Records of open Kafka transactions on ``topic``: syncpoint puts neither committed
        nor backed out yet, this connection's and every other's, that MQ counts in CURDEPTH.

        A read_committed reader stops at the last stable offset (LSO), the first record of
        the oldest open transaction; the records from there to the high watermark are read
        uncommitted and counted (Kafka's control markers are not records). Between the two
        may also lie records another transaction committed after the open one began (MQ
        counts those too) and, rarely, records a transaction backed out while an older one
        stayed open (counted until that older one ends: the one over-count)."""
        partitions = self.partitions_of(topic)
        if partitions is None:
            return 0
        stable = self._latest(topic, partitions, IsolationLevel.READ_COMMITTED)
        high = self._latest(topic, partitions, IsolationLevel.READ_UNCOMMITTED)
        open_from = {p: stable[p] for p in range(partitions) if high[p] > stable[p]}
        if not open_from:
            return 0
        with self._lock:
            consumer = self._uncommitted_counter()
            consumer.assign([TopicPartition(topic, p, o) for p, o in open_from.items()])
            try:
                counted, ended = 0, set[int]()
                deadline = time.monotonic() + self.timeout
                while len(ended) < len(open_from) and time.monotonic() < deadline:
                    for record in consumer.consume(1000, 0.05):
                        error = record.error()
                        if error is None:
                            counted += record.offset() < high[record.partition()]
                        elif error.code() == KafkaError._PARTITION_EOF:
                            ended.add(record.partition())
                return counted
            finally:
                consumer.unassign()

    def stable_offsets(self, topic: str) -> dict[int, int]:
        """Each partition's last stable offset: moves when a transaction's markers land."""
        partitions = self.partitions_of(topic)
        if partitions is None:
            return {}
        return self._latest(topic, partitions, IsolationLevel.READ_COMMITTED)

    def _latest(self, topic: str, partitions: int, isolation: Any) -> dict[int, int]:
        request = {TopicPartition(topic, p): OffsetSpec.latest() for p in range(partitions)}
        futures = self.client.list_offsets(
            request, isolation_level=isolation, request_timeout=self.timeout
        )
        result: dict[int, int] = {}
        for tp, future in futures.items():
            try:
                result[tp.partition] = future.result().offset
            except KafkaException as error:
                raise broken(error, f"offsets of {topic}") from None
        return result

    def _uncommitted_counter(self) -> Any:
        """A read_uncommitted reader kept for counting open transactions' records."""
        if self._uncommitted is None:
            self._uncommitted = clients.consumer(
                self.settings.client,
                {
                    "group.id": reader_group("mqi-inflight"),  # assign only
                    "enable.auto.commit": False,
                    "isolation.level": "read_uncommitted",
                    "enable.partition.eof": True,
                    "auto.offset.reset": "earliest",
                    "fetch.wait.max.ms": 10,
                },
            )
        return self._uncommitted

    def _counter(self) -> Any:
        """A reader kept for counting (its connections stay warm between counts)."""
        if self._counting is None:
            self._counting = clients.consumer(
                self.settings.client,
                {
                    "group.id": reader_group("mqi-count"),  # assign only
                    "enable.auto.commit": False,
                    "isolation.level": "read_committed",
                    "enable.partition.eof": True,
                    "auto.offset.reset": "earliest",
                    "fetch.wait.max.ms": 10,
                },
            )
        return self._counting

    def share_start(self, topic: str, group: str, partitions: int) -> dict[int, int]:
        """Per partition, the first offset the share group may still deliver (or -1)."""
        try:
            known = self.share_state.offsets(group, topic, range(partitions))
        except MQError:
            return {}
        return {p: o.start for p, o in known.items()}

    def got_unseen(
        self,
        topic: str,
        partitions: int,
        group: str,
        starts: dict[int, int],
        known: Callable[[int, int, int], int],
    ) -> dict[int, int]:
        """Per partition, how many records from ``starts`` others got that ``known``
        (partition, start, end -> how many of those offsets this process knows were got)
        does not account for (:func:`~mqkafka.kafka.sharestate.got_unseen`)."""
        try:
            lags = self.share_state.offsets(group, topic, range(partitions))
            ends = self._latest(topic, partitions, IsolationLevel.READ_COMMITTED)
        except MQError:
            return {}  # nothing hidden: the browse shows what it did before
        hidden: dict[int, int] = {}
        for p, start in starts.items():
            if p in lags and start >= 0 and p in ends:
                # the span in offsets: the reader reads these records anyway and takes the
                # transactions' markers out itself (logreader.hidden_records)
                offsets = ShareOffsets(p, start, lags[p].lag)
                hidden[p] = got_unseen(offsets, ends[p] - start, known(p, start, ends[p]))
        return hidden

    def delivery_limit(self) -> int:
        """The broker's group.share.delivery.count.limit: the delivery on which a released
        message is archived (dropped) instead of being offered again."""
        if self._delivery_limit is not None:
            return self._delivery_limit
        limit = DEFAULT_DELIVERY_LIMIT
        try:
            cluster: Any = self.client.describe_cluster(request_timeout=self.timeout).result()
            resource = ConfigResource(ConfigResource.Type.BROKER, str(cluster.nodes[0].id))
            configs = self.client.describe_configs([resource])[resource].result()
            entry = configs.get("group.share.delivery.count.limit")
            if entry is not None and entry.value:
                limit = int(entry.value)
        except (KafkaException, IndexError, ValueError):
            pass  # keep Kafka's default
        self._delivery_limit = limit
        return limit

    def close(self) -> None:
        self.share_state.close()
        if self._counting is not None:
            self._counting.close()
        if self._uncommitted is not None:
            self._uncommitted.close()


__all__ = ["QueueAdmin", "broken"]
