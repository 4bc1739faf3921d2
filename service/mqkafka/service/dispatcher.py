"""The broker's batch handler: consumed records → engine → records to write.

One instance serves the control queue and the stream queues assigned to this worker; the
transactional loop around it writes what ``handle`` returns, with the input offsets, in one
transaction. State effects are applied at once (so later commands of the batch see them)
through a journal that undoes them if the transaction aborts.

Nothing a record contains stops the partition: a record whose headers are not an MQMD goes to
the dead-letter queue with MQRC_MD_ERROR; a command the engine rejects is answered (or dead-
lettered) with its reason by the engine; an unexpected failure inside the engine for one
record dead-letters that record with MQRCCF_COMMAND_FAILED and the error, and the batch goes on.

A publication like one seen before (same queue, MQMD headers and RFH header) whose answer was
plain is not taken through the engine again: its kept plan is replayed (``plans``).

With identity assurance on (``identity``, issue 20) every record is checked first: one not
signed by a known user, stale or replayed is dead-lettered with MQRC_NOT_AUTHORIZED; one whose
signer may not claim its UserIdentifier is refused as a command (3081); the rest go on with
the signature headers taken off and the signer's userid filled in, plans included.

Nor does a record Kafka would refuse (issue 19): each is measured against its topic's limit
before anything is written (``fitting``), and what Kafka refuses all the same, the
transactional loop hands back to ``refused``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from mqkafka.activity.builder import ActivityRecorder
from mqkafka.engine.context import EngineContext
from mqkafka.engine.effects import DeadLetter, Deliver, Processed, Reply
from mqkafka.engine.handle import handle
from mqkafka.engine.inputs import QueueDeleted
from mqkafka.engine.state import EngineState
from mqkafka.identity.guard import IdentityGuard, Refused
from mqkafka.kafka.txloop import OutRecord
from mqkafka.kafka.txrecovery import kafka_away
from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import MQMD, MQMD_DEFAULT
from mqkafka.mq.reasons import RC
from mqkafka.service.fitting import RecordFit
from mqkafka.service.journal import Journal
from mqkafka.service.metrics import Metrics
from mqkafka.service.outputs import Outputs
from mqkafka.service.plans import (
    Plan,
    PublicationPlans,
)
from mqkafka.service.replica import EngineStateReplica
from mqkafka.service.tempqueues import TemporaryQueueWatch
from mqkafka.wire.headers import mqmd_from_headers, mqmd_from_split, split_msg_id
from mqkafka.wire.kafkanative import PSC_PREFIX, has_psc
from mqkafka.wire.messagecodec import CommandReader, process_message
from mqkafka.wire.names import topic_to_queue

log = logging.getLogger(__name__)


class Dispatcher:
    def __init__(
        self,
        *,
        state: EngineState,
        ctx: EngineContext,
        replica: EngineStateReplica,
        outputs: Outputs,
        metrics: Metrics,
        namespace: str = "",
        on_commit: Any = None,
        on_abort: Any = None,
        activity: ActivityRecorder | None = None,
        plans: bool = True,
        temporary_queues: TemporaryQueueWatch | None = None,
        identity: IdentityGuard | None = None,
    ) -> None:
        self.identity = identity
        self.state = state
        self.ctx = ctx
        self.replica = replica
        self.outputs = outputs
        self.metrics = metrics
        self.journal = Journal()
        self._namespace = namespace
        self._queue_of: dict[str, str] = {}
        self._streams = ctx.config.streams
        # copies written by put time (ms): a publisher's burst shares its put millisecond, so
        # a count per millisecond makes far fewer histogram observations than one per message
        self._pending_latency: dict[int, int] = {}
        self._on_commit = on_commit
        self._on_abort = on_abort
        self._counts = [0, 0, 0]
        self.activity = activity
        self.plans = PublicationPlans() if plans else None
        self.reader = CommandReader()  # remembers the commands publishers repeat
        self._outcomes: dict[tuple[str, int], int] = {}
        self.temporary_queues = temporary_queues
        self._forgetting: set[str] = set()  # gone queues whose subscriptions this batch removes
        self._limits_seen = outputs.limits.generation  # plans were sized under these limits
        self.fit = RecordFit(outputs, metrics, ctx, namespace)

    # --- StateHooks --------------------------------------------------------------------
    def before_batch(self) -> None:
        applied = self.replica.catch_up()
        if applied:
            self.metrics.replica_records.inc(applied)
        limits = self.outputs.limits
        limits.refresh_if_due()
        if limits.generation != self._limits_seen:  # a plan's largest body may have shrunk
            self._limits_seen = limits.generation
            if self.plans is not None:
                self.plans = PublicationPlans()
        if self.outputs.refresh_formats() and self.plans is not None:  # copies made anew
            self.plans = PublicationPlans()

    def committed(self) -> None:
        self.journal.clear()
        if self.identity is not None:
            self.identity.committed()
        self._forgetting = set()
        if self._pending_latency:
            now = time.time()
            observe = self.metrics.delivery_latency.observe
            for put_ms, copies in self._pending_latency.items():
                observe(max(0.0, now - put_ms / 1000.0), copies)
            self._pending_latency.clear()
        if self._on_commit is not None:
            self._on_commit()

    def aborted(self, *, expected: bool = False) -> None:
        """Undo the open transaction's state effects; ``expected``: the runtime aborted it on
        purpose (for a rebalance, its records to be read again by whoever holds them next,
        or while it waits Kafka out and says so in its own line): said at debug."""
        if self.identity is not None:
            self.identity.aborted()
        undone = len(self.journal)
        self.journal.rollback(self.state)
        self._pending_latency.clear()
        if self.activity is not None:
            self.activity.clear()
        self.outputs.queues.forget()
        self.outputs.limits.expire()  # a limit may have changed under the failed transaction
        if self.temporary_queues is not None and self._forgetting:
            self.temporary_queues.give_back(self._forgetting)
            self._forgetting = set()
        self.metrics.aborts.inc()
        # while Kafka is away the loop says the outage in its own lines, and a rebalance's
        # abort is how exactly once hands records over: neither is news to an operator
        level = logging.DEBUG if expected or kafka_away() else logging.WARNING
        log.log(level, "transaction aborted; %d state change(s) undone", undone)
        if self._on_abort is not None:
            self._on_abort()

    # --- BatchHandler ------------------------------------------------------------------
    def handle(self, batch: Sequence[Any]) -> list[OutRecord]:
        out: list[OutRecord] = []
        self._counts = [0, 0, 0]  # commands, publications, deliveries: added once per batch
        now = self.ctx.clock()  # the engine's clock: replayed plans and the engine agree
        if self.activity is not None:
            self.activity.begin(int(now * 1000))
        if self.temporary_queues is not None:
            self._forget_gone_queues(out)
        for message in batch:
            self._one(message, out, now)
        if self.activity is not None:
            out.extend(self.activity.records())
        for (command, reason), count in self._outcomes.items():
            self.metrics.outcomes.labels(command=command, reason=str(int(reason))).inc(count)
        self._outcomes.clear()
        commands, publications, deliveries = self._counts
        self.metrics.commands.inc(commands)
        self.metrics.publications.inc(publications)
        self.metrics.deliveries.inc(deliveries)
        return out

    def refused(self, message: Any, error: Any) -> OutRecord | None:
        """What to write instead of the records Kafka refused for ``message`` (its dead
        letter, or None): ``RecordFit.refused``."""
        return self.fit.refused(message, error)

    def _forget_gone_queues(self, out: list[OutRecord]) -> None:
        """Before this batch's messages: the subscriptions of temporary dynamic queues deleted
        since the last batch go, in this batch's transaction (reference §9.6)."""
        assert self.temporary_queues is not None
        gone = self.temporary_queues.gone()
        if not gone:
            return
        qmgr = self.ctx.config.qmgr_name
        effects = [
            effect
            for queue in sorted(gone)
            for effect in handle(self.state, QueueDeleted(queue, qmgr), self.ctx)
        ]
        self.journal.apply(self.state, effects)
        for effect in effects:
            out.extend(self.outputs.records(effect, self.ctx.config.control_queue))
        self._forgetting |= gone
        if effects:
            log.info("%d subscription(s) of deleted temporary queue(s) removed", len(effects))

    def _one(self, message: Any, out: list[OutRecord], now: float) -> None:
        topic = message.topic()
        value = message.value() or b""
        headers = message.headers()
        if self.identity is not None:
            checked = self.identity.check(topic, value, headers, now)
            if type(checked) is Refused:
                self._identity_refused(message, topic, value, headers, checked, now, out)
                return
            headers = checked.headers
        rest, msg_id = split_msg_id(headers)  # plans hold for any MsgId: keyed without it
        key = (topic, rest)
        plans = self.plans
        if plans is not None and msg_id is not None:
            plan = plans.find(key, value, self.state.version)
            if plan is not None and len(value) <= plan.max_value:
                self._replay(plan, value, msg_id, message.timestamp()[1], now, out)
                return
        self._through_engine(message, topic, value, headers, now, out, key, msg_id)

    def _identity_refused(
        self,
        message: Any,
        topic: str,
        value: bytes,
        headers: list[tuple[str, bytes]] | None,
        refused: Refused,
        now: float,
        out: list[OutRecord],
    ) -> None:
        """Unproven: a dead letter with the reason. Proven but claiming another's userid:
        answered as a refused command, as its signer."""
        if refused.headers is not None:
            rest, _ = split_msg_id(refused.headers)
            error = MQError(refused.reason, refused.detail, parm="UserIdentifier")
            self._through_engine(
                message, topic, value, refused.headers, now, out, (topic, rest), None, error
            )
            return
        try:
            md, _ = mqmd_from_headers(headers)
        except MQError:
            md = MQMD_DEFAULT
        queue = topic_to_queue(topic, self._namespace)
        dead = self.outputs.dead_letter(md, value, refused.reason, queue, refused.detail)
        self.fit.dead_letter_or_drop(message, dead, refused.reason, out)

    def _through_engine(
        self,
        message: Any,
        topic: str,
        value: bytes,
        headers: list[tuple[str, bytes]] | None,
        now: float,
        out: list[OutRecord],
        key: tuple[str, tuple[Any, ...]],
        msg_id: bytes | None,
        refusal: MQError | None = None,
    ) -> None:
        """Decode, step the engine, write its effects; keep a plan when the answer is plain."""
        plans = self.plans
        queue = self._queue_of.get(topic)
        if queue is None:
            queue = self._queue_of[topic] = topic_to_queue(topic, self._namespace)
        try:
            md, others = mqmd_from_split(headers, key[1], msg_id)
        except MQError as error:
            dead = self.outputs.dead_letter(MQMD_DEFAULT, value, error.reason, queue, error.detail)
            self.fit.dead_letter_or_drop(message, dead, error.reason, out)
            return
        outcomes: list[Processed] = []
        version = self.state.version
        try:
            effects = process_message(
                self.state, value, md, queue, self.ctx, outcomes,
                apply=False, refusal=refusal, reader=self.reader,
                headers=others if others and queue in self._streams else None,
            )  # fmt: skip
        except Exception as error:
            self._engine_failure(message, md, value, queue, error, out)
            return
        # headers that are not the MQMD (trace context, an application's own) go on with the
        # publication to its subscribers (wire contract §2); retained copies sent for a
        # command are not this message's; a Kafka-native Publish's mqpsc.* are its command
        forwarded = others if others and queue in self._streams else None
        if forwarded is not None and has_psc(forwarded):
            forwarded = [header for header in forwarded if not header[0].startswith(PSC_PREFIX)]
        built = self.fit.records(effects, queue, forwarded)
        if built is None:  # a record would not fit its topic: answered before anything is written
            effects, built = self.fit.refit(message, queue, effects, outcomes, forwarded)
        try:
            self.journal.apply(self.state, effects)
        except Exception as error:
            self._engine_failure(message, md, value, queue, error, out)
            return
        counts = self._counts
        counts[1 if queue in self._streams else 0] += 1
        put_ms = message.timestamp()[1]
        activity = self.activity
        now_ms = int(now * 1000)
        tally = self._outcomes
        command_activity = b""
        for done in outcomes:
            label = (
                done.command.name if done.command is not None else "none",
                done.response.reason,
            )
            tally[label] = tally.get(label, 0) + 1
            if activity is not None:
                command_activity = activity.command(done, len(value), put_ms, now_ms)
        start = len(out)
        delivery_activity: list[bytes] = []
        copies = 0
        for effect, record in zip(effects, built, strict=True):  # one record per effect
            kind = type(effect)
            out.append(record)
            if kind is Deliver:
                copies += 1
                delivery_activity.append(
                    b""
                    if activity is None
                    else activity.delivery(
                        effect,  # type: ignore[arg-type]
                        md,
                        len(record.value or b""),
                        put_ms,
                        now_ms,
                    )
                )
            elif kind is Reply:
                self.metrics.replies.labels(reason=str(effect.response.reason)).inc()  # type: ignore[union-attr]
            elif kind is DeadLetter:
                self.metrics.dead_letters.labels(reason=str(effect.reason)).inc()  # type: ignore[union-attr]
        if copies:
            counts[2] += copies
            pending = self._pending_latency
            pending[put_ms] = pending.get(put_ms, 0) + copies
        if plans is not None and msg_id is not None and version == self.state.version:
            plan = plans.keep(
                key, value, version, outcomes, effects, out[start:],
                self.outputs.dead_letter_topic, command_activity, delivery_activity,
            )  # fmt: skip
            if plan is not None:
                plan.max_value = self.fit.max_value(plan)

    def _engine_failure(
        self,
        message: Any,
        md: MQMD,
        value: bytes,
        queue: str,
        error: Exception,
        out: list[OutRecord],
    ) -> None:
        log.exception("engine failure on %s offset %s", message.topic(), message.offset())
        dead = self.outputs.dead_letter(md, value, RC.CF_COMMAND_FAILED, queue, repr(error))
        self.fit.dead_letter_or_drop(message, dead, RC.CF_COMMAND_FAILED, out)

    def _replay(
        self,
        plan: Plan,
        value: bytes,
        pub_msg_id: bytes,
        put_ms: int,
        now: float,
        out: list[OutRecord],
    ) -> None:
        """The kept answer again, for this message's body (see ``mqkafka.service.plans``)."""
        body = value[plan.length :]
        counts = self._counts
        counts[1] += 1
        tally = self._outcomes
        tally[plan.label] = tally.get(plan.label, 0) + 1
        copies = plan.copies
        if copies:
            msg_id = self.ctx.ids.msg_id
            plans = self.plans
            assert plans is not None  # a plan was found
            put = plans.put_headers(now)
            for copy in copies:
                out.append(copy.record(msg_id(), put, body))
            counts[2] += len(copies)
            pending = self._pending_latency
            pending[put_ms] = pending.get(put_ms, 0) + len(copies)
        activity = self.activity
        if activity is None:
            return
        template = plan.template
        if template is not None:
            # a fan-out-1 plan's events, nearly every replay's: its template filled in by the
            # recorder's blocks (compiled, one call; the MsgId is 24 bytes: split_msg_id)
            activity.fan_out_1(template, pub_msg_id, put_ms, value, copies[0].head, body)
        else:
            activity.replayed(plan, pub_msg_id, put_ms, len(value))
