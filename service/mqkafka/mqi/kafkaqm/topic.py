"""MQOPEN of a topic and MQPUT to it from the client: pymqi's :class:`Topic`.

A publication is a queued Publish command (:class:`~mqkafka.mqi.kafkaqm.psclient.PubSub`):
the topic string is its Topic, a topic object its SubPoint, MQPMO_RETAIN its
RetainPub option; the message's Format, Encoding and CCSID go in the command's header.
``Topic.sub`` is MQSUB of the same topic (:mod:`mqkafka.mqi.kafkaqm.pubsub`). Kept apart
from MQSUB: publishing shares nothing with a subscription's state but the command client.
"""

from __future__ import annotations

from typing import Any

from mqkafka.mq.commands import PubOpt
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm.blocks import end_block
from mqkafka.mqi.kafkaqm.channel import text
from mqkafka.mqi.kafkaqm.psclient import PubSub
from mqkafka.mqi.kafkaqm.pubsub import Subscription
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager, _mqi, string_message
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.errors import InterfaceMisuse, PYIFError, failed
from mqkafka.mqi.rules.rfh2class import with_headers
from mqkafka.mqi.rules.structs import OD, SD, mqchars


class Topic:
    """pymqi's ``Topic``: ``Topic(qmgr, topic_string="a/b").pub(b"data")`` is a Publish."""

    def __init__(
        self,
        queue_manager: QueueManager,
        topic_name: str | bytes | None = None,
        topic_string: str | bytes | None = None,
        topic_desc: OD | None = None,
        open_opts: int | None = None,
    ) -> None:
        self.qmgr = queue_manager
        self.topic_name = text(topic_name)
        self.topic_string = text(topic_string)
        self.pubsub = PubSub(queue_manager)
        self._open = False
        if topic_desc is not None:
            if topic_desc.ObjectType != C.MQOT_TOPIC:
                raise PYIFError("The Topic Descriptor ObjectType is not MQOT_TOPIC.")
            if topic_desc.Version != C.MQOD_VERSION_4:
                raise PYIFError("The Topic Descriptor Version is not MQOD_VERSION_4.")
        if open_opts is not None:
            self.open(topic_name, topic_string, topic_desc, open_opts)

    def open(
        self,
        topic_name: str | bytes | None = None,
        topic_string: str | bytes | None = None,
        topic_desc: OD | None = None,
        open_opts: int = C.MQOO_OUTPUT,
    ) -> Topic:
        """MQOPEN of the topic; returns the Topic (pymqi: ``with topic.open(...):``)."""
        if self._open:
            raise InterfaceMisuse(RC.HOBJ_ERROR, "The Topic is already open.")
        topic_name, topic_string = text(topic_name), text(topic_string)
        if topic_desc is not None:
            topic_string = text(topic_desc.ObjectString) or topic_string
            topic_name = mqchars(topic_desc.ObjectName) or topic_name
        self.topic_name = topic_name or self.topic_name
        self.topic_string = topic_string or self.topic_string
        if not self.topic_string and not self.topic_name:
            raise failed(RC.TOPIC_STRING_ERROR, "no topic string and no topic object")
        if not open_opts & C.MQOO_OUTPUT:
            raise failed(RC.OPTIONS_ERROR, "a topic is opened for output to publish")
        self._open = True
        return self

    def pub(self, msg: bytes | str, *opts: Any) -> None:
        if not self._open:
            self.open(self.topic_name, self.topic_string)
        pmo = opts[1] if len(opts) > 1 else None
        data, md = string_message(self.qmgr, msg, opts[0] if opts else None)
        options = PubOpt.NONE
        if pmo is not None and pmo.Options & C.MQPMO_RETAIN:
            options |= PubOpt.RETAIN_PUBLICATION
        body_format = mqchars(md.Format) if md is not None else "MQSTR"
        # The data is in the MQMD's Encoding and CCSID: a publisher's own MQRFH2 before it
        # (pub_rfh2, or Format MQHRF2) was packed in that Encoding, and the command's header
        # must say so for the service to read the chain (MQCCSI_Q_MGR is the queue manager's).
        encoding = md.Encoding if md is not None else C.MQENC_NATIVE
        ccsid = md.CodedCharSetId if md is not None else C.MQCCSI_Q_MGR
        fields: dict[str, Any] = {}
        if self.topic_name:
            fields["sub_point"] = self.topic_name
        with _mqi():
            if not isinstance(data, bytes | bytearray):
                raise failed(RC.BUFFER_ERROR, f"message must be bytes, not {type(data).__name__}")
            self.pubsub.publish(
                [self.topic_string or ""],
                bytes(data),
                options=options,
                body_format=body_format,
                encoding=encoding,
                ccsid=self.qmgr.default_ccsid if ccsid == C.MQCCSI_Q_MGR else ccsid,
                msg_handle=pmo.OriginalMsgHandle if pmo is not None else C.MQHM_NONE,
                **fields,
            )

    def pub_rfh2(self, msg: bytes, *opts: Any) -> None:
        """pymqi's pub_rfh2(msg, md, pmo, [RFH2, ...]): the headers go before ``msg``."""
        data, rest = with_headers(msg, opts)
        self.pub(data, *rest)

    def sub(self, sub_desc: SD | None = None, sub_queue: Queue | None = None) -> Subscription:
        """A subscription to this topic (pymqi's ``Topic.sub``)."""
        subscription = Subscription(self.qmgr)
        subscription.sub(
            sub_desc=sub_desc,
            sub_queue=sub_queue,
            topic_name=self.topic_name,
            topic_string=self.topic_string,
        )
        return subscription

    def close(self, options: int = C.MQCO_NONE) -> None:
        if not self._open:
            raise InterfaceMisuse(RC.HOBJ_ERROR, "Topic not open.")
        self._open = False
        self.pubsub.close()

    def __enter__(self) -> Topic:
        """Opened already, or opened inside the block (pymqi's test suite calls ``open``
        within ``with Topic(...) as topic``)."""
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if self._open:
            end_block(kind, self.close)

    # Collected, a Topic needs no __del__: its reply queue (a Queue) closes itself when it
    # is collected too, outside the collection (Connection.collected).


__all__ = ["Topic"]
