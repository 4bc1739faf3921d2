"""SPI QUERY, PUT (deferred or not) and ACTIVATE (notes a.9) for JMS migration mode, and
RESERVE: a pool of message ids for a client that puts asynchronously (module asyncput)."""

from __future__ import annotations

import logging
import os

from mqkafka.channel.asyncput import tag_pool
from mqkafka.channel.codec import spi, verbs
from mqkafka.channel.codec.mqstructs import PMO_KIND, md_bytes_fast, parse_md_fast, parse_struct
from mqkafka.channel.deferred import Deferred, Held, put_now
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.mqi.rules.errors import MQMIError
from mqkafka.mqi.rules.structs import MD, PMO

log = logging.getLogger(__name__)


def new_id() -> bytes:
    """A MsgId or CorrelId as a queue manager makes them: ``AMQ `` and 20 unique bytes."""
    return b"AMQ " + os.urandom(20)


def do_spi(
    queue: Queue | None,
    qmgr: QueueManager | None,
    deferred: Deferred,
    order: str,
    api: verbs.ApiHeader,
    rest: bytes,
) -> bytes:
    request = spi.parse_spi(rest, order)
    if request.verb == spi.SPI_QUERY:
        out = spi.spi_reply(request, order, request.inout, spi.query_out(order))
    elif request.verb == spi.SPI_PUT:
        if queue is None:
            raise MQMIError(2, RC.HOBJ_ERROR, f"SPI PUT on handle {api.hobj}")
        out = _put(queue, deferred, order, request)
    elif request.verb == spi.SPI_ACTIVATE:
        mode, msg_id = spi.parse_activate(request, order)
        held = deferred.take(msg_id)
        # DISABLE cancels (JMS, closing a subscriber normally); ENABLE, never seen from JMS,
        # is taken to put the message now
        if held is not None and mode == spi.ACTIVATE_ENABLE and qmgr is not None:
            put_now(qmgr, held)
        out = spi.spi_reply(request, order, request.inout, spi.activate_out(order))
    elif request.verb == spi.SPI_RESERVE:
        _, wanted = spi.parse_reserve(request, order)
        out = spi.spi_reply(request, order, request.inout, spi.reserve_out(order, tag_pool(wanted)))
    else:  # SPI OPEN, GET, SUBSCRIBE ...: normal-mode verbs (command level 600 avoids them)
        raise MQMIError(2, verbs.FUNCTION_NOT_SUPPORTED, f"SPI verb {request.verb}")
    return verbs.reply_body(order, 0, 0, api.hobj, out)


def _put(queue: Queue, deferred: Deferred, order: str, request: spi.SpiRequest) -> bytes:
    put = spi.parse_put(request, order)
    md, md_size = parse_md_fast(request.inout, order, put.md_at)
    version = md.Version
    pmo_wire = parse_struct(PMO_KIND, request.inout, order, put.md_at + md_size)
    pmo = pmo_wire.to_mqi()
    assert isinstance(pmo, PMO)
    pmo.set(Context=0, OriginalMsgHandle=0, NewMsgHandle=0)
    if put.options & spi.SPPI_SYNCPOINT:
        pmo.Options = (pmo.Options | C.MQPMO_SYNCPOINT) & ~C.MQPMO_NO_SYNCPOINT
    log.debug("channel: SPI PUT to %s, options %#x: %r", queue.name, put.options, put.data[:400])
    if put.options & spi.SPPI_DEFERRED:
        # held, with its ids made now: JMS takes the new CorrelId as its subscriber identity
        if pmo.Options & C.MQPMO_NEW_MSG_ID or not any(md.MsgId):
            md.MsgId = new_id()
        if pmo.Options & C.MQPMO_NEW_CORREL_ID:
            md.CorrelId = new_id()
        deferred.hold(md.MsgId, Held(queue.name, MD(**md.get()), put.data))
    else:
        queue.put(put.data, md, pmo)
    end = put.md_at + md_size + pmo_wire.size
    inout = (
        request.inout[: put.md_at]
        + md_bytes_fast(md, order, version)
        + pmo_wire.updated(pmo).to_bytes(order)
        + request.inout[end:]
    )
    return spi.spi_reply(request, order, inout, spi.put_out(order))
