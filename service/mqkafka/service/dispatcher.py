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
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from mqkafka.activity.builder import ActivityRecorder
from mqkafka.engine.codec import process_message
from mqkafka.engine.context import EngineContext
from mqkafka.engine.effects import DeadLetter, Deliver, Processed, Reply
from mqkafka.engine.state import EngineState
from mqkafka.engine.unsubscribe import forget_queue
from mqkafka.kafka.txloop import OutRecord
from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import MQMD_DEFAULT
from mqkafka.mq.reasons import RC
from mqkafka.service.journal import Journal
from mqkafka.service.metrics import Metrics
from mqkafka.service.outputs import Outputs
from mqkafka.service.plans import Plan, PublicationPlans, put_headers
from mqkafka.service.replica import StateReplica
from mqkafka.service.tempqueues import TemporaryQueueWatch
from mqkafka.wire.headers import mqmd_from_split, split_msg_id
from mqkafka.wire.names import topic_to_queue

log = logging.getLogger(__name__)


class Dispatcher:
    def __init__(
        self,
        *,
        state: EngineState,
        ctx: EngineContext,
        replica: StateReplica,
        outputs: Outputs,
        metrics: Metrics,
        namespace: str = "",
        on_commit: Any = None,
        activity: ActivityRecorder | None = None,
        plans: bool = True,
        temporary_queues: TemporaryQueueWatch | None = None,
    ) -> None:
        self.state = state
        self.ctx = ctx
        self.replica = replica
        self.outputs = outputs
        self.metrics = metrics
        self.journal = Journal()
        self._namespace = namespace
        self._queue_of: dict[str, str] = {}
        self._streams = ctx.config.streams
        self._pending_latency: list[tuple[float, int]] = []  # (put time, copies)
        self._on_commit = on_commit
        self._counts = [0, 0, 0]
        self.activity = activity
        self.plans = PublicationPlans() if plans else None
        self._outcomes: dict[tuple[str, int], int] = {}
        self.temporary_queues = temporary_queues
        self._forgetting: set[str] = set()  # gone queues whose subscriptions this batch removes

    # --- StateHooks --------------------------------------------------------------------
    def before_batch(self) -> None:
        applied = self.replica.catch_up()
        if applied:
            self.metrics.replica_records.inc(applied)

    def committed(self) -> None:
        self.journal.clear()
        self._forgetting = set()
        if self._pending_latency:
            now = time.time()
            observe = self.metrics.delivery_latency.observe
            for put_at, copies in self._pending_latency:
                observe(max(0.0, now - put_at), copies)
            self._pending_latency.clear()
        if self._on_commit is not None:
            self._on_commit()

    def aborted(self) -> None:
        undone = len(self.journal)
        self.journal.rollback(self.state)
        self._pending_latency.clear()
        if self.activity is not None:
            self.activity.blocks.clear()
        self.outputs.queues.forget()
        if self.temporary_queues is not None and self._forgetting:
            self.temporary_queues.give_back(self._forgetting)
            self._forgetting = set()
        self.metrics.aborts.inc()
        log.warning("transaction aborted; %d state change(s) undone", undone)

    # --- BatchHandler ------------------------------------------------------------------
    def handle(self, batch: Sequence[Any]) -> list[OutRecord]:
        out: list[OutRecord] = []
        self._counts = [0, 0, 0]  # commands, publications, deliveries: added once per batch
        now = self.ctx.clock()  # the engine's clock: replayed plans and the engine agree
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

    def _forget_gone_queues(self, out: list[OutRecord]) -> None:
        """Before this batch's messages: the subscriptions of temporary dynamic queues deleted
        since the last batch go, in this batch's transaction (reference §9.6)."""
        assert self.temporary_queues is not None
        gone = self.temporary_queues.gone()
        if not gone:
            return
        qmgr = self.ctx.config.qmgr_name
        effects = [e for queue in sorted(gone) for e in forget_queue(self.state, queue, qmgr)]
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
        rest, msg_id = split_msg_id(headers)  # plans hold for any MsgId: keyed without it
        key = (topic, rest)
        plans = self.plans
        if plans is not None and msg_id is not None:
            plan = plans.find(key, value, self.state.version)
            if plan is not None:
                self._replay(plan, value, msg_id, message.timestamp()[1], now, out)
                return
        self._through_engine(message, topic, value, headers, now, out, key, msg_id)

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
    ) -> None:
        """Decode, step the engine, write its effects; keep a plan when the answer is plain."""
        plans = self.plans
        queue = self._queue_of.get(topic)
        if queue is None:
            queue = self._queue_of[topic] = topic_to_queue(topic, self._namespace)
        try:
            md, others = mqmd_from_split(headers, key[1], msg_id)
        except MQError as error:
            out.append(
                self.outputs.dead_letter(MQMD_DEFAULT, value, error.reason, queue, error.detail)
            )
            self.metrics.dead_letters.labels(reason=str(error.reason)).inc()
            return
        outcomes: list[Processed] = []
        version = self.state.version
        try:
            effects = process_message(self.state, value, md, queue, self.ctx, outcomes, apply=False)
            self.journal.apply(self.state, effects)
        except Exception as error:
            log.exception("engine failure on %s offset %s", topic, message.offset())
            out.append(
                self.outputs.dead_letter(md, value, RC.CF_COMMAND_FAILED, queue, repr(error))
            )
            self.metrics.dead_letters.labels(reason=str(int(RC.CF_COMMAND_FAILED))).inc()
            return
        counts = self._counts
        counts[1 if queue in self._streams else 0] += 1
        put_ms = message.timestamp()[1]
        records = self.outputs.records
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
        # headers that are not the MQMD (trace context, an application's own) go on with the
        # publication to its subscribers (wire contract §2); retained copies sent for a
        # command are not this message's
        forwarded = others if others and queue in self._streams else None
        for effect in effects:
            kind = type(effect)
            if kind is Deliver:
                copies += 1
                first = len(out)
                out.extend(records(effect, queue))
                if forwarded is not None:
                    for at in range(first, len(out)):
                        copy = out[at]
                        out[at] = copy._replace(headers=[*(copy.headers or ()), *forwarded])
                delivery_activity.append(
                    b""
                    if activity is None
                    else activity.delivery(
                        effect,  # type: ignore[arg-type]
                        md,
                        len(out[first].value or b""),
                        put_ms,
                        now_ms,
                    )
                )
                continue
            elif kind is Reply:
                self.metrics.replies.labels(reason=str(effect.response.reason)).inc()  # type: ignore[union-attr]
            elif kind is DeadLetter:
                self.metrics.dead_letters.labels(reason=str(effect.reason)).inc()  # type: ignore[union-attr]
            out.extend(records(effect, queue))
        if copies:
            counts[2] += copies
            self._pending_latency.append((put_ms / 1000.0, copies))
        if plans is not None and msg_id is not None and version == self.state.version:
            plans.keep(
                key, value, version, outcomes, effects, out[start:],
                self.outputs.dead_letter_topic, command_activity, delivery_activity,
            )  # fmt: skip

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
            put = put_headers(now)
            for copy in copies:
                out.append(copy.record(msg_id(), put, body))
            counts[2] += len(copies)
            self._pending_latency.append((put_ms / 1000.0, len(copies)))
        activity = self.activity
        if activity is not None:
            activity.replayed(
                plan,
                pub_msg_id,
                plan.activity,
                plan.copy_events,
                int(now * 1000),
                put_ms,
                len(value),
                len(body),
            )
