"""The broker's batch handler: consumed records → engine → records to write.

One instance serves the control queue and the stream queues assigned to this worker; the
transactional loop around it writes what ``handle`` returns, with the input offsets, in one
transaction. State effects are applied at once (so later commands of the batch see them)
through a journal that undoes them if the transaction aborts.

Nothing a record contains stops the partition: a record whose headers are not an MQMD goes to
the dead-letter queue with MQRC_MD_ERROR; a command the engine rejects is answered (or dead-
lettered) with its reason by the engine; an unexpected failure inside the engine for one
record dead-letters that record with MQRCCF_COMMAND_FAILED and the error, and the batch goes on.
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
from mqkafka.kafka.txloop import OutRecord
from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import MQMD_DEFAULT
from mqkafka.mq.reasons import RC
from mqkafka.service.journal import Journal
from mqkafka.service.metrics import Metrics
from mqkafka.service.outputs import Outputs
from mqkafka.service.replica import StateReplica
from mqkafka.wire.headers import mqmd_from_headers
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
        self._pending_latency: list[float] = []
        self._on_commit = on_commit
        self._counts = [0, 0, 0]
        self.activity = activity
        self._outcomes: dict[tuple[str, int], int] = {}

    # --- StateHooks --------------------------------------------------------------------
    def before_batch(self) -> None:
        applied = self.replica.catch_up()
        if applied:
            self.metrics.replica_records.inc(applied)

    def committed(self) -> None:
        self.journal.clear()
        if self._pending_latency:
            now = time.time()
            observe = self.metrics.delivery_latency.observe
            for put_at in self._pending_latency:
                observe(max(0.0, now - put_at))
            self._pending_latency.clear()
        if self._on_commit is not None:
            self._on_commit()

    def aborted(self) -> None:
        undone = len(self.journal)
        self.journal.rollback(self.state)
        self._pending_latency.clear()
        self.metrics.aborts.inc()
        log.warning("transaction aborted; %d state change(s) undone", undone)

    # --- BatchHandler ------------------------------------------------------------------
    def handle(self, batch: Sequence[Any]) -> list[OutRecord]:
        out: list[OutRecord] = []
        self._counts = [0, 0, 0]  # commands, publications, deliveries: added once per batch
        for message in batch:
            self._one(message, out)
        for (command, reason), count in self._outcomes.items():
            self.metrics.outcomes.labels(command=command, reason=str(int(reason))).inc(count)
        self._outcomes.clear()
        commands, publications, deliveries = self._counts
        self.metrics.commands.inc(commands)
        self.metrics.publications.inc(publications)
        self.metrics.deliveries.inc(deliveries)
        return out

    def _one(self, message: Any, out: list[OutRecord]) -> None:
        topic = message.topic()
        queue = self._queue_of.get(topic)
        if queue is None:
            queue = self._queue_of[topic] = topic_to_queue(topic, self._namespace)
        value = message.value() or b""
        try:
            md, _others = mqmd_from_headers(message.headers())
        except MQError as error:
            out.append(
                self.outputs.dead_letter(MQMD_DEFAULT, value, error.reason, queue, error.detail)
            )
            self.metrics.dead_letters.labels(reason=str(error.reason)).inc()
            return
        outcomes: list[Processed] = []
        try:
            effects = process_message(self.state, value, md, queue, self.ctx, outcomes)
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
        put_at = put_ms / 1000.0
        records = self.outputs.records
        activity = self.activity
        now_ms = int(time.time() * 1000) if activity is not None else 0
        tally = self._outcomes
        for done in outcomes:
            label = (
                done.command.name if done.command is not None else "none",
                done.response.reason,
            )
            tally[label] = tally.get(label, 0) + 1
            if activity is not None:
                out.append(activity.command(done, len(value), put_ms, now_ms))
        for effect in effects:
            kind = type(effect)
            if kind is Deliver:
                counts[2] += 1
                self._pending_latency.append(put_at)
                if activity is not None:
                    start = len(out)
                    out.extend(records(effect, queue))
                    copy = out[start]
                    out.append(
                        activity.delivery(
                            effect,  # type: ignore[arg-type]
                            md,
                            len(copy.value or b""),
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
