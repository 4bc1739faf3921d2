"""One client connection's MQI verbs, mapped onto the product's one MQI
(:mod:`mqkafka.mqi`: the same catalogue, syncpoint, dynamic queues and share groups as a
Python program's).

:meth:`Session.call` takes a verb's segment type and body (after reassembly) and returns
its reply body; an MQI failure is a reply with the call's completion and reason codes, as
a queue manager gives it. What the protocol notes prescribe:

- MQCONN: a queue manager name other than blank or ours → 2058; the CONN is echoed.
- MQOPEN of the queue manager object (for MQINQ) gets a handle of the listener's own; a
  model queue makes a dynamic queue through the MQI; an unknown name → 2085.
- MQINQ of the queue manager answers command level 600 (the Java classes then use MQOPEN,
  not SPI OPEN), publish/subscribe mode 0 and the client's CCSID; other selectors go to
  the MQI.
- MQGET truncation: no MQGMO_ACCEPT_TRUNCATED_MSG → 2080, no data bytes, the full length
  (the Java classes retry with a bigger buffer); with it → 2079, the buffer's worth, the
  message gone. The data-length field always says the message's whole length.
- MQPUT/MQPUT1 with MQPMO_ASYNC_RESPONSE: done at once, not answered; MQSTAT tells their
  outcome (module :mod:`.asyncput`).
- SPI PUT with the *deferred* option holds the message (with MQPMO_NEW_CORREL_ID's CorrelId
  made at once, as JMS takes it for its subscriber identity); SPI ACTIVATE naming its MsgId
  drops it; an end of the connection without ACTIVATE puts it (module :mod:`.spiverbs`).
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mqkafka.channel.asyncput import AsyncPuts, is_async_put, put1_object
from mqkafka.channel.codec import stat, verbs
from mqkafka.channel.codec.mqstructs import OD_KIND, parse_struct
from mqkafka.channel.codec.segments import ChannelError, SegType
from mqkafka.channel.deferred import Deferred
from mqkafka.channel.msgverbs import do_get, do_put, do_put1
from mqkafka.channel.settings import ListenerSettings
from mqkafka.channel.spiverbs import do_spi
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.mqi.rules.errors import MQMIError
from mqkafka.mqi.rules.structs import OD, mqchars

SET_CONTEXT_OO = C.MQOO_SET_IDENTITY_CONTEXT | C.MQOO_SET_ALL_CONTEXT

log = logging.getLogger(__name__)

COMMAND_LEVEL = 600  # < 700: the MQ classes for Java open with MQOPEN, not SPI OPEN
MQIA_ADVANCED_CAPABILITY = 273
MQCA_QSG_NAME = 2040
MQIA_PUBSUB_MODE = 187


class QmgrObject:
    """The queue manager opened as an object (MQOT_Q_MGR), for MQINQ."""


@dataclass
class Session:
    """One client connection's state: its MQI connection, object handles, deferred puts."""

    settings: ListenerSettings
    user: str = ""
    appl_name: str = ""
    ccsid: int = 819
    qmgr: QueueManager | None = None
    handles: dict[int, Queue | QmgrObject] = field(default_factory=dict)
    deferred: Deferred = field(default_factory=Deferred)
    async_puts: AsyncPuts = field(default_factory=AsyncPuts)
    next_hobj: int = 1

    # ---- the dispatcher ----

    def call(self, seg_type: int, order: str, body: bytes) -> bytes | None:
        """A verb's reply body (API header and all); None: an async put, not answered."""
        api, rest = verbs.parse_api(body, order)
        handler = _VERBS.get(seg_type)
        if handler is None:  # a verb of the protocol this listener does not offer
            return verbs.reply_body(order, 2, verbs.FUNCTION_NOT_SUPPORTED, api.hobj, rest)
        if seg_type != SegType.MQCONN and not self.connected:
            return verbs.reply_body(order, 2, RC.HCONN_ERROR, api.hobj, rest)
        if seg_type in _PUTS and is_async_put(seg_type, rest, order):
            self._put_async(seg_type, order, api, rest)
            return None
        try:
            return handler(self, order, api, rest)
        except MQMIError as error:
            return verbs.reply_body(order, int(error.comp), error.reason, api.hobj, rest)
        except MQError as error:
            return verbs.reply_body(order, 2, error.reason, api.hobj, rest)

    @property
    def connected(self) -> bool:
        return self.qmgr is not None and self.qmgr.is_connected

    def require(self) -> QueueManager:
        if self.qmgr is None or not self.qmgr.is_connected:
            raise MQMIError(2, RC.HCONN_ERROR, "not connected")
        return self.qmgr

    def queue(self, hobj: int) -> Queue:
        opened = self.handles.get(hobj)
        if not isinstance(opened, Queue):
            raise MQMIError(2, RC.HOBJ_ERROR, f"no queue handle {hobj}")
        return opened

    # ---- connection ----

    def conn(self, order: str, api: verbs.ApiHeader, rest: bytes) -> bytes:
        name = verbs.conn_qmgr(rest)
        if name and name != self.settings.qmgr:
            return verbs.reply_body(order, 2, RC.Q_MGR_NAME_ERROR, 0, rest)
        if self.connected:
            return verbs.reply_body(order, 1, RC.ALREADY_CONNECTED, 0, rest)
        self.appl_name = verbs.conn_appl_name(rest) or self.appl_name
        # the listener's connections share their Kafka clients (mqi/kafkaqm/sharedclients)
        options: dict[str, Any] = {"namespace": self.settings.namespace, "share_clients": True}
        if self.user:
            options["user"] = self.user.encode()[: C.MQ_USER_ID_LENGTH].decode("latin-1")
        if self.appl_name:
            options["appl_name"] = self.appl_name[: C.MQ_APPL_NAME_LENGTH]
        if self.settings.kafka_config:
            options["kafka_config"] = self.settings.kafka_config
        qmgr = QueueManager(None, **options)
        qmgr.connect(self.settings.qmgr, bootstrap_servers=self.settings.bootstrap_servers)
        self.qmgr = qmgr
        return verbs.reply_body(order, 0, 0, 0, rest)

    def disc(self, order: str, api: verbs.ApiHeader, rest: bytes) -> bytes:
        self.end(lost=False)
        return verbs.reply_body(order, 0, 0, 0, rest)

    def end(self, *, lost: bool) -> None:
        """The connection ends: MQDISC, the client's close, or (``lost``) a broken socket or
        a stop. A lost connection's unit of work is backed out; deferred puts are put."""
        qmgr, self.qmgr = self.qmgr, None
        if qmgr is None or not qmgr.is_connected:
            return
        try:
            if lost:
                qmgr.backout()
            self.deferred.release(qmgr)
        except MQError as error:
            log.warning("channel: ending connection: %s", error)
        finally:
            self.handles.clear()
            try:
                qmgr.disconnect()
            except MQError as error:
                log.warning("channel: MQDISC: %s", error)

    def leave_at_exit(self) -> None:
        """No MQDISC when the process exits (a call of this session's is stuck)."""
        if self.qmgr is not None:
            self.qmgr.disconnect_on_exit = False

    # ---- objects ----

    def open(self, order: str, api: verbs.ApiHeader, rest: bytes) -> bytes:
        qmgr = self.require()
        wire = parse_struct(OD_KIND, rest, order)
        options = verbs.int_at(rest, order, wire.size)
        fopa = rest[wire.size + 4 :]
        od = wire.to_mqi()
        assert isinstance(od, OD)
        opened: Queue | QmgrObject
        if od.ObjectType == C.MQOT_Q_MGR:
            name = mqchars(od.ObjectName)
            if name and name != self.settings.qmgr:
                raise MQMIError(2, RC.UNKNOWN_OBJECT_NAME, name)
            opened = QmgrObject()
            persistence = 0
        else:
            if self.settings.user_established and options & SET_CONTEXT_OO:
                raise MQMIError(2, RC.NOT_AUTHORIZED, "no setid/setall authority")
            opened = Queue(qmgr, od, options)
            persistence = _default_persistence(opened)
        hobj, self.next_hobj = self.next_hobj, self.next_hobj + 1
        self.handles[hobj] = opened
        out = wire.updated(od).to_bytes(order) + struct.pack(order + "i", options)
        out += verbs.fopa_filled(fopa, order, persistence=persistence)
        return verbs.reply_body(order, 0, 0, hobj, out)

    def close(self, order: str, api: verbs.ApiHeader, rest: bytes) -> bytes:
        options = verbs.int_at(rest, order)
        opened = self.handles.get(api.hobj)
        if opened is None:
            raise MQMIError(2, RC.HOBJ_ERROR, f"no handle {api.hobj}")
        if isinstance(opened, Queue):
            opened.close(options)
        del self.handles[api.hobj]
        return verbs.reply_body(order, 0, 0, 0, rest)

    def inq(self, order: str, api: verbs.ApiHeader, rest: bytes) -> bytes:
        self.require()
        request = verbs.parse_inq(rest, order)
        opened = self.handles.get(api.hobj)
        if opened is None:
            raise MQMIError(2, RC.HOBJ_ERROR, f"no handle {api.hobj}")
        ints: list[int] = []
        chars = b""
        comp, reason = 0, 0
        for selector in request.selectors:
            try:
                value = self._inquire(opened, selector)
            except MQMIError as error:
                comp, reason = 2, error.reason
                break
            if isinstance(value, int):
                ints.append(value)
            else:
                chars += value
        answer = verbs.InqRequest(
            request.selectors, request.int_count, request.char_length, tuple(ints), chars
        )
        return verbs.reply_body(order, comp, reason, api.hobj, verbs.inq_bytes(answer, order))

    def _inquire(self, opened: Queue | QmgrObject, selector: int) -> int | bytes:
        if isinstance(opened, Queue):
            return opened.inquire(selector)
        fixed: dict[int, int | bytes] = {
            C.MQIA_COMMAND_LEVEL: COMMAND_LEVEL,
            C.MQIA_CODED_CHAR_SET_ID: self.ccsid,
            MQIA_PUBSUB_MODE: 0,  # what the probe answered; JMS v6 is content with it
            MQIA_ADVANCED_CAPABILITY: 0,
            MQCA_QSG_NAME: b" " * 4,
        }
        if selector in fixed:
            return fixed[selector]
        return self.require().inquire(selector)

    def set(self, order: str, api: verbs.ApiHeader, rest: bytes) -> bytes:
        request = verbs.parse_inq(rest, order, with_values=True)
        queue = self.queue(api.hobj)
        ints = iter(request.ints)
        for selector in request.selectors:
            if selector >= verbs.MQCA_FIRST:
                raise MQMIError(2, RC.SELECTOR_ERROR, f"MQSET of character attribute {selector}")
            queue.set(selector, next(ints, 0))
        return verbs.reply_body(order, 0, 0, api.hobj, rest)

    # ---- units of work ----

    def cmit(self, order: str, api: verbs.ApiHeader, rest: bytes) -> bytes:
        self.require().commit()
        return verbs.reply_body(order, 0, 0, 0, rest)

    def back(self, order: str, api: verbs.ApiHeader, rest: bytes) -> bytes:
        self.require().backout()
        return verbs.reply_body(order, 0, 0, 0, rest)

    # ---- messages (modules msgverbs and spiverbs) ----

    def put(self, order: str, api: verbs.ApiHeader, rest: bytes) -> bytes:
        return do_put(self.queue(api.hobj), order, api, rest, self.settings.max_message)

    def put1(self, order: str, api: verbs.ApiHeader, rest: bytes) -> bytes:
        return do_put1(
            self.require(), order, api, rest, self.settings.max_message,
            may_set_identity=not self.settings.user_established,
        )  # fmt: skip

    def get(self, order: str, api: verbs.ApiHeader, rest: bytes) -> bytes:
        return do_get(self.queue(api.hobj), order, api, rest)

    def _put_async(self, seg_type: int, order: str, api: verbs.ApiHeader, rest: bytes) -> None:
        try:
            if seg_type == SegType.MQPUT:
                do_put(self.queue(api.hobj), order, api, rest, self.settings.max_message,
                       reply=False)  # fmt: skip
            else:
                do_put1(
                    self.require(), order, api, rest, self.settings.max_message,
                    may_set_identity=not self.settings.user_established, reply=False,
                )  # fmt: skip
        except ChannelError:
            raise  # the connection ends, as for a synchronous put
        except MQError as error:
            opened = self.handles.get(api.hobj)
            name = opened.name if isinstance(opened, Queue) else ""
            if seg_type == SegType.MQPUT1:
                name = put1_object(rest, order)
            log.debug("channel: async put to %s: %s", name, error)
            self.async_puts.refused(int(error.comp), error.reason, name, self.settings.qmgr)
        else:
            self.async_puts.succeeded()

    def stat(self, order: str, api: verbs.ApiHeader, rest: bytes) -> bytes:
        """MQSTAT: the async puts' status since the last one (module asyncput)."""
        request = stat.parse_stat(rest, order)
        status = self.async_puts.take(request.stat_type)
        out = stat.stat_bytes(request.stat_type, stat.sts_filled(request.sts, order, status), order)
        return verbs.reply_body(order, 0, 0, api.hobj, out)

    def spi(self, order: str, api: verbs.ApiHeader, rest: bytes) -> bytes:
        opened = self.handles.get(api.hobj)
        queue = opened if isinstance(opened, Queue) else None
        return do_spi(queue, self.qmgr, self.deferred, order, api, rest)


def _default_persistence(queue: Queue) -> int:
    try:
        value = queue.inquire(C.MQIA_DEF_PERSISTENCE)
    except MQError:
        return 0
    return value if isinstance(value, int) else 0


Verb = Callable[[Session, str, verbs.ApiHeader, bytes], bytes]
_VERBS: dict[int, Verb] = {
    SegType.MQCONN: Session.conn,
    SegType.MQDISC: Session.disc,
    SegType.MQOPEN: Session.open,
    SegType.MQCLOSE: Session.close,
    SegType.MQINQ: Session.inq,
    SegType.MQSET: Session.set,
    SegType.MQCMIT: Session.cmit,
    SegType.MQBACK: Session.back,
    SegType.MQPUT: Session.put,
    SegType.MQPUT1: Session.put1,
    SegType.MQGET: Session.get,
    SegType.SPI: Session.spi,
    SegType.MQSTAT: Session.stat,
}
_PUTS = frozenset({SegType.MQPUT, SegType.MQPUT1})
KNOWN_VERBS = frozenset(range(0x81, 0x90)) | frozenset(range(0xA1, 0xAB))

__all__ = ["KNOWN_VERBS", "QmgrObject", "Session"]
