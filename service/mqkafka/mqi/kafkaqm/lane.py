"""One member of a getter's share group (:mod:`.getter`): a ShareConsumer in explicit
acknowledgement mode and the batch its last poll acquired. A lane polls only with that batch
acknowledged, hands its acknowledgements to the client in offset order (the broker refuses
any other), re-subscribes while not yet assigned so that the client sends the heartbeat that
brings its partitions at once rather than a group interval later, tells from its statistics
when it is assigned, and leaves the group without waiting for ever on a close that librdkafka
2.16 sometimes never ends. Which records to hand out, give back or keep is the getter's.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque

from mqkafka.kafka import clients
from mqkafka.kafka.clients import AcknowledgeType, KafkaException
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm.interrupts import Callbacks
from mqkafka.mqi.kafkaqm.queuerecord import Rec
from mqkafka.mqi.kafkaqm.settings import Settings
from mqkafka.mqi.rules.matching import Position

log = logging.getLogger(__name__)

CLOSE_WAIT = 30.0  # seconds MQCLOSE waits for a share consumer to leave its group
STATS_MS = 200
BUSY_RETRY = 0.001  # seconds before the keeper tries again a consumer busy in a call
INF = float("inf")
# Seconds after subscribing at which a lane not yet assigned re-subscribes (same topic): the
# client then sends its next heartbeat at once instead of after the group's interval.
NUDGES = (0.05, 0.3, 1.0, 2.0, 4.0)


class Lane:
    """One ShareConsumer and the batch it holds."""

    def __init__(self, settings: Settings, topic: str, group: str) -> None:
        self.ready_at: float | None = None
        self._callbacks = Callbacks()  # Ctrl-C inside one reaches the program
        self.consumer = clients.share_consumer(
            settings.client,
            {
                "group.id": group,
                "share.acknowledgement.mode": "explicit",
                "max.poll.records": settings.read_ahead,
                "statistics.interval.ms": STATS_MS,
                "stats_cb": self._callbacks.guard(self._stats),
            },
        )
        self.topic = topic
        self.consumer.subscribe([topic])
        self._subscribed_at = time.monotonic()
        self._nudges = deque(NUDGES)
        self.pending: deque[Rec] = deque()  # acquired, not handed out
        self.pinned = 0  # handed out under syncpoint, not yet acknowledged
        self.flowing = False  # the last poll brought records
        self.acquired_after = time.monotonic()
        self._last_return = time.monotonic()
        self.unsent = 0  # acknowledgements not yet committed
        self.last_commit = time.monotonic()
        self._acks: list[tuple[Position, Rec, AcknowledgeType]] = []
        # The keeper thread commits acknowledgements while the application goes on taking
        # from the batch: ``_io`` keeps the consumer to one call at a time, ``_noted`` the
        # acknowledgements noted and counted.
        self._io = threading.Lock()
        self._noted = threading.Lock()
        self.closed = False
        self.consumer.set_acknowledgement_commit_callback(self._callbacks.guard(self._acknowledged))

    def _stats(self, text: str) -> None:
        try:
            cgrp = json.loads(text).get("cgrp") or {}
        except ValueError:
            return
        if cgrp.get("assignment_size", 0) > 0 and self.ready_at is None:
            self.ready_at = time.monotonic()

    @property
    def ready(self) -> bool:
        return self.ready_at is not None

    def fresh(self, lock_margin: float) -> bool:
        """Records of the current batch are still certainly locked to this lane."""
        return time.monotonic() - self.acquired_after < lock_margin

    def _nudge(self) -> float:
        """Re-subscribe when a nudge is due; the seconds until the next one (or inf)."""
        if self.ready_at is not None or not self._nudges:
            return float("inf")
        since = time.monotonic() - self._subscribed_at
        if since >= self._nudges[0]:
            while self._nudges and since >= self._nudges[0]:
                self._nudges.popleft()
            self.consumer.subscribe([self.topic])
        return self._nudges[0] - since if self._nudges else float("inf")

    def poll(self, timeout: float) -> int:
        if self.pending or self.pinned:
            raise AssertionError("a lane polls only with its batch acknowledged")
        with self._io:
            try:
                timeout = max(min(timeout, self._nudge()), 0.0)
                handed = self._hand_over()
                if handed:  # the poll carries them: the keeper has nothing to send meanwhile
                    self._sent(handed, time.monotonic())
                batch = self._callbacks.call(self.consumer.poll, timeout)
            except KafkaException as error:
                raise MQError(RC.CONNECTION_BROKEN, f"share fetch: {error}") from None
        # The batch may have been fetched in the background any time after the last poll
        # returned; that is the lower bound of its acquisition (less a second of slack).
        self.acquired_after = self._last_return - 1.0
        self._last_return = time.monotonic()
        for message in batch:
            if message.error() is None:
                self.pending.append(Rec(message, message.delivery_count()))
        self.flowing = bool(self.pending)
        if self.pending and self.ready_at is None:
            self.ready_at = self._last_return  # records came: it is assigned
        return len(self.pending)

    def ack(self, rec: Rec, kind: AcknowledgeType) -> None:
        """Note how ``rec`` ends; handed to the client in offset order at the next flush."""
        with self._noted:
            self._acks.append((rec.position, rec, kind))
            self.unsent += 1

    def _sent(self, handed: int, at: float) -> None:
        with self._noted:
            self.unsent -= handed
            self.last_commit = at

    def _hand_over(self) -> int:
        # The broker refuses (INVALID_REQUEST) acknowledgements that are not in ascending
        # offset order, and librdkafka 2.16 sends them in the order they were given: sort.
        with self._noted:
            if not self._acks:
                return 0
            acks, self._acks = self._acks, []
        acks.sort(key=lambda a: a[0])
        for _, rec, kind in acks:
            self.consumer.acknowledge(rec.msg, kind)
        return len(acks)

    def _acknowledged(self, offsets: object, error: object) -> None:
        if error is not None:  # the records come back to the queue: said loudly
            log.warning("Kafka refused acknowledgements %s: %s", offsets, error)

    def commit(self, sync: bool = True) -> None:
        """Send the acknowledgements and wait for the answer. Always synchronous: librdkafka
        merges the acknowledgements of an unsent asynchronous commit with later ones into
        one request, out of offset order, which the broker refuses (INVALID_REQUEST)."""
        if not self.unsent:
            return
        with self._io:
            self._commit()

    def commit_due(self, gap: float) -> float:
        """The keeper's commit, never waiting on a call of the application's: the
        acknowledgements are sent if the last were at least ``gap`` seconds ago and the
        consumer is free. Answers the seconds after which to try again (inf: none wait)."""
        if not self.unsent:
            return INF
        since = time.monotonic() - self.last_commit
        if since < gap:
            return gap - since
        if not self._io.acquire(False):
            return min(gap, BUSY_RETRY)  # in a poll (which carries them) or a commit
        try:
            self._commit()
        finally:
            self._io.release()
        # noted while that commit was in flight: their first one woke no one
        return gap if self.unsent and not self.closed else INF

    def _commit(self) -> None:
        if self.closed:
            return
        try:
            handed = self._hand_over()
            if not handed:
                return  # a poll or another commit carried them
            self._callbacks.call(self.consumer.commit_sync, 30)
        except KafkaException as error:
            raise MQError(RC.CONNECTION_BROKEN, f"share acknowledge: {error}") from None
        self._sent(handed, time.monotonic())

    def close(self) -> None:
        """Leave the share group, waiting at most ``CLOSE_WAIT`` seconds: librdkafka 2.16's
        share consumer close sometimes never returns after the member has left (seen at
        MQCLOSE under load: the broker logged the leave, the close waited on). What it
        acknowledged is committed before (``commit``), so only the leaving is left behind."""
        with self._io:
            self.closed = True
            try:
                self._sent(self._hand_over(), time.monotonic())
            except KafkaException as error:
                log.debug("closing a share consumer: %s", error)
        done = threading.Event()

        def leave() -> None:
            try:
                self.consumer.close()
            except KafkaException as error:  # the group may be gone with its queue
                log.debug("closing a share consumer: %s", error)
            finally:
                done.set()

        threading.Thread(target=leave, name="mqk-mqi-close", daemon=True).start()
        if not done.wait(CLOSE_WAIT):
            log.warning("a share consumer of %s did not close in %.0f s", self.topic, CLOSE_WAIT)


__all__ = ["Lane"]
