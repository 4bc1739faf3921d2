"""Queued pub/sub commands from an MQI connection (:class:`PubSub`).

:class:`PubSub` builds the queued pub/sub commands (reference §2), puts them where they go
(``SYSTEM.BROKER.CONTROL.QUEUE``; Publish and DeletePub to a stream queue), and reads the
reply from its own temporary dynamic reply queue by CorrelId (the reply's CorrelId is the
command's MsgId, wire contract §3). The broker service (``mqk serve``) answers them; no reply
within the timeout is ``MQRC_PUBSUB_INHIBITED`` (2531): the queued pub/sub engine is not
running. MQSUB (module :mod:`mqkafka.mqi.kafkaqm.pubsub`) and the Topic object (module
:mod:`mqkafka.mqi.kafkaqm.topic`) are built on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mqkafka.mq.commands import (
    CONTROL_QUEUE,
    DEFAULT_STREAM,
    Command,
    DeletePub,
    DeregSub,
    PublicationContent,
    Publish,
    PubOpt,
    RegOpt,
    RegSub,
    ReqUpdate,
)
from mqkafka.mq.mqmd import MQFMT_RF_HEADER_2, MQMD, MQMT
from mqkafka.mq.pscommands import CommandReply, encode_command, parse_reply
from mqkafka.mq.reasons import RC
from mqkafka.mq.responses import Completion
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager, _mqi
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.catalogue import SYSTEM_DEFAULT_MODEL
from mqkafka.mqi.rules.errors import MQMIError, failed
from mqkafka.mqi.rules.properties import message_handle
from mqkafka.mqi.rules.propwire import usr_folder
from mqkafka.mqi.rules.structs import GMO, MD, OD, PMO

REPLY_PREFIX = b"MQK.PSREPLY.*"
REPLY_TIMEOUT = 30.0

# Reasons the service answers with, as MQSUB reports them (the rest pass through).
_MQSUB_REASON: dict[int, int] = {
    RC.CF_NOT_REGISTERED: RC.NO_SUBSCRIPTION,
    RC.CF_DUPLICATE_SUBSCRIPTION: RC.SUB_ALREADY_EXISTS,
    RC.CF_FILTER_ERROR: RC.SELECTOR_SYNTAX_ERROR,
    RC.CF_TOPIC_ERROR: RC.TOPIC_STRING_ERROR,
    RC.CF_SUB_NAME_ERROR: RC.SUB_NAME_ERROR,
    RC.CF_NOT_AUTHORIZED: RC.NOT_AUTHORIZED,
}


class PubSub:
    """Queued pub/sub commands over one connection."""

    def __init__(self, qmgr: QueueManager, *, timeout: float = REPLY_TIMEOUT) -> None:
        self.qmgr = qmgr
        self.timeout = timeout
        self._reply: Queue | None = None

    @property
    def reply_queue(self) -> Queue:
        """This helper's reply queue: a temporary dynamic queue, deleted when it closes."""
        if self._reply is None:
            od = OD(ObjectName=SYSTEM_DEFAULT_MODEL, DynamicQName=REPLY_PREFIX)
            self._reply = Queue(self.qmgr, od, C.MQOO_INPUT_EXCLUSIVE)
        return self._reply

    def command_md(
        self, *, reply: bool, correl_id: bytes | None = None, reply_to: str | None = None
    ) -> MQMD:
        """The MQMD of a command message (module table)."""
        reply_q = reply_to if reply_to is not None else (self.reply_queue.name if reply else "")
        return MQMD(
            MsgType=MQMT.REQUEST if reply else MQMT.DATAGRAM,
            Format=MQFMT_RF_HEADER_2,
            ReplyToQ=reply_q,
            CorrelId=correl_id or bytes(24),
            MsgId=self.qmgr.connection.ids.new(),
            UserIdentifier=self.qmgr.connection.settings.user,
        )

    def send(self, command: Command, msg_handle: int = C.MQHM_NONE) -> None:
        """Put ``command`` where it belongs (control queue, or its stream queue), with the
        properties of ``msg_handle`` as record headers (the service passes them on)."""
        queue = command.queue if isinstance(command, Publish | DeletePub) else CONTROL_QUEUE
        value = encode_command(command, command.md.Encoding)
        md = MD.from_mqmd(command.md)
        pmo = PMO(Options=C.MQPMO_NO_SYNCPOINT, OriginalMsgHandle=msg_handle)
        self.qmgr.put1(queue, value, md, pmo)

    def reply_to(self, command: Command, timeout: float | None = None) -> CommandReply:
        """Wait for the reply to ``command`` (CorrelId = the command's MsgId)."""
        md = MD(CorrelId=command.md.MsgId)
        wait = self.timeout if timeout is None else timeout
        gmo = GMO(
            Version=C.MQGMO_VERSION_2,
            Options=C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT,
            WaitInterval=int(wait * 1000),
            MatchOptions=C.MQMO_MATCH_CORREL_ID,
        )
        try:
            value = self.reply_queue.get(None, md, gmo)
        except MQMIError as error:
            if error.reason == RC.NO_MSG_AVAILABLE:
                raise MQMIError(
                    C.MQCC_FAILED, RC.PUBSUB_INHIBITED, "no reply: is the broker service running?"
                ) from None
            raise
        with _mqi():
            return parse_reply(value, md.to_mqmd())

    def request(self, command: Command, timeout: float | None = None) -> CommandReply:
        self.send(command)
        return self.reply_to(command, timeout)

    # ---- the commands ----

    def register_subscriber(
        self,
        topics: Sequence[str],
        *,
        queue: str | None = None,
        options: RegOpt = RegOpt.NONE,
        correl_id: bytes | None = None,
        reply: bool = True,
        **fields: Any,
    ) -> CommandReply | None:
        return self._subscriber_command(RegSub, topics, queue, options, correl_id, reply, fields)

    def deregister_subscriber(
        self,
        topics: Sequence[str] = (),
        *,
        queue: str | None = None,
        options: RegOpt = RegOpt.NONE,
        correl_id: bytes | None = None,
        reply: bool = True,
        **fields: Any,
    ) -> CommandReply | None:
        return self._subscriber_command(DeregSub, topics, queue, options, correl_id, reply, fields)

    def _subscriber_command(
        self,
        kind: type[RegSub] | type[DeregSub],
        topics: Sequence[str],
        queue: str | None,
        options: RegOpt,
        correl_id: bytes | None,
        reply: bool,
        fields: dict[str, Any],
    ) -> CommandReply | None:
        """RegSub or DeregSub for the subscriber queue ``queue`` (default: the reply queue)."""
        md = self.command_md(reply=reply, correl_id=correl_id)
        with _mqi():
            command = kind(
                topics=tuple(topics), options=options, md=md, q_name=queue or md.ReplyToQ, **fields
            )
        return self.request(command) if reply else self._datagram(command)

    def request_update(
        self,
        topic: str,
        *,
        queue: str | None = None,
        options: RegOpt = RegOpt.NONE,
        correl_id: bytes | None = None,
        **fields: Any,
    ) -> CommandReply:
        md = self.command_md(reply=True, correl_id=correl_id)
        with _mqi():
            command = ReqUpdate(
                topic=topic, options=options, md=md, q_name=queue or md.ReplyToQ, **fields
            )
        return self.request(command)

    def publish(
        self,
        topics: Sequence[str],
        body: bytes,
        *,
        options: PubOpt = PubOpt.NONE,
        body_format: str = "MQSTR",
        encoding: int = C.MQENC_NATIVE,
        ccsid: int = C.MQCCSI_UTF8,
        folders: Sequence[str] = (),
        stream: str = DEFAULT_STREAM,
        reply: bool = False,
        correl_id: bytes | None = None,
        msg_handle: int = C.MQHM_NONE,
        **fields: Any,
    ) -> CommandReply | None:
        """Publish ``body``, in ``encoding`` and ``ccsid`` (the command's MQRFH2 says so:
        a body that is itself an MQRFH2 chain is read in them); the properties of
        ``msg_handle`` go in a ``<usr>`` folder for RFH2 readers and as record headers for
        Kafka readers (module propwire)."""
        md = self.command_md(reply=reply, correl_id=correl_id)
        handle = message_handle(msg_handle)
        if msg_handle and handle is None:
            raise failed(RC.HMSG_ERROR, f"no message handle {msg_handle}")
        if handle is not None and handle.properties.values:
            folders = (*folders, usr_folder(handle.properties.values))
        content = PublicationContent(
            body=body, folders=tuple(folders), encoding=encoding, ccsid=ccsid, format=body_format
        )
        with _mqi():
            command = Publish(
                topics=tuple(topics),
                options=options,
                md=md,
                queue=stream,
                content=content,
                **fields,
            )
        if reply:
            self.send(command, msg_handle)
            return self.reply_to(command)
        self.send(command, msg_handle)
        return None

    def delete_publication(
        self, topics: Sequence[str], *, stream: str = DEFAULT_STREAM, reply: bool = True
    ) -> CommandReply | None:
        md = self.command_md(reply=reply)
        with _mqi():
            command = DeletePub(topics=tuple(topics), md=md, queue=stream)
        return self.request(command) if reply else self._datagram(command)

    def _datagram(self, command: Command) -> CommandReply | None:
        self.send(command)
        return None  # a datagram is answered only on failure, and not to anyone waiting

    def close(self) -> None:
        reply, self._reply = self._reply, None
        if reply is not None:
            reply.close()


def raise_for(reply: CommandReply | None, *, translate: bool = False) -> None:
    """An MQMIError for a reply that is not ok (MQCC_WARNING or MQCC_FAILED)."""
    if reply is None or reply.completion is Completion.OK:
        return
    reason = reply.reason
    if translate:
        reason = _MQSUB_REASON.get(reason, reason)
    raise MQMIError(reply.comp, reason, "the queued pub/sub command was refused")


__all__ = ["REPLY_PREFIX", "REPLY_TIMEOUT", "PubSub", "raise_for"]
