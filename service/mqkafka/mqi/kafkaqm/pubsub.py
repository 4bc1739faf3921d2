"""MQSUB from the client: pymqi's :class:`Subscription` over the queued commands.

The queued pub/sub commands themselves are :class:`~mqkafka.mqi.kafkaqm.psclient.PubSub`'s (module
psclient; ``PubSub`` and ``raise_for`` are importable from here too). MQOPEN of a topic and
MQPUT to it (pymqi's ``Topic``, a Publish) are :mod:`mqkafka.mqi.kafkaqm.topic`'s.

:class:`Subscription` (MQSUB) is mapped onto those same commands, so an MQI subscription
*is* a queued subscription the service keeps:

| MQSUB | Register Subscriber |
|---|---|
| SD.ObjectString | Topic |
| SD.ObjectName (a topic object) | SubPoint (subscription points are topic objects, §1.4) |
| SD.SubName | SubName (required with MQSO_DURABLE: 2440 without) |
| SD.SelectionString | Filter |
| SD.SubUserData | SubUserData |
| SD.SubCorrelId (MQSO_SET_CORREL_ID), else a new id | CorrelAsId with it (in SD.SubCorrelId) |
| MQSO_MANAGED | QName: a dynamic queue from SYSTEM.NDURABLE.MODEL.QUEUE (or DURABLE) |
| MQSO_PUBLICATIONS_ON_REQUEST | PubOnReqOnly |
| MQSO_NEW_PUBLICATIONS_ONLY | NewPubsOnly |
| MQSO_ANY_USERID | VariableUserId |
| MQSO_RESUME (with MQSO_CREATE: if the name exists) | SubName + NoAlter + FullResp: its queue |
| MQSO_ALTER of a SubName that exists | its queue (managed: kept) and CorrelId, by FullResp |
| MQCLOSE with MQCO_REMOVE_SUB, or of a non-durable subscription | Deregister Subscriber |

Reasons come back as the service answered them, the few with an MQI equivalent translated
(``raise_for``, module psclient); no reply within the timeout is MQRC_PUBSUB_INHIBITED (2531).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from mqkafka.mq.commandoptions import option_names
from mqkafka.mq.commands import RegOpt
from mqkafka.mq.pscommands import CommandReply
from mqkafka.mq.reasons import RC
from mqkafka.mq.responses import Completion
from mqkafka.mqi.kafkaqm.blocks import end_block
from mqkafka.mqi.kafkaqm.channel import text
from mqkafka.mqi.kafkaqm.psclient import PubSub, raise_for
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager, _mqi
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.catalogue import SYSTEM_DURABLE_MODEL, SYSTEM_NDURABLE_MODEL
from mqkafka.mqi.rules.errors import InterfaceMisuse, failed
from mqkafka.mqi.rules.structs import OD, SD, mqchars
from mqkafka.mqi.rules.validation import Call, SubContext, check_sub_options, first_violation

MANAGED_QUEUES = b"MQK.MANAGED."  # DynamicQName prefix of MQSO_MANAGED's queues

# The MQSUB options that are RegSub options (module table), both ways.
SUB_REG_OPTIONS: tuple[tuple[int, RegOpt], ...] = (
    (C.MQSO_PUBLICATIONS_ON_REQUEST, RegOpt.PUBLISH_ON_REQUEST_ONLY),
    (C.MQSO_NEW_PUBLICATIONS_ONLY, RegOpt.NEW_PUBLICATIONS_ONLY),
    (C.MQSO_ANY_USERID, RegOpt.VARIABLE_USER_ID),
)


def sub_options_of(attributes: Sequence[tuple[str, str]]) -> int:
    """The MQSO_* options a subscription was made with, read back from the RegOpt values of
    a FullResp reply (the options the MQSUB rules ask about when altering)."""
    names = {value for key, value in attributes if key == "RegOpt"}
    options = 0
    for flag, opt in SUB_REG_OPTIONS:
        if names.issuperset(option_names(opt)):
            options |= flag
    return options


class Subscription:
    """pymqi's ``Subscription``: ``Subscription(qmgr).sub(sub_desc=SD(...), sub_queue=q)``."""

    def __init__(
        self,
        queue_manager: QueueManager,
        sub_desc: SD | None = None,
        sub_name: str | bytes | None = None,
        sub_queue: Queue | None = None,
        sub_opts: int | None = None,
        topic_name: str | bytes | None = None,
        topic_string: str | bytes | None = None,
    ) -> None:
        self.qmgr = queue_manager
        self.pubsub = PubSub(queue_manager)
        self.sub_desc: SD | None = None
        self.sub_queue: Queue | None = sub_queue  # pymqi's get_sub_queue() gives it back
        self.sub_name, self.sub_opts = text(sub_name), sub_opts
        self.topic_name, self.topic_string = text(topic_name), text(topic_string)
        self._managed = False
        self._resumed = False  # MQSO_RESUME finds a durable subscription: closing keeps it
        self._ending = threading.Lock()
        self._registered: dict[str, Any] | None = None
        if sub_desc is not None:
            self.sub(sub_desc, sub_queue)

    def get_sub_queue(self) -> Queue | None:
        """The subscription's queue; None before (or without) a successful MQSUB."""
        return self.sub_queue

    def get(self, max_length: int | None = None, *opts: Any) -> bytes:
        """A publication from the subscription's queue: its data alone, its properties as
        message properties, as MQSUB delivers it (the queue's own MQRFH2 stays with
        MQGMO_PROPERTIES_FORCE_MQRFH2; module propdelivery)."""
        return self._queue().get(max_length, *opts)

    def get_rfh2(self, max_length: int | None = None, *opts: Any) -> bytes:
        """A publication from the subscription's queue, the MQRFH2 headers it comes with
        (its properties' ``<usr>`` without a message handle; with FORCE_MQRFH2, the
        queue's own) parsed into ``opts[2]``."""
        return self._queue().get_rfh2(max_length, *opts)

    def _queue(self) -> Queue:
        if self.sub_queue is None:
            raise InterfaceMisuse(RC.HOBJ_ERROR, "Subscription not open.")
        return self.sub_queue

    def sub(
        self,
        sub_desc: SD | None = None,
        sub_queue: Queue | str | bytes | None = None,
        sub_name: str | bytes | None = None,
        sub_opts: int | None = None,
        topic_name: str | bytes | None = None,
        topic_string: str | bytes | None = None,
    ) -> Subscription:
        """MQSUB; returns the Subscription (pymqi: ``with subscription.sub(sd): ...``), whose
        queue ``get_sub_queue()`` gives."""
        self.sub_name = text(sub_name) or self.sub_name
        self.topic_name = text(topic_name) or self.topic_name
        self.topic_string = text(topic_string) or self.topic_string
        if isinstance(sub_queue, str | bytes):
            sub_queue = Queue(self.qmgr, sub_queue, C.MQOO_INPUT_AS_Q_DEF)
        if sub_desc is not None:
            if not isinstance(sub_desc, SD):
                raise TypeError("sub_desc must be a SD(sub descriptor) object.")
            sd = sub_desc
        else:
            # pymqi's MQSUB without a descriptor: a new managed non-durable subscription
            sd = SD(Options=C.MQSO_CREATE | C.MQSO_NON_DURABLE | C.MQSO_MANAGED)
            sd.Options = sub_opts or self.sub_opts or sd.Options
            if self.sub_name:
                sd.SubName = self.sub_name.encode()
            if self.topic_name:
                sd.ObjectName = self.topic_name.encode()
            if self.topic_string:
                sd.ObjectString = self.topic_string.encode()
        options = sd.Options
        name = mqchars(sd.SubName) or None
        with _mqi():
            check_sub_options(options, self._original_options(sd, name), sd.SubLevel)
        durable = bool(options & C.MQSO_DURABLE)
        if durable and not name:
            raise failed(RC.SUB_NAME_ERROR, "a durable subscription needs a SubName")
        if options & C.MQSO_WILDCARD_CHAR:
            # The <psc> interface matches by topic levels (§10.16); the character scheme is
            # the RFH1 interface's, which MQSUB does not speak here.
            raise failed(RC.OPTIONS_ERROR, "MQSO_WILDCARD_CHAR is not available over <psc>")
        if (
            options & C.MQSO_RESUME
            and not options & C.MQSO_ALTER
            and (not options & C.MQSO_CREATE or (name and self._exists(name)))
        ):
            # MQSO_RESUME, or MQSO_CREATE + MQSO_RESUME of a name that exists (IBM's
            # basicsubscribe): the subscription as it is, with its queue - a managed one
            # holds what was published while nobody read (a new one would orphan that)
            self._resume(sd, name, sub_queue)
            return self
        topic = sd.ObjectString.decode("utf-8", "replace")
        if not topic and not mqchars(sd.ObjectName):
            raise failed(RC.TOPIC_STRING_ERROR, "no topic string and no topic object")
        if name and not options & (C.MQSO_RESUME | C.MQSO_ALTER) and self._exists(name):
            # a RegSub would re-point the name; MQSUB with MQSO_CREATE alone refuses it
            raise failed(RC.SUB_ALREADY_EXISTS, f"subscription {name} exists")
        # MQSO_ALTER changes a subscription, not where it delivers: its managed queue (which
        # holds what was published meanwhile; a new one would orphan it) and its CorrelId
        altered = self._altered(name) if options & C.MQSO_ALTER and name else None
        if altered is None and name and options & C.MQSO_ALTER and not options & C.MQSO_CREATE:
            # MQ: MQSO_ALTER of a name nobody holds fails unless MQSO_CREATE may make it
            raise failed(RC.NO_SUBSCRIPTION, f"subscription {name} does not exist")
        queue = self._destination(sd, sub_queue, durable, altered)
        correl = self._correl_id(sd, altered)
        reg = RegOpt.CORREL_ID_AS_IDENTITY
        for flag, opt in SUB_REG_OPTIONS:
            if options & flag:
                reg |= opt
        fields: dict[str, Any] = {"sub_name": name}
        if mqchars(sd.ObjectName):
            fields["sub_point"] = mqchars(sd.ObjectName)
        if sd.SelectionString:
            fields["filter"] = sd.SelectionString.decode()
        if sd.SubUserData:
            fields["sub_user_data"] = sd.SubUserData.decode()
        reply = self.pubsub.register_subscriber(
            [topic], queue=queue.name, options=reg, correl_id=correl, **fields
        )
        raise_for(reply, translate=True)
        sd.SubCorrelId = correl
        self._registered = {"topic": topic, "queue": queue.name, "correl": correl, **fields}
        self.sub_desc, self.sub_queue = sd, queue
        queue.publications = True
        self.qmgr.subscriptions.add(self)
        return self

    def _destination(
        self, sd: SD, sub_queue: Queue | None, durable: bool, altered: CommandReply | None
    ) -> Queue:
        managed = bool(sd.Options & C.MQSO_MANAGED)
        if altered is not None:
            kept = self._managed_name_of(altered)
            if managed != (kept is not None):
                # MQ refuses an MQSO_ALTER that changes the use of MQSO_MANAGED (and here a
                # managed queue given up would be left behind, orphaned)
                raise failed(RC.DEST_CLASS_NOT_ALTERABLE, "MQSO_MANAGED cannot be altered")
            if kept is not None:
                self._managed = True
                mine = self.sub_queue
                if mine is not None and mine.get_handle() and mine.name == kept:
                    return mine  # this Subscription's own handle (altered through it)
                return Queue(self.qmgr, kept, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE)
        if managed:
            model = SYSTEM_DURABLE_MODEL if durable else SYSTEM_NDURABLE_MODEL
            od = OD(ObjectName=model, DynamicQName=MANAGED_QUEUES + b"*")
            self._managed = True
            return Queue(self.qmgr, od, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE)
        if sub_queue is None:
            raise failed(RC.HOBJ_ERROR, "MQSUB without MQSO_MANAGED needs a subscriber queue")
        return sub_queue

    def _managed_name_of(self, altered: CommandReply) -> str | None:
        """The managed queue of the subscription MQSO_ALTER alters (a dynamic queue MQSUB
        made); None when it delivers to a queue the program provided."""
        name = altered.attribute("QName")
        if not name or not name.startswith(MANAGED_QUEUES.decode()):
            return None
        replica = self.qmgr.connection.replica
        definition = replica.lookup(name)
        if definition is None:
            replica.sync()  # made a moment ago elsewhere, perhaps
            definition = replica.lookup(name)
        return name if definition is not None and definition.is_dynamic else None

    def _correl_id(self, sd: SD, altered: CommandReply | None = None) -> bytes:
        if sd.Options & C.MQSO_SET_CORREL_ID:
            given = bytes(sd.SubCorrelId).ljust(24, b"\0")
            if not any(given):
                raise failed(RC.CORREL_ID_ERROR, "MQSO_SET_CORREL_ID with a zero SubCorrelId")
            return given
        kept = altered.attribute("CorrelId") if altered is not None else None
        if kept:
            return bytes.fromhex(kept)  # the subscription's, kept (a new one re-points it)
        return self.qmgr.connection.ids.new()

    def _altered(self, name: str) -> CommandReply | None:
        """The subscription MQSO_ALTER alters, as the service holds it (FullResp: its queue
        and CorrelId); None when there is none."""
        reply = self.pubsub.register_subscriber(
            [], options=RegOpt.NO_ALTERATION | RegOpt.FULL_RESPONSE, sub_name=name
        )
        if reply is None or reply.completion is Completion.ERROR:
            return None
        return reply

    def _original_options(self, sd: SD, name: str | None) -> int | None:
        """The Options of the subscription MQSO_ALTER alters, when a rule needs them: seed 003
        allows MQSO_NEW_PUBLICATIONS_ONLY with "MQSO_ALTER, if MQSO_NEW_PUBLICATIONS_ONLY was
        set on the original subscription". None when there is none, or when no rule's answer
        depends on it (then the service is not asked)."""
        if not name or not sd.Options & C.MQSO_ALTER:
            return None
        first = first_violation(Call.MQSUB, sd.Options, SubContext(None, sd.SubLevel))
        if first is None or first.name != "sub.new_publications_only_with":
            return None
        reply = self._altered(name)
        return None if reply is None else sub_options_of(reply.attributes)

    def _exists(self, name: str) -> bool:
        """Whether a subscription has this SubName (a RegSub that alters nothing)."""
        reply = self.pubsub.register_subscriber([], options=RegOpt.NO_ALTERATION, sub_name=name)
        return reply is not None and reply.completion is not Completion.ERROR

    def _resume(self, sd: SD, name: str | None, given: Queue | None) -> None:
        if not name:
            raise failed(RC.SUB_NAME_ERROR, "MQSO_RESUME needs a SubName")
        reply = self.pubsub.register_subscriber(
            [],
            options=RegOpt.NO_ALTERATION | RegOpt.FULL_RESPONSE,
            sub_name=name,
        )
        raise_for(reply, translate=True)
        assert reply is not None
        queue_name = reply.attribute("QName")
        if not queue_name:
            raise failed(RC.NO_SUBSCRIPTION, f"subscription {name} has no queue")
        if given is not None and given.get_handle() and given.name == queue_name:
            queue = given  # the program's own handle to the subscription's queue (pymqi)
        else:
            queue = Queue(self.qmgr, queue_name, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_BROWSE)
        self._registered = {
            "sub_name": name,
            "queue": queue_name,
            "topic": reply.attribute("Topic"),
        }
        # MQSUB fills the SD with the subscription it resumed (pymqi's test suite reads
        # Options back to know whether to delete it and its queue)
        definition = self.qmgr.connection.replica.lookup(queue_name)
        managed = definition is not None and definition.is_dynamic
        sd.Options |= C.MQSO_DURABLE | (C.MQSO_MANAGED if managed else 0)
        sd.ObjectString = (reply.attribute("Topic") or "").encode()
        self.sub_desc, self.sub_queue = sd, queue
        queue.publications = True
        self._resumed = True
        self.qmgr.subscriptions.add(self)

    def close(
        self,
        sub_close_options: int = C.MQCO_NONE,
        close_sub_queue: bool = False,
        close_sub_queue_options: int = C.MQCO_NONE,
    ) -> None:
        if self._registered is None or self.sub_desc is None:
            raise InterfaceMisuse(RC.HOBJ_ERROR, "Subscription not open.")
        self._end(sub_close_options, wait=True)
        queue = self.sub_queue
        if (close_sub_queue or self._managed) and queue is not None and queue.get_handle():
            queue.close(close_sub_queue_options)

    def _end(self, sub_close_options: int, *, wait: bool) -> None:
        """Deregister a non-durable subscription (or any, with MQCO_REMOVE_SUB). Without
        ``wait`` the command goes as a datagram: MQDISC and garbage collection must not wait
        for the broker service."""
        with self._ending:  # once: MQCLOSE, MQDISC and a collected object may all end it
            reg, self._registered = self._registered, None
        if reg is None or self.sub_desc is None:
            return
        durable = bool(self.sub_desc.Options & C.MQSO_DURABLE) or self._resumed
        try:
            if sub_close_options & C.MQCO_REMOVE_SUB or not durable:
                topics = [reg["topic"]] if reg.get("topic") else []
                reply = self.pubsub.deregister_subscriber(
                    topics,
                    queue=reg["queue"],
                    options=RegOpt.CORREL_ID_AS_IDENTITY if reg.get("correl") else RegOpt.NONE,
                    correl_id=reg.get("correl"),
                    sub_name=reg.get("sub_name"),
                    reply=wait,
                )
                raise_for(reply, translate=True)
        finally:
            self.pubsub.close()
            self.qmgr.subscriptions.discard(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        """pymqi's ``with``: the subscription (MQCO_NONE) and its queue close, unless the
        block closed them already."""

        def close() -> None:
            if self._registered is not None:
                self.close(close_sub_queue=True)
            elif self.sub_queue is not None and self.sub_queue.get_handle():
                self.sub_queue.close()

        end_block(kind, close)

    def end_with_connection(self) -> None:
        """MQDISC: MQ removes the connection's non-durable subscriptions (durable ones stay)."""
        if self._registered is not None and self.sub_desc is not None:
            self._end(C.MQCO_NONE, wait=False)

    def __del__(self) -> None:
        # pymqi closes a subscription object that is garbage-collected (MQCO_NONE: a
        # non-durable subscription goes, a durable one stays). Its queue is the Queue
        # object's own: it is closed when that object goes.
        try:
            if self._registered is not None and self.qmgr.is_connected:
                self.qmgr.connection.collected.append(self.end_with_connection)
        except Exception:  # nothing to tell at collection time
            pass


__all__ = ["PubSub", "Subscription", "raise_for"]
