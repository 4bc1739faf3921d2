"""MQPUT, MQPUT1 and MQGET bodies (notes a.7) onto the MQI's Queue and QueueManager.

MQPUT: MQMD, MQPMO, data length, data; the reply gives the MQMD and MQPMO back with what the
put filled in (MsgId, put date and time ...) and data length 0 (the data need not come
back). MQPUT1 adds the MQOD in front. MQGET: MQMD, MQGMO, buffer length; the reply is the
message's MQMD, the MQGMO, the message's whole length, and at most a buffer of data.
"""

from __future__ import annotations

import logging
import struct

from mqkafka.channel.codec import verbs
from mqkafka.channel.codec.mqstructs import (
    GMO_KIND,
    OD_KIND,
    PMO_KIND,
    WireStruct,
    md_bytes_fast,
    parse_md_fast,
    parse_struct,
)
from mqkafka.channel.codec.segments import STATUS_INVALID_DATA, ChannelError
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.mqi.rules.errors import MQMIError
from mqkafka.mqi.rules.structs import GMO, MD, OD, PMO

log = logging.getLogger(__name__)

SET_CONTEXT_PMO = C.MQPMO_SET_IDENTITY_CONTEXT | C.MQPMO_SET_ALL_CONTEXT
RESPONSE_TYPES = C.MQPMO_SYNC_RESPONSE | C.MQPMO_ASYNC_RESPONSE


def mqi_put_options(options: int) -> int:
    """The PMO options the MQI is given for a client's MQPUT/MQPUT1: without the put
    response type. The listener puts each message as it reads it, and answers it unless it
    asked MQPMO_ASYNC_RESPONSE (module asyncput): the response is the channel's business,
    and the MQI then does what a Python program's MQPUT(msg, md) does (its templated put:
    no rules applied afresh to each message). Both types at once stay, for the MQI's 2046."""
    if options & RESPONSE_TYPES == RESPONSE_TYPES:
        return options
    return options & ~RESPONSE_TYPES


def _message(rest: bytes, order: str, at: int, max_message: int) -> bytes:
    length = verbs.int_at(rest, order, at)
    data = rest[at + 4 : at + 4 + length]
    if length < 0 or len(data) != length:
        raise ChannelError(STATUS_INVALID_DATA, f"message length {length}, {len(data)} sent")
    if length > max_message:
        raise MQMIError(2, RC.MSG_TOO_BIG_FOR_Q_MGR, f"{length} bytes > {max_message}")
    return data


def _md_pmo(rest: bytes, order: str, at: int) -> tuple[MD, int, WireStruct, PMO]:
    md, md_size = parse_md_fast(rest, order, at)
    pmo_wire = parse_struct(PMO_KIND, rest, order, at + md_size)
    pmo = pmo_wire.to_mqi()
    assert isinstance(pmo, PMO)
    # the client's handles (context, message handles) mean nothing to the MQI
    fields = pmo.__dict__  # ints the MQI's PMO accepts: its checks skipped
    fields["Context"] = fields["OriginalMsgHandle"] = fields["NewMsgHandle"] = 0
    fields["Options"] = mqi_put_options(pmo.Options)
    return md, md_size, pmo_wire, pmo


def _pmo_reply(pmo_wire: WireStruct, pmo: PMO, order: str) -> bytes:
    """The PMO back with what the put filled in, and the options as the client gave them."""
    out = pmo_wire.updated(pmo)
    out.values["Options"] = pmo_wire.values["Options"]
    return out.to_bytes(order)


def do_put(
    queue: Queue,
    order: str,
    api: verbs.ApiHeader,
    rest: bytes,
    max_message: int,
    *,
    reply: bool = True,
) -> bytes:
    """The put, and its reply (``reply`` False: an async put, answered by none)."""
    if not reply and _put_plain(queue, order, rest, max_message):
        return b""
    md, md_size, pmo_wire, pmo = _md_pmo(rest, order, 0)
    version = md.Version
    data = _message(rest, order, md_size + pmo_wire.size, max_message)
    if log.isEnabledFor(logging.DEBUG):
        log.debug("channel: MQPUT to %s, %d bytes: %r", queue.name, len(data), data[:400])
    queue.put(data, md, pmo)
    if not reply:
        return b""
    out = md_bytes_fast(md, order, version) + _pmo_reply(pmo_wire, pmo, order)
    return verbs.reply_body(order, 0, 0, api.hobj, out + struct.pack(order + "i", 0))


def _put_plain(queue: Queue, order: str, rest: bytes, max_message: int) -> bool:
    """An async put whose MQPMO asks nothing but (no) syncpoint outside: put with the MQI's
    default MQPMO (no PMO parsed or made: ~3 us of an async put's ~25 in the listener, and
    nothing goes back). False: the put needs its MQPMO (the plain path then)."""
    md, md_size = parse_md_fast(rest, order)
    if len(rest) < md_size + 12:
        return False
    version, options = struct.unpack_from(order + "ii", rest, md_size + 4)
    if not 1 <= version <= 3 or mqi_put_options(options) & ~C.MQPMO_NO_SYNCPOINT:
        return False
    data = _message(rest, order, md_size + PMO_KIND.size(version), max_message)
    queue.put(data, md)
    return True


def do_put1(
    qmgr: QueueManager,
    order: str,
    api: verbs.ApiHeader,
    rest: bytes,
    max_message: int,
    *,
    may_set_identity: bool = True,
    reply: bool = True,
) -> bytes:
    od_wire = parse_struct(OD_KIND, rest, order)
    od = od_wire.to_mqi()
    assert isinstance(od, OD)
    md, md_size, pmo_wire, pmo = _md_pmo(rest, order, od_wire.size)
    if not may_set_identity and pmo.Options & SET_CONTEXT_PMO:
        raise MQMIError(2, RC.NOT_AUTHORIZED, "no setid/setall authority")
    version = md.Version
    data = _message(rest, order, od_wire.size + md_size + pmo_wire.size, max_message)
    qmgr.put1(od, data, md, pmo)
    if not reply:
        return b""
    out = od_wire.updated(od).to_bytes(order) + md_bytes_fast(md, order, version)
    out += _pmo_reply(pmo_wire, pmo, order) + struct.pack(order + "i", 0)
    return verbs.reply_body(order, 0, 0, 0, out)


def do_get(queue: Queue, order: str, api: verbs.ApiHeader, rest: bytes) -> bytes:
    md, md_size = parse_md_fast(rest, order)
    version = md.Version
    gmo_wire = parse_struct(GMO_KIND, rest, order, md_size)
    buffer = verbs.int_at(rest, order, md_size + gmo_wire.size)
    gmo = gmo_wire.to_mqi()
    assert isinstance(gmo, GMO)
    gmo.MsgHandle = 0
    comp = reason = 0
    if log.isEnabledFor(logging.DEBUG):
        log.debug("channel: MQGET %s options %#x match %#x wait %d buffer %d correl %s",
                  queue.name, gmo.Options, gmo.MatchOptions, gmo.WaitInterval, buffer,
                  md.CorrelId.hex())  # fmt: skip
    try:
        data = queue.get(max(buffer, 0), md, gmo)
        whole = len(data)
    except MQMIError as error:
        log.debug("channel: MQGET from %s: %s", queue.name, error)
        comp, reason = int(error.comp), error.reason
        whole = error.original_length or 0
        # 2079: the buffer's worth, the message gone; 2080: no data at all (a client that
        # gets data bytes with 2080 fails); anything else: nothing got
        data = (error.message or b"") if reason == RC.TRUNCATED_MSG_ACCEPTED else b""
    out = md_bytes_fast(md, order, version) + gmo_wire.updated(gmo).to_bytes(order)
    return verbs.reply_body(
        order, comp, reason, api.hobj, out + struct.pack(order + "i", whole) + data
    )
