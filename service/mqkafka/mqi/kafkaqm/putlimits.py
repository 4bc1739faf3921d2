"""What MQPUT refuses for the queue's and the queue manager's limits, as a queue manager does.

MAXMSGL: a message longer than the queue manager's MaxMsgLength (``QMGR_MAX_MSG_LENGTH``,
what MQINQ of the queue manager answers) is MQRC_MSG_TOO_BIG_FOR_Q_MGR 2031, checked before
the queue's MAXMSGL (2030, ``putmd.prepare``). Kafka has limits of its own: the producer's
``message.max.bytes`` (refused at ``produce()``) is this queue manager's, 2031; the topic's
``max.message.bytes`` is the queue's, 2030: measured before the record is produced
(``recordroom``, its limit asked beside the depth on a connection's first put to the queue),
and where the broker still refuses a persistent put (:func:`too_big`).

MAXDEPTH: MQRC_Q_FULL (2053) once the queue holds MAXDEPTH messages, without asking Kafka on
every put.

A queue's depth lives in Kafka (its share group's lag), not in this process: asking it costs a
round trip or more (``QueueAdmin.depth``), and an exact count (``Connection.current_depth``,
CURDEPTH as MQ counts it, uncommitted puts too) reads the queue's records. So each connection
keeps, per queue, a :class:`DepthGate`: the share group's lag (cheap, never less than the
depth; ``QueueAdmin.depth`` answered in 3 ms, 48 ms once the share group had started, on the
development machine), asked in the background at most every ``WINDOW`` seconds, plus the puts
this connection made since the ask; a put waits for it only on the connection's first put to
the queue. Only when that figure reaches MAXDEPTH is the exact count asked, in the put, and
only a count that reaches it refuses; the refusal stands until the next lag comes, so a program
retrying on a full queue counts at most once a window.

What this admits beyond MAXDEPTH: another connection's puts and gets since the last ask (a put
may exceed MAXDEPTH by what the other connections put in ``WINDOW`` seconds plus an ask's
time, and a put may be refused that long after a get made room), and this connection's
non-persistent puts still in the producer's buffer when the lag was asked (``linger.ms``, 5
ms). The pure part, :func:`admit` and :func:`refresh`, is tested without Kafka.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from mqkafka.kafka.clients import KafkaError, KafkaException, producer_max_bytes
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm.recordroom import learn, needs_asking
from mqkafka.mqi.rules.catalogue import DEFAULT_MAX_MSG_LENGTH
from mqkafka.mqi.rules.errors import MQMIError, failed

if TYPE_CHECKING:
    from mqkafka.mqi.kafkaqm.connection import Connection
    from mqkafka.mqi.kafkaqm.handle import Handle

WINDOW = 0.1  # seconds a depth asked of Kafka stands for this connection's puts
SERVICE_INPUTS = "SYSTEM.BROKER."  # the control queue and the default and admin streams
QMGR_MAX_MSG_LENGTH = DEFAULT_MAX_MSG_LENGTH  # the queue manager's MAXMSGL (MQINQ answers it)


def check_qmgr_length(length: int) -> None:
    if length > QMGR_MAX_MSG_LENGTH:
        raise failed(
            RC.MSG_TOO_BIG_FOR_Q_MGR, f"{length} bytes, MaxMsgLength {QMGR_MAX_MSG_LENGTH}"
        )


def too_big(error: KafkaException | KafkaError | None, length: int, *, queued: bool) -> MQMIError:
    """A put Kafka refused, as MQ's reason: larger than Kafka takes is 2031 where the producer
    refused it (``queued``: at ``produce()``), 2030 where the topic's broker did; anything
    else is the connection's failure, 2009."""
    kafka_error = error.args[0] if isinstance(error, KafkaException) and error.args else error
    code = kafka_error.code() if isinstance(kafka_error, KafkaError) else None
    if code == KafkaError.MSG_SIZE_TOO_LARGE:
        reason = RC.MSG_TOO_BIG_FOR_Q_MGR if queued else RC.MSG_TOO_BIG_FOR_Q
        return failed(reason, f"{length} bytes: larger than Kafka takes ({kafka_error})")
    return failed(RC.CONNECTION_BROKEN, f"put: {error}")


@dataclass
class DepthGate:
    """One connection's view of one queue's depth: at the last ask, plus its puts since."""

    asked_at: float = -math.inf
    depth: int = 0
    exact: bool = False  # ``depth`` came from the exact count (and this connection's puts)
    limited: bool = True  # False: a queue whose MAXDEPTH is not enforced (``unlimited``)
    puts: int = 0  # this connection's puts through the gate, ever
    asking: Future[int] | None = None  # the lag being asked, in the background
    puts_at_ask: int = 0


def refresh(gate: DepthGate, now: float, lag: int) -> None:
    """A lag asked at ``gate.asked_at`` has come: the depth is it plus the puts since."""
    gate.depth = lag + gate.puts - gate.puts_at_ask
    gate.exact = False
    gate.asking = None


def admit(gate: DepthGate, max_depth: int, count: Callable[[], int]) -> bool:
    """Whether one more message may be put; counts it when so. A figure at MAXDEPTH that
    came from the lag (an upper bound of the depth) is confirmed by ``count``, the exact
    depth, before it refuses."""
    if gate.depth >= max_depth and not gate.exact:
        gate.depth = count()
        gate.exact = True
    if gate.depth >= max_depth:
        return False
    gate.depth += 1
    gate.puts += 1
    return True


_ASKER = ThreadPoolExecutor(2, thread_name_prefix="mqk-depth")


def check_room(conn: Connection, handle: Handle, max_depth: int) -> None:
    """MQRC_Q_FULL where ``handle``'s queue is full for one more put by ``conn`` (module
    comment); else the put is counted."""
    gate = conn.depth_gates.get(handle.name)
    if gate is None:
        gate = conn.depth_gates[handle.name] = DepthGate(limited=unlimited(handle.name) is None)
        now = time.monotonic()
        room = None  # the topic's max.message.bytes, asked beside the depth (recordroom)
        if needs_asking(handle.topic, now):
            admin, producer = conn.admin, _producer_max(conn)
            room = _ASKER.submit(
                learn, admin.client, handle.name, handle.topic, admin.timeout, producer
            )
        if gate.limited:  # the first put waits for the depth; later ones ask ahead
            gate.asked_at = now
            refresh(gate, gate.asked_at, _lag(conn, handle))
        if room is not None:
            room.result()
    if not gate.limited:
        return
    asking = gate.asking
    if asking is not None and asking.done():
        if asking.exception() is None:
            refresh(gate, gate.asked_at, asking.result())
        else:  # Kafka did not answer: the figure stands, asked again a window later
            gate.asking = None
    now = time.monotonic()
    if gate.asking is None and now - gate.asked_at >= WINDOW:
        gate.asked_at, gate.puts_at_ask = now, gate.puts
        gate.asking = _ASKER.submit(_lag, conn, handle)
    if gate.depth < max_depth:  # admit's common case, spelled out: this runs on every put
        gate.depth += 1
        gate.puts += 1
        return
    count = partial(conn.current_depth, handle.name, handle.topic, handle.group)
    if not admit(gate, max_depth, count):
        raise failed(RC.Q_FULL, f"{handle.name} holds MAXDEPTH {max_depth} messages")


def _producer_max(conn: Connection) -> int:
    return producer_max_bytes(conn.settings.client, conn.settings.producer_config)


def _lag(conn: Connection, handle: Handle) -> int:
    """The share group's lag (``QueueAdmin.depth``), and this connection's puts under
    syncpoint not yet committed (Kafka's lag does not see them)."""
    # the puts first: a commit between the two reads then counts them twice, never not at
    # all (read after, a commit during the ask hid them: a put after MQCMIT passed MAXDEPTH)
    own = conn.uow.puts.get(handle.name, 0)
    return conn.admin.depth(handle.topic, handle.group, partitions=handle.partitions) + own


def unlimited(name: str) -> str | None:
    """Why queue ``name``'s MAXDEPTH is not enforced, or None: the broker service reads the
    control queue and the streams with a consumer group, not the share group whose lag is a
    queue's depth, so their lag only grows (a stream ``mqk serve --stream`` names is given
    MAXDEPTH 999999999 in the catalogue when the service starts: ``streamqueues``)."""
    return "read by the broker service" if name.startswith(SERVICE_INPUTS) else None
