"""CURDEPTH of many queues at once, for listings (``mqk queue list``, the console's Queues
page, DISPLAY QLOCAL(*)): the same count as ``QueueAdmin.depth(exact=True)``, asked of Kafka
in one round for all of them instead of one queue after another.

Per queue, ``depth`` asks its partitions' metadata, its share group's offsets, maybe the
watermarks, then counts committed records with a reader: four round trips or more each, about
a second a queue in a listing of 27 (issue 35). Here: the watermarks of every partition in
one list_offsets round (earliest and latest asked together), the share groups' offsets of
the queues that hold records over one connection (a request a group: Kafka 4.2 answers one
in about a millisecond, a request of fifty groups now in 15 ms, now in 2 s), and one reader
pass over every partition that holds anything. ``bench/bench_listing.py`` measures it: 100
queues, 4.2 s and 28 s (two rounds) one after another, 0.09 s (median of 5) at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping

from mqkafka.kafka.clients import (
    OFFSET_BEGINNING,
    IsolationLevel,
    KafkaError,
    KafkaException,
    OffsetSpec,
    TopicPartition,
)
from mqkafka.kafka.sharestate import ShareOffsets
from mqkafka.mq.errors import MQError
from mqkafka.mqi.kafkaqm.admin import QueueAdmin, _code, broken

Partition = tuple[str, int]


def depths(
    admin: QueueAdmin,
    topics: Mapping[str, int],
    share_group_of: Callable[[str], str],
    marks: Mapping[Partition, tuple[int, int]] | None = None,
) -> dict[str, int]:
    """topic → committed messages not yet got, for ``topics`` (topic → partitions);
    ``marks``: their watermarks, if the caller asked already (``watermarks``)."""
    every = [(t, p) for t, n in topics.items() for p in range(n)]
    if marks is None:
        marks = watermarks(admin, every)
    holding = {t for (t, _), (low, high) in marks.items() if t in topics and high > low}
    every = [tp for tp in every if tp in marks]  # a queue deleted meanwhile counts nothing
    # only queues that hold records ask their share group: an empty one holds no message
    asked = {share_group_of(t): (t, list(range(topics[t]))) for t in holding}
    try:
        known = admin.share_state.offsets_of_groups(asked) if asked else {}
    except MQError:
        known = {}
    shares: dict[Partition, ShareOffsets] = {}
    for group, offsets in known.items():
        topic = asked[group][0]
        shares.update({(topic, p): o for p, o in offsets.items()})
    totals = dict.fromkeys(topics, 0)
    for tp in every:
        share = shares.get(tp)
        if share is not None and share.lag >= 0:
            totals[tp[0]] += share.lag
        else:  # the group has not started: every record counts
            low, high = marks[tp]
            totals[tp[0]] += max(high - low, 0)
    # Lag counts transaction markers and aborted records too: count what is there, as
    # depth(exact=True) does, but for every queue that holds anything in one pass.
    starts = {tp: (shares[tp].start if tp in shares else -1) for tp in every if totals[tp[0]] > 0}
    counted = count_committed(admin, starts)
    return {t: min(total, counted.get(t, total)) if total else 0 for t, total in totals.items()}


def watermarks(
    admin: QueueAdmin, partitions: Iterable[Partition]
) -> dict[Partition, tuple[int, int]]:
    """(log start, last stable offset) of each partition, in one round of requests."""
    wanted = list(partitions)
    if not wanted:
        return {}
    rounds = []
    for spec in (OffsetSpec.earliest(), OffsetSpec.latest()):
        request = {TopicPartition(t, p): spec for t, p in wanted}
        rounds.append(
            admin.client.list_offsets(
                request, isolation_level=IsolationLevel.READ_COMMITTED,
                request_timeout=admin.timeout,
            )
        )  # fmt: skip
    found: dict[Partition, list[int]] = {tp: [0, 0] for tp in wanted}
    gone: set[Partition] = set()
    for slot, futures in enumerate(rounds):
        for tp, future in futures.items():
            try:
                found[(tp.topic, tp.partition)][slot] = future.result().offset
            except KafkaException as error:
                if _code(error) != KafkaError.UNKNOWN_TOPIC_OR_PART:
                    raise broken(error, f"offsets of {tp.topic}") from None
                gone.add((tp.topic, tp.partition))  # deleted as it was asked about
    return {tp: (low, high) for tp, (low, high) in found.items() if tp not in gone}


def count_committed(admin: QueueAdmin, starts: Mapping[Partition, int]) -> dict[str, int]:
    """Committed records from each partition's start (-1: its beginning) to its end, per
    topic; one reader assigned every partition at once."""
    if not starts:
        return {}
    counted = dict.fromkeys((t for t, _ in starts), 0)
    with admin._lock:  # the admin's counting reader, shared with depth()
        consumer = admin._counter()
        consumer.assign(
            [
                TopicPartition(t, p, s if s >= 0 else OFFSET_BEGINNING)
                for (t, p), s in starts.items()
            ]
        )
        try:
            ended: set[Partition] = set()
            deadline = time.monotonic() + admin.timeout
            while len(ended) < len(starts) and time.monotonic() < deadline:
                for record in consumer.consume(10000, 0.05):
                    error = record.error()
                    if error is None:
                        counted[record.topic()] += 1
                    elif error.code() == KafkaError._PARTITION_EOF:
                        ended.add((record.topic(), record.partition()))
        finally:
            consumer.unassign()
    return counted


__all__ = ["count_committed", "depths", "watermarks"]
