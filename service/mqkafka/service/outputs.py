"""Engine effects as the Kafka records that carry them out (wire contract §2–§3).

* ``Deliver`` / ``Reply``: a record on the queue's topic, the MQMD as ``mqmd.*`` headers, keyed
  by CorrelId so that one subscriber identity's messages stay in order.
* ``DeadLetter``, and any message whose queue does not exist (and may not be created) or lives
  on another queue manager: SYSTEM.DEAD.LETTER.QUEUE with an MQDLH naming the reason and the
  queue it was meant for.
* State effects: the changelog records of the compacted state topics (a tombstone for a
  removal), so that every worker, and any Kafka consumer, can rebuild the state.

A queue whose message format is KAFKA (issue 37, ``wire.kafkanative``) gets each copy, reply
and (when it is the dead-letter queue) dead letter as the data alone, what MQ puts in headers
before it as record headers; the queue catalogue says which queues (``refresh_formats``).

Every effect is one record. ``fits`` says whether a record will fit its topic (``limits``);
the dispatcher asks before anything is written.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from mqkafka.engine.delivery import put_time
from mqkafka.engine.effects import (
    DeadLetter,
    Deliver,
    Effect,
    Reply,
    StoreSubscription,
)
from mqkafka.kafka.txloop import OutRecord
from mqkafka.mq.dlh import MQFMT_DEAD_LETTER_HEADER, DeadLetterHeader
from mqkafka.mq.mqmd import MQMD
from mqkafka.mq.reasons import RC
from mqkafka.service.config import ServiceConfig
from mqkafka.service.limits import FixedLimits, TopicLimits
from mqkafka.service.queues import QueueDirectory
from mqkafka.state.kinds import STATE_KINDS, StateKinds
from mqkafka.wire.headers import mqmd_to_headers
from mqkafka.wire.kafkanative import native_delivery, native_reply
from mqkafka.wire.messagecodec import encode_delivery, encode_reply

Headers = list[tuple[str, bytes]]
# A command with this many effects or more has its queues and limits asked at once (prepare)
PREPARE_FROM = 16


class QueueFormats(Protocol):
    """What outputs read of the queue catalogue (``mqi.kafkaqm.cataloguereader``)."""

    @property
    def changes(self) -> int: ...  # records applied so far

    def kafka_native_names(self) -> frozenset[str]: ...


class Outputs:
    def __init__(
        self,
        config: ServiceConfig,
        queues: QueueDirectory,
        limits: TopicLimits | None = None,
        kinds: StateKinds = STATE_KINDS,
        formats: QueueFormats | None = None,
    ) -> None:
        self.config = config
        self.queues = queues
        self.limits = limits if limits is not None else FixedLimits()
        queues.on_listed = self.limits.prefetch  # every queue's limit asked as topics are listed
        self.dead_letter_topic = queues.topic_of(config.dead_letter_queue)
        self.kinds = kinds
        self.state_topics = {kind.name: config.topic(kind.topic) for kind in kinds}
        self._formats = formats
        self._format_changes = -1
        self.native: frozenset[str] = frozenset()  # queues of message format KAFKA
        self.refresh_formats()

    def refresh_formats(self) -> bool:
        """Read again which queues are Kafka-native if the catalogue changed; whether they
        did (records already made for the old formats, a kept plan's, are then stale)."""
        formats = self._formats
        if formats is None or formats.changes == self._format_changes:
            return False
        self._format_changes = formats.changes
        native, self.native = self.native, formats.kafka_native_names()
        return native != self.native

    def copy_of(self, effect: Deliver) -> tuple[MQMD, bytes, Headers]:
        """A copy as its queue holds it: (MQMD, value, headers besides the MQMD's)."""
        if effect.queue in self.native:
            return native_delivery(effect)
        md, value = encode_delivery(effect)
        return md, value, []

    def prepare(self, effects: Sequence[Effect]) -> None:
        """Before the records of a command's many effects: their queues' topics made sure of
        and their limits asked, each at once (``QueueDirectory.ensure_all``,
        ``TopicLimits.learn``); the records then find them known. A command of a few
        effects asks as its records are made."""
        if len(effects) < PREPARE_FROM:
            return
        local = self.config.qmgr_name
        queues = {
            e.queue
            for e in effects
            if (type(e) is Deliver or type(e) is Reply)
            and (not e.q_mgr_name or e.q_mgr_name == local)
        }
        rooms = self.limits.rooms
        topics = self.queues.ensure_all(queues)
        self.limits.learn(t for t in topics if t not in rooms)

    def records(self, effect: Effect, source_queue: str) -> Iterator[OutRecord]:
        """The records that carry out ``effect`` of a message consumed from ``source_queue``."""
        yield self.record(effect, source_queue)

    def record(self, effect: Effect, source_queue: str) -> OutRecord:
        """The one record that carries out ``effect`` (see ``records``)."""
        if isinstance(effect, Deliver):
            if effect.queue in self.native:
                return self._to_queue(effect.queue, effect.q_mgr_name, *native_delivery(effect))
            md, value = encode_delivery(effect)
            return self._to_queue(effect.queue, effect.q_mgr_name, md, value)
        if isinstance(effect, Reply):
            if effect.queue in self.native:
                return self._to_queue(effect.queue, effect.q_mgr_name, *native_reply(effect))
            md, value = encode_reply(effect)
            return self._to_queue(effect.queue, effect.q_mgr_name, md, value)
        if isinstance(effect, DeadLetter):
            return self.dead_letter(
                effect.md, effect.value or b"", effect.reason, source_queue, effect.detail
            )
        if isinstance(effect, StoreSubscription):
            # Create the subscriber queue now, so that its consumers can attach before the
            # first publication arrives.
            self.queues.ensure(effect.subscription.key.identity.q_name)
        state = self.kinds.record_of(effect)  # a state effect: its kind's record
        if state is not None:
            kind, state_key, state_value = state
            return OutRecord(self.state_topics[kind.name], state_value, state_key)
        raise TypeError(f"not an effect: {effect!r}")

    def fits(self, record: OutRecord) -> bool:
        """Whether Kafka will take ``record``: the per-record bound, else the exact measure."""
        topic, value = record.topic, record.value
        if value is not None and len(value) <= self.limits.rooms.get(topic, -1):
            return True
        return self.limits.fits(topic, value, record.key, record.headers)

    def _to_queue(
        self, queue: str, q_mgr: str, md: MQMD, value: bytes, extra: Headers | None = None
    ) -> OutRecord:
        if q_mgr and q_mgr != self.config.qmgr_name:
            # Remote queue managers are not reachable from this emulation.
            return self.dead_letter(
                md, value, RC.UNKNOWN_REMOTE_Q_MGR, queue, f"queue manager {q_mgr}", q_mgr, extra
            )
        topic = self.queues.ensure(queue)
        if topic is None:
            return self.dead_letter(
                md, value, RC.UNKNOWN_OBJECT_NAME, queue, "no such queue", q_mgr, extra
            )
        headers = mqmd_to_headers(md)
        if extra:
            headers.extend(extra)
        return OutRecord(topic, value, _key(md), headers)

    def dead_letter(
        self,
        md: MQMD,
        value: bytes,
        reason: int,
        queue: str,
        detail: str = "",
        q_mgr: str = "",
        extra_headers: list[tuple[str, bytes]] | None = None,
    ) -> OutRecord:
        stamp = put_time(time.time())
        header = DeadLetterHeader(
            reason=int(reason),
            dest_q_name=queue,
            dest_q_mgr_name=q_mgr or self.config.qmgr_name,
            encoding=md.Encoding,
            ccsid=md.CodedCharSetId,
            format=md.Format,
            put_appl_name=self.config.qmgr_name[:28],
            # when it was put on the dead-letter queue (MQDLH), not when it was first put
            put_date=stamp.date,
            put_time=stamp.time,
        )
        native = self.config.dead_letter_queue in self.native  # the reason in headers only
        dead_md = md if native else md.replace(Format=MQFMT_DEAD_LETTER_HEADER)
        headers: list[tuple[str, bytes]] = [
            *mqmd_to_headers(dead_md),
            ("mqk.reason", str(int(reason)).encode()),
            ("mqk.queue", queue.encode()),
        ]
        if detail:
            headers.append(("mqk.detail", detail.encode("utf-8", "replace")[:1000]))
        headers.extend(extra_headers or ())
        if not native:
            value = header.encode(md.Encoding) + value
        return OutRecord(self.dead_letter_topic, value, _key(md), headers)


def _key(md: MQMD) -> bytes | None:
    correl: Any = md.CorrelId
    return correl if any(correl) else None
