"""A run of MQPUTs through one handle, each with the same MQMD but for the MsgId it gives, and
no MQPMO (the listener's asynchronous puts: IBM's client sends them back to back, each MQMD
its last one's but for a MsgId of its own pool).

Each put's outcome is MQPUT's (``transfer.put``): a put before the handle has a template
for the MQMD's shape (the first of its first run), and any put whose MsgId is blank or
that MQPUT would not put by a template, is ``transfer.put`` itself; the others are the
template's put (``transfer._put_templated``) after the checks MQPUT makes on every call
whose answer can change from one put to the next (the connection, the handle, the queue
deleted or put-inhibited, the message's length, MAXDEPTH, the topic's room), with the
per-call work whose answer cannot left out: the options, the MQMD's shape and template
looked up, the MQMD filled back (an async put is answered by none). That work was ~3 us of
the ~9 us an async put cost the listener's thread, which the Python MQI does not pay twice
(its program makes one call per put). tests/integration/mqi/test_mqi_putpaths.py holds the
records to those of ``transfer.put``, over two runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm import transfer
from mqkafka.mqi.kafkaqm.connection import Connection
from mqkafka.mqi.kafkaqm.handle import Handle
from mqkafka.mqi.kafkaqm.putlimits import check_qmgr_length, check_room
from mqkafka.mqi.kafkaqm.putwrite import produce_put
from mqkafka.mqi.rules.errors import failed
from mqkafka.mqi.rules.structs import MD

Item = tuple[bytes, bytes]  # the message's data, the MsgId its MQMD gives


def put_run(
    conn: Connection, handle: Handle, md: MD, items: Sequence[Item]
) -> tuple[int, MQError | None]:
    """MQPUT of each item in turn with ``md`` (its MsgId the item's) and no MQPMO; the puts
    made before the first that raised, and its error (None: all were put; a warning, comp 1,
    is a put made that raised)."""
    fields = md.__dict__
    shape = tuple({**fields, "MsgId": None}.values())  # transfer.put's key for a given MsgId
    # an earlier run's template serves this one's first put too (the listener's runs are
    # a receive's worth, ~25 puts: a transfer.put each was ~4% of its puts' CPU)
    template = None if transfer._deletable_by_others(conn, handle) else handle.md_puts.get(shape)
    # what no put of the run changes, looked up once (the producer property takes a lock
    # each time it is read: the keeper started, which one read does)
    usable, now = transfer._usable, conn.clock.now
    max_length, topic = handle.traits.max_msg_length, handle.topic
    producer = None
    done = 0
    try:
        for data, msg_id in items:
            if template is None or not any(msg_id):
                one = MD.__new__(MD)
                one.__dict__.update(fields)
                one.MsgId = msg_id
                transfer.put(conn, handle, data, one, None)
                done += 1
                if not transfer._deletable_by_others(conn, handle):
                    template = handle.md_puts.get(shape)  # None: each put MQPUT's own
                continue
            # transfer.put, for a template's put of an MQMD with its MsgId given
            definition = usable(conn, handle, "inhibit_put")
            size = len(data)
            check_qmgr_length(size)
            if size > max_length:
                raise failed(RC.MSG_TOO_BIG_FOR_Q, f"{size} bytes")
            check_room(conn, handle, definition.max_depth)
            date, stamp = now()
            headers = template.stamped(msg_id, date, stamp)
            if producer is None:
                producer = conn.producer
            key = template.key or conn.key
            produce_put(producer, topic, data, key, headers, template.persistent)
            done += 1
    except MQError as error:
        return done, error
    return done, None


__all__ = ["put_run"]
