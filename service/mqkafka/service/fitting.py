"""Each record measured against its topic's limit before anything is written (issue 19).

A copy too large for its subscriber queue goes to the dead-letter queue with
MQRC_MSG_TOO_BIG_FOR_Q and the other subscribers still get theirs; a retained publication too
large for the store is not retained; a state record too large fails the whole command; the
publisher is told (``engine.undelivered``); a dead letter too large for the dead-letter queue
is logged with its message's topic, partition and offset and dropped. A plan replays only
bodies that fit every copy (``max_value``). What Kafka refuses all the same, the transactional
loop hands back to ``refused``.
"""

from __future__ import annotations

import logging
from typing import Any

from mqkafka.engine.context import EngineContext
from mqkafka.engine.effects import DeadLetter, Deliver, Effect, Processed, Reply, Retain
from mqkafka.engine.undelivered import answer_again
from mqkafka.kafka.txloop import OutRecord
from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import MQMD_DEFAULT
from mqkafka.mq.reasons import RC
from mqkafka.service.limits import headers_size, wire_size
from mqkafka.service.metrics import Metrics
from mqkafka.service.outputs import Outputs
from mqkafka.service.plans import MSG_ID, PUT_DATE, PUT_TIME, CopyPlan, Plan
from mqkafka.wire.headers import mqmd_from_split, split_msg_id
from mqkafka.wire.messagecodec import encode_reply
from mqkafka.wire.names import topic_to_queue

log = logging.getLogger("mqkafka.service.dispatcher")  # the operator's lines stay the broker's

# What Kafka's refusals mean to MQ, for the dead letter of a message whose records it refused.
_REFUSAL_REASONS = {
    "MSG_SIZE_TOO_LARGE": RC.MSG_TOO_BIG_FOR_Q,
    "RECORD_LIST_TOO_LARGE": RC.MSG_TOO_BIG_FOR_Q,
    "TOPIC_AUTHORIZATION_FAILED": RC.NOT_AUTHORIZED,
    "TOPIC_EXCEPTION": RC.UNKNOWN_OBJECT_NAME,  # an invalid topic
}
_REFUSED = RC.PUT_INHIBITED  # any other refusal (INVALID_RECORD, POLICY_VIOLATION...)
# A plan copy's MsgId, PutDate and PutTime, measured once: their sizes never change.
_REPLAY_HEADERS = [(MSG_ID, bytes(24)), (PUT_DATE, b"YYYYMMDD"), (PUT_TIME, b"HHMMSSTH")]


class RecordFit:
    """The dispatcher's records fitted to Kafka's limits, and its dead letters written."""

    def __init__(
        self, outputs: Outputs, metrics: Metrics, ctx: EngineContext, namespace: str
    ) -> None:
        self.outputs = outputs
        self.metrics = metrics
        self.ctx = ctx
        self._namespace = namespace

    def dead_letter_or_drop(
        self, message: Any, dead: OutRecord, reason: int, out: list[OutRecord]
    ) -> None:
        """Write ``dead`` (a dead letter for ``message``), or say why it cannot be."""
        if self.outputs.fits(dead):
            out.append(dead)
            self.metrics.dead_letters.labels(reason=str(int(reason))).inc()
        else:
            self.drop(message, dead, reason)

    def records(
        self, effects: list[Effect], queue: str, forwarded: list[Any] | None
    ) -> list[OutRecord] | None:
        """The record of each effect; None when one would not fit its topic."""
        record_of = self.outputs.record
        rooms = self.outputs.limits.rooms
        exact = self.outputs.limits.fits
        extra = headers_size(forwarded) if forwarded is not None else 0
        self.outputs.prepare(effects)  # a fan-out's queues and limits asked at once
        built = []
        for effect in effects:
            record = record_of(effect, queue)
            size = len(record.value or b"")
            if forwarded is not None and type(effect) is Deliver:
                native = effect.queue in self.outputs.native
                record = record._replace(headers=forward(record.headers, forwarded, native))
                size += extra  # rooms leave HEADROOM for the MQMD's headers only
            if size > rooms.get(record.topic, -1) and not exact(
                record.topic, record.value, record.key, record.headers
            ):
                return None
            built.append(record)
        return built

    def refit(
        self,
        message: Any,
        queue: str,
        effects: list[Effect],
        outcomes: list[Processed],
        forwarded: list[Any] | None,
    ) -> tuple[list[Effect], list[OutRecord]]:
        """The effects of a message some of whose records would not fit their topics, and
        their records (see the module doc): copies too large are dead-lettered, a retained
        publication too large is not kept, a state record too large fails the whole command;
        the command's answer is made again to say so, and a reply too large is dead-lettered."""
        outputs = self.outputs
        kept: list[Effect] = []
        built: list[OutRecord] = []
        answer: list[Effect] = []
        refused = 0
        failed = False
        for effect in effects:
            kind = type(effect)
            if kind is Reply or kind is DeadLetter:  # the command's answer: last of its effects
                answer.append(effect)
                continue
            record = outputs.record(effect, queue)
            if forwarded is not None and kind is Deliver:
                native = effect.queue in outputs.native  # type: ignore[union-attr]
                record = record._replace(headers=forward(record.headers, forwarded, native))
            if outputs.fits(record):
                kept.append(effect)
                built.append(record)
            elif isinstance(effect, Deliver):
                refused += 1
                copy_md, copy, copy_headers = outputs.copy_of(effect)
                detail = f"a {len(copy)}-byte copy does not fit queue {effect.queue}"
                dead = DeadLetter(copy_md, RC.MSG_TOO_BIG_FOR_Q, detail, copy)
                self._dead_letter(message, dead, effect.queue, kept, built, copy_headers)
            elif kind is Retain:
                refused += 1  # the retained store keeps what it had
            else:
                failed = True
        done = outcomes[-1] if outcomes else None
        if (failed or refused) and done is not None and done.command is not None:
            if failed:
                kept, built = [], []
            outcomes[-1], answer = answer_again(done, RC.MSG_TOO_BIG_FOR_Q, self.ctx, failed=failed)
        for effect in answer:
            record = outputs.record(effect, queue)
            if outputs.fits(record):
                kept.append(effect)
                built.append(record)
            elif isinstance(effect, Reply):
                reply_md, reply = encode_reply(effect)
                detail = f"a {len(reply)}-byte reply does not fit queue {effect.queue}"
                dead = DeadLetter(reply_md, RC.MSG_TOO_BIG_FOR_Q, detail, reply)
                self._dead_letter(message, dead, effect.queue, kept, built)
            else:
                self.drop(message, record, getattr(effect, "reason", RC.MSG_TOO_BIG_FOR_Q))
        return kept, built

    def _dead_letter(
        self,
        message: Any,
        dead: DeadLetter,
        queue: str,
        kept: list[Effect],
        built: list[OutRecord],
        headers: list[tuple[str, bytes]] | None = None,
    ) -> None:
        record = self.outputs.dead_letter(
            dead.md, dead.value or b"", dead.reason, queue, dead.detail, extra_headers=headers
        )
        if self.outputs.fits(record):
            kept.append(dead)
            built.append(record)
        else:
            self.drop(message, record, dead.reason)

    def drop(self, message: Any, record: OutRecord, reason: int) -> None:
        """A dead letter that the dead-letter queue will not take either: said, and skipped."""
        log.error(
            "%s [%d] offset %d: its %d-byte dead letter (reason %d) does not fit %s: dropped",
            message.topic(),
            message.partition(),
            message.offset(),
            len(record.value or b""),
            int(reason),
            record.topic,
        )
        self.metrics.dropped.labels(reason=str(int(reason))).inc()

    def max_value(self, plan: Plan) -> int:
        """The longest message ``plan`` may be replayed for: every copy fits its topic."""
        limit = self.outputs.limits.limit

        def room(copy: CopyPlan) -> int:
            shared = copy.headers
            headers = [*shared.before, *shared.between, *shared.after, *_REPLAY_HEADERS]
            return limit(copy.topic) - wire_size(copy.head, copy.key, headers)

        return plan.length + min(map(room, plan.copies), default=1 << 62)

    def refused(self, message: Any, error: Any) -> OutRecord | None:
        """What to write instead of the records ``message`` made, which Kafka refused for a
        reason no retry cures (``error``: a KafkaError; the transactional loop asks): the
        message itself on the dead-letter queue with the nearest reason and Kafka's words;
        None when the dead-letter queue will not take it either (the loop logs and skips)."""
        topic = message.topic()
        value = message.value() or b""
        try:
            queue = topic_to_queue(topic, self._namespace)
            rest, msg_id = split_msg_id(message.headers())
            md = mqmd_from_split(message.headers(), rest, msg_id)[0]
        except MQError:
            queue, md = self.ctx.config.control_queue, MQMD_DEFAULT
        reason = _REFUSAL_REASONS.get(error.name(), _REFUSED)
        detail = f"Kafka refused a record it made: {error.name()}: {error.str()}"
        dead = self.outputs.dead_letter(md, value, reason, queue, detail)
        if not self.outputs.fits(dead):
            return None
        self.metrics.dead_letters.labels(reason=str(int(reason))).inc()
        return dead


def forward(headers: Any, forwarded: list[Any], native: bool) -> list[Any]:
    """A copy's headers and the publication's own after them, each name once: a copy to a
    Kafka-native queue already carries the properties the publication's headers may repeat
    (an MQ-format copy has only its MQMD's, which no forwarded header is)."""
    mine = headers or ()
    if not native:
        return [*mine, *forwarded]
    names = {name for name, _ in mine}
    return [*mine, *(header for header in forwarded if header[0] not in names)]
