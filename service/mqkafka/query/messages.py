"""Browsing a queue without taking anything: the messages still on it, decoded.

"Still on it" starts at the share group's start offset (everything below it was got by the
MQI's destructive getters), or at the log start when no getter ever came. Above the start,
Kafka's own per-record share state (:mod:`~mqkafka.kafka.sharelog`) says which records were
acknowledged: those are passed over, got in order or not. Where that state cannot be read
(no READ on ``__share_group_state``), the records the getters' browse-barrier answers named
acknowledged above the start are passed over, and as many of the oldest others as Kafka's
lag says were got besides, the getters asked once more when the lag counts more than they
named (exact but for a getter that crashed). Reading is ``read_committed``, assign-only, and
never commits: like MQGMO_BROWSE_NEXT, it changes nothing. The dead-letter queue is browsed
the same way; each message shows its MQDLH.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from mqkafka.kafka import clients, sharelog, sharestate
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import (
    OFFSET_BEGINNING,
    IsolationLevel,
    KafkaException,
    OffsetSpec,
    TopicPartition,
)
from mqkafka.kafka.groups import SHARE_GROUP_PREFIX, reader_group
from mqkafka.kafka.recordcount import committed_records
from mqkafka.mq.errors import MQError
from mqkafka.mqi.kafkaqm.ackedspans import AckedSpans
from mqkafka.mqi.kafkaqm.browsevisitor import visit
from mqkafka.query.render import QueueMessageView, render_body, view_message
from mqkafka.wire.headers import mqmd_from_headers
from mqkafka.wire.names import queue_to_topic

DEAD_LETTER_QUEUE = "SYSTEM.DEAD.LETTER.QUEUE"
_FAR = 1 << 62  # past any partition's end
PARTITION_EOF = -191


class UnknownQueue(LookupError):
    """No topic carries the queue."""


@dataclass(frozen=True)
class Browsed:
    queue: str
    messages: list[QueueMessageView]
    more: bool  # stopped at the limit with messages left


Done = dict[int, sharelog.PartitionState]


def _starts(
    config: ClientConfig, namespace: str, topic: str, partitions: int
) -> tuple[dict[int, int], dict[int, int], Done, str | None]:
    """Per partition, where the queue starts (the share group's start offset), Kafka's
    record-by-record state where it can be read, and for the other partitions how many of
    the oldest records from the start were got all the same (the start trails the
    acknowledgements: :func:`~mqkafka.kafka.sharestate.got_unseen`); and the topic's id as
    Kafka answered it with the offsets (hex: which ledger lines are the queue's)."""
    group = namespace + SHARE_GROUP_PREFIX + topic
    client = sharestate.ShareStateClient(config, 5.0)
    try:
        known = client.offsets(group, topic, range(partitions))
    except MQError:
        known = {}
    finally:
        client.close()
    starts = {p: o.start for p, o in known.items() if o.start >= 0}
    topic_id = next((o.topic_id.hex() for o in known.values() if o.topic_id), None)
    if not starts:
        return starts, {}, {}, topic_id
    done = _done(config, group, known, sorted(starts))
    counted = {p: o for p, o in known.items() if p in starts and p not in done}
    if not counted:
        return starts, {}, done, topic_id
    ends = _ends(config, topic, sorted(counted))
    return starts, _got(config, topic, counted, ends), done, topic_id


def _done(
    config: ClientConfig, group: str, known: dict[int, sharestate.ShareOffsets], wanted: list[int]
) -> Done:
    topic_ids = {known[p].topic_id for p in wanted}
    if len(topic_ids) != 1 or b"" in topic_ids:
        return {}
    log = sharelog.ShareLog(config)
    try:
        states = log.states(group, topic_ids.pop(), wanted)
    finally:
        log.close()
    return {p: state for p, state in (states or {}).items() if state.start >= 0}


def _got(
    config: ClientConfig,
    topic: str,
    known: dict[int, sharestate.ShareOffsets],
    ends: dict[int, int],
) -> dict[int, int]:
    """Per partition, how many of the oldest records from the start were got: the lag
    counts records, so the span is counted in records too (markers take offsets)."""
    spans = {p: (known[p].start, end) for p, end in ends.items() if p in known}
    records = committed_records(config, topic, sharestate.may_hide(known, spans))
    return {p: sharestate.got_unseen(known[p], n, 0) for p, n in records.items()}


def _unnamed(got: dict[int, int], acked: AckedSpans, starts: dict[int, int]) -> dict[int, int]:
    """Per partition, how many of the oldest records to pass over: the lag counted what the
    getters named acknowledged too, and those are passed over by name."""
    return {p: max(n - acked.count(p, starts[p], _FAR), 0) for p, n in got.items()}


def _ends(config: ClientConfig, topic: str, partitions: list[int]) -> dict[int, int]:
    admin = clients.admin(config)
    request = {TopicPartition(topic, p): OffsetSpec.latest() for p in partitions}
    futures = admin.list_offsets(request, isolation_level=IsolationLevel.READ_COMMITTED)
    ends: dict[int, int] = {}
    for tp, future in futures.items():
        try:
            ends[tp.partition] = future.result().offset
        except KafkaException:
            continue  # that partition hides nothing
    return ends


def browse(
    config: ClientConfig,
    queue: str,
    *,
    namespace: str = "",
    limit: int = 100,
    wait: float = 0.0,
    timeout: float = 10.0,
) -> Browsed:
    """Up to ``limit`` messages on ``queue`` in offset order per partition; with ``wait``,
    waits that long for a first message when there is none."""
    topic = queue_to_topic(queue, namespace)
    consumer = clients.consumer(
        config,
        {
            "group.id": reader_group("browse"),  # assign only: never commits
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
            "enable.partition.eof": True,
            "fetch.wait.max.ms": 50,
        },
    )
    try:
        metadata = consumer.list_topics(topic, timeout=timeout).topics.get(topic)
        if metadata is None or metadata.error is not None or not metadata.partitions:
            raise UnknownQueue(queue)
        partitions = sorted(metadata.partitions)
        visited = visit(config, namespace, queue)  # getters elsewhere commit first (browsebarrier)
        starts, counted, done, topic_id = _starts(config, namespace, topic, len(partitions))
        held, acked = visited.held, visited.acked(queue, topic_id)
        got = _unnamed(counted, acked, starts)
        if any(got.values()):
            # more got than named: the lag, read after the round, counts what a getter
            # acknowledged out of order after answering it (or what a crashed one did,
            # which no round names); a round now has the live ones name it
            acked = acked.union(visit(config, namespace, queue).acked(queue, topic_id))
            got = _unnamed(counted, acked, starts)
        consumer.assign(
            [TopicPartition(topic, p, starts.get(p, OFFSET_BEGINNING)) for p in partitions]
        )
        messages: list[QueueMessageView] = []
        ended: set[int] = set()
        began = time.monotonic()
        deadline, waited = began + max(timeout, wait), began + wait
        more = False
        while time.monotonic() < deadline:
            for record in consumer.consume(500, 0.1):
                error = record.error()
                if error is not None:
                    if error.code() == PARTITION_EOF:
                        ended.add(record.partition())
                    continue
                state = done.get(record.partition())
                if state is not None and state.done(record.offset()):
                    continue  # acknowledged: got, in order or not
                if (record.partition(), record.offset()) in held:
                    continue  # got under syncpoint by a getter elsewhere, not yet committed
                if state is None and (record.partition(), record.offset()) in acked:
                    continue  # got out of order elsewhere, above the group's start
                if got.get(record.partition(), 0) > 0:
                    got[record.partition()] -= 1  # got by a getter, in order
                    continue
                if len(messages) >= limit:
                    more = True
                    break
                messages.append(_view(record))
            if more or len(messages) >= limit:
                break
            if len(ended) == len(partitions) and (messages or time.monotonic() >= waited):
                break
        return Browsed(queue, messages, more)
    except KafkaException as error:
        raise clients.KafkaEdgeError(f"browsing {queue}: {error}") from None
    finally:
        consumer.close()


def _view(rec: Any) -> QueueMessageView:
    headers = rec.headers() or []
    try:
        md, extra = mqmd_from_headers(headers)
    except MQError as error:
        return QueueMessageView(
            rec.partition(), rec.offset(), rec.timestamp()[1], {}, [],
            render_body(rec.value() or b""), None, f"MQMD headers: {error.detail}",
        )  # fmt: skip
    return view_message(
        rec.value() or b"", md, partition=rec.partition(), offset=rec.offset(),
        timestamp_ms=rec.timestamp()[1], extra_headers=_extra(extra),
    )  # fmt: skip


def _extra(headers: object) -> dict[str, str]:
    shown: dict[str, str] = {}
    for name, value in headers if isinstance(headers, list | tuple) else ():
        shown[str(name)] = value.decode("utf-8", "replace") if isinstance(value, bytes) else ""
    return shown


__all__ = ["DEAD_LETTER_QUEUE", "Browsed", "UnknownQueue", "browse"]
