"""The stream queues ``mqk serve --stream NAME`` reads: their MAXDEPTH made MQ's largest.

MQPUT's MAXDEPTH gate (``putlimits``) counts a queue's depth as its share group's lag. The
broker service reads a stream with its own consumer group, so that lag only grows, and after
MAXDEPTH publications every MQPUT to the stream would fail MQRC_Q_FULL (2053) however fast
the service drains it. ``SYSTEM.BROKER.*`` is exempt by name (``putlimits.unlimited``); a
stream named on the command line is marked here, at the service's start: its definition gets
MAXDEPTH(999999999), MQ's largest, or is made with it when the queue is not defined, and one
log line says so. Counting a stream's depth as the service's own lag (it fills only when the
service stops draining it) would ask the service's consumer group of every program that
publishes, which a secured cluster does not let an application's user describe.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm.objectadmin import alter_queue
from mqkafka.mqi.kafkaqm.putlimits import unlimited
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

log = logging.getLogger(__name__)

STREAM_MAX_DEPTH = 999_999_999  # MQ's largest MAXDEPTH
DESCRIPTION = "stream queue of the broker service"


def unlimit_streams(qmgr: QueueManager, streams: Iterable[str]) -> list[str]:
    """Give each stream MAXDEPTH(999999999) (module comment); one line logged (and returned)
    per change made or refused, none for a stream that has it already."""
    lines: list[str] = []
    for name in streams:
        if unlimited(name) is not None:
            continue
        try:
            line = _unlimit_racing(qmgr, name)
        except MQError as error:  # the service still serves it; MQPUT may meet MAXDEPTH
            lines.append(f"stream queue {name}: MAXDEPTH left as it is: {error}")
            log.warning("%s", lines[-1])
            continue
        if line is not None:
            lines.append(line)
            log.info("%s", line)
    return lines


def _unlimit_racing(qmgr: QueueManager, name: str) -> str | None:
    try:
        return _unlimit(qmgr, name)
    except MQError as error:  # another worker starting defined it first: it is there now
        if error.reason != RC.OBJECT_ALREADY_EXISTS:
            raise
        return _unlimit(qmgr, name)


def _unlimit(qmgr: QueueManager, name: str) -> str | None:
    conn = qmgr.connection
    conn.replica.sync()
    topic = conn.settings.topic_of(name)
    if conn.replica.lookup(name) is None and conn.admin.partitions_of(topic) is None:
        qmgr.define_queue(name, max_depth=STREAM_MAX_DEPTH, description=DESCRIPTION)
        return f"stream queue {name} defined with MAXDEPTH({STREAM_MAX_DEPTH})"
    definition = conn.definition(name)  # a topic made outside the MQI is adopted
    if definition.is_model:
        return f"stream {name} is a model queue: its MAXDEPTH applies to what MQOPEN makes"
    if definition.max_depth >= STREAM_MAX_DEPTH:
        return None
    alter_queue(conn, name, {"max_depth": STREAM_MAX_DEPTH})
    return (
        f"stream queue {name}: MAXDEPTH({definition.max_depth}) made "
        f"MAXDEPTH({STREAM_MAX_DEPTH}): the broker service drains it, not a share group"
    )


__all__ = ["STREAM_MAX_DEPTH", "unlimit_streams"]
