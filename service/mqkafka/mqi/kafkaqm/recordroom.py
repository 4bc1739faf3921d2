"""How large a record each queue's topic takes, known before the put's record is produced.

The broker refuses a record batch larger than the topic's ``max.message.bytes``. A
persistent put waits for Kafka's answer and fails MQRC_MSG_TOO_BIG_FOR_Q (2030); nothing
waits for a non-persistent one, which was lost without a word. So MQPUT measures the record
first, as MQ checks MAXMSGL: the topic's limit is asked (``describe_configs``) on a
connection's first put to the queue (``putlimits.check_room``) when this process has not
asked it in ``REFRESH`` seconds, and kept per topic for the whole process. The measure is
that of ``service/limits.py``, an upper bound (never less than Kafka's): the record's framing
bound, key, value and headers, plus a batch header of its own; uncompressed, as MAXMSGL
counts a message. A topic whose limit is not known (its configuration not describable by
this user, or the cluster not answering) is not measured: the broker still decides, and a
non-persistent record it refuses is logged, one line naming the queue and the MsgId (or,
for a record that was measured, the putting connection's key and the length: comment
above ``reported``), and counted (``lost``). A record larger than the producer's own
``message.max.bytes`` too is left to ``produce()``, which refuses it at once: the queue
manager's limit, 2031, comes before the queue's, as MQ checks them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from mqkafka.kafka import topicadmin
from mqkafka.kafka.clients import MAX_RECORD_BYTES
from mqkafka.mq.reasons import RC
from mqkafka.mqi.rules.errors import failed
from mqkafka.wire.headers import MSG_ID_HEADER

log = logging.getLogger(__name__)

# as service/limits.py counts a record (librdkafka's framing bound; two varints per header;
# the v2 batch header counted against max.message.bytes)
RECORD_OVERHEAD = 36
HEADER_OVERHEAD = 10
BATCH_OVERHEAD = 61
# A value this much under the room fits with any key and MQMD headers (under 1,900 bytes at
# their longest): the headers are measured only for a value closer to the limit, or where
# there are more of them than an MQMD's (message properties).
HEADROOM = 4096
MQMD_HEADERS = 24
REFRESH = 300.0  # seconds a topic's limit is kept before a new connection asks it again

# topic -> (largest record it takes, with its batch header; None: not known), when asked
_rooms: dict[str, tuple[int | None, float]] = {}
producer_max = MAX_RECORD_BYTES  # the producer's limit, as the last asker said
_queues: dict[str, str] = {}  # topic -> queue name, for the lost record's line
lost = 0  # non-persistent records Kafka refused after MQPUT had returned, in this process


def needs_asking(topic: str, now: float) -> bool:
    known = _rooms.get(topic)
    return known is None or now - known[1] >= REFRESH


def learn(admin: Any, queue: str, topic: str, timeout: float, producer: int) -> None:
    """Ask the topic's ``max.message.bytes`` (``admin``: an AdminClient); a topic that cannot
    be described is taken as unknown, and asked again ``REFRESH`` seconds later. ``producer``:
    the asking connection's producer's ``message.max.bytes``."""
    global producer_max
    _queues[topic] = queue
    producer_max = producer
    room: int | None = None
    try:
        setting = topicadmin.topic_configs(admin, [topic], timeout)[topic]["max.message.bytes"]
        room = int(setting) - BATCH_OVERHEAD
    except Exception as error:  # any failure (a refused describe, no answer): Kafka decides
        log.debug("max.message.bytes of %s not known: %s", topic, error)
    _rooms[topic] = (room, time.monotonic())


def check_fits(
    topic: str, data: bytes, key: bytes | None, headers: Sequence[tuple[str, bytes]]
) -> bool:
    """MQRC_MSG_TOO_BIG_FOR_Q where the record would be larger than ``topic`` takes; else
    whether it was measured (False: the topic's limit is not known)."""
    known = _rooms.get(topic)
    if known is None or known[0] is None:
        return False
    room = known[0]
    if len(data) + HEADROOM <= room and len(headers) <= MQMD_HEADERS:
        return True
    size = RECORD_OVERHEAD + len(data) + len(key or b"")
    for name, value in headers:
        size += len(name) + len(value or b"") + HEADER_OVERHEAD  # names are ASCII
    if room < size <= producer_max:  # larger than both: produce() says 2031
        raise failed(
            RC.MSG_TOO_BIG_FOR_Q,
            f"{len(data)} bytes: a record of {size} bytes, more than the queue's topic "
            f"takes (max.message.bytes {room + BATCH_OVERHEAD})",
        )
    return True


# A non-persistent record's delivery report says something only of a refusal. The report's
# message carries no headers, so the MsgId must be kept beside the record, at a cost: a
# callable per record held until its report (+~4 us of the putting thread's CPU per MQPUT,
# on ~5, the pending closures' collection). Only records not measured (``check_fits``
# False) pay it; a measured one Kafka still refuses (its topic's limit lowered since it was
# asked, Kafka away longer than message.timeout.ms) is logged by ``reported``, one module
# function for all, with the queue, the key (the putting connection) and the length.


def reported(error: Any, message: Any) -> None:
    """A measured non-persistent record's delivery report."""
    if error is not None:
        topic = message.topic()
        _lost(error, topic, f"{len(message.value() or b'')} bytes, key {message.key()!r}")


def reporter(topic: str, headers: Sequence[tuple[str, bytes]]) -> Callable[[Any, Any], None]:
    """The delivery report of a record not measured, which names its MsgId."""

    def report(error: Any, _message: Any) -> None:
        if error is not None:
            msg_id = next((v for n, v in headers if n == MSG_ID_HEADER), b"")
            _lost(error, topic, f"MsgId {(msg_id or b'').hex()}")

    return report


def _lost(error: Any, topic: str, which: str) -> None:
    global lost
    lost += 1
    queue = _queues.get(topic, topic)
    log.error("non-persistent message lost: queue %s refused it (%s): %s", queue, which, error)


__all__ = ["check_fits", "learn", "lost", "needs_asking", "reported", "reporter"]
