"""Deferred SPI puts: messages a connection asks the queue manager to hold and to put only
if the connection ends without cancelling them (JMS migration mode's DeregSub for each
subscriber: the broker then forgets a subscriber whose program died)."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

from mqkafka.mq.errors import MQError
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.mqi.rules.structs import MD, PMO

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Held:
    queue: str
    md: MD
    data: bytes


@dataclass
class Deferred:
    """The held messages of one connection, by MsgId."""

    held: dict[bytes, Held] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def hold(self, msg_id: bytes, message: Held) -> None:
        with self._lock:
            self.held[msg_id] = message

    def take(self, msg_id: bytes) -> Held | None:
        """The held message with this MsgId, no longer held (None: none such)."""
        with self._lock:
            return self.held.pop(msg_id, None)

    def release(self, qmgr: QueueManager) -> None:
        """Put what is still held, each outside syncpoint (the connection is ending)."""
        with self._lock:
            pending, self.held = list(self.held.values()), {}
        for message in pending:
            put_now(qmgr, message)


def put_now(qmgr: QueueManager, message: Held) -> None:
    """Put a held message, outside syncpoint; a failure is said, not raised (the
    connection that deferred it is ending or has asked for it)."""
    try:
        qmgr.put1(message.queue, message.data, message.md, PMO(Options=C.MQPMO_NO_SYNCPOINT))
    except MQError as error:
        log.warning("channel: deferred put to %s failed: %s", message.queue, error)
