"""Queued pub/sub from a Faust app: subscriber queues as streams of :class:`Publication`,
commands and publications sent with one ``await``.

    app = make_app("scores", load_client_config())
    mq = MQPubSub(app, namespace="")
    results = mq.queue("APP.RESULTS")

    @app.agent(results)
    async def on_result(publications):
        async for pub in publications:          # pub.topic, pub.body, pub.properties, pub.md
            await mq.publish("Summary/Results", b"...", retain=True)

    @app.task
    async def register():
        await mq.subscribe("Results/#", queue="APP.RESULTS")

The command messages are the ones :class:`mqkafka.client.kafka_pubsub.KafkaPubSub` sends
(wire contract §3): an MQRFH2 ``<psc>`` folder, the MQMD as ``mqmd.*`` headers, keyed so that
one app's messages to a queue stay in order. With ``wait=True`` a command is a request and the
call returns the broker's reply (:class:`CommandResult`), read by an agent on the app's reply
queue; a command sent from inside an agent should not wait (the default for publications):
with exactly-once processing it is only written when the agent's transaction commits. The
reply queue is read in the app's consumer group, so give each worker of an app that waits for
replies its own ``reply_queue``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any

from mqkafka.client.kafka_pubsub import (
    CommandResult,
    command_message,
    command_result,
    publish_pairs,
    request_update_pairs,
    subscription_pairs,
)
from mqkafka.faust.mqschema import MQSchema, Publication, encode_record
from mqkafka.mq.commands import CONTROL_QUEUE, DEFAULT_STREAM
from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import MQMD, MQMT, MQPER
from mqkafka.mq.reasons import RC
from mqkafka.wire.names import queue_to_topic

log = logging.getLogger(__name__)

REPLY_QUEUE_PREFIX = "MQK.FAUST."
_NOT_IN_A_QUEUE_NAME = re.compile(r"[^A-Za-z0-9._]")


def default_reply_queue(app_id: str) -> str:
    """``MQK.FAUST.<app id>``: an MQ name (48 characters at most, no ``-``)."""
    return (REPLY_QUEUE_PREFIX + _NOT_IN_A_QUEUE_NAME.sub("_", app_id).upper())[:48]


class MQPubSub:
    """MQ queued pub/sub for one Faust app; builds no connection until the app starts."""

    def __init__(
        self,
        app: Any,
        *,
        namespace: str = "",
        reply_queue: str | None = None,
        user: str | None = None,
        stream: str = DEFAULT_STREAM,
    ) -> None:
        self.app = app
        self.namespace = namespace
        self.stream = stream
        # The app's id has the namespace in front (make_app): the queue's topic gets it anyway.
        own_id = str(app.conf.id).removeprefix(namespace)
        self.reply_queue = reply_queue or default_reply_queue(own_id)
        self.user = user if user is not None else os.environ.get("USER", "mqk")[:12]
        # One key for everything this app puts: its messages stay in one partition, in order.
        self.client_key = uuid.uuid4().bytes
        self._topics: dict[str, Any] = {}
        self._pending: dict[bytes, asyncio.Future[CommandResult]] = {}
        app.agent(self.queue(self.reply_queue), name=f"{app.conf.id}.mq-replies")(self._replies)

    # --- queues ------------------------------------------------------------------------
    def queue(self, name: str, **topic_options: Any) -> Any:
        """The Faust topic of MQ queue ``name``: values read are :class:`Publication`."""
        topic = self._topics.get(name)
        if topic is None:
            # internal=True: Faust then creates the topic before it subscribes (it ignores a
            # missing one for good otherwise); a queue the service created is left as it is.
            options = {"internal": True, **topic_options}
            topic = self.app.topic(
                queue_to_topic(name, self.namespace), schema=MQSchema(), **options
            )
            self._topics[name] = topic
        return topic

    async def put(self, queue: str, md: MQMD, value: bytes, key: bytes | None = None) -> None:
        """MQPUT: one record on the queue's topic, the MQMD as headers."""
        data, headers = encode_record(md, value)
        await self.queue(queue).send(key=key or self.client_key, value=data, headers=headers)

    # --- commands ----------------------------------------------------------------------
    async def command(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        queue: str = CONTROL_QUEUE,
        body: bytes = b"",
        correl_id: bytes | None = None,
        wait: bool = True,
        timeout: float = 30.0,
        persistent: bool = False,
        folders: Sequence[str] = (),
    ) -> CommandResult | None:
        """Send one command; with ``wait`` return the broker's reply (TimeoutError if none)."""
        msg_id = b"MQKF" + uuid.uuid4().bytes + bytes(4)
        md = MQMD(
            MsgType=MQMT.REQUEST if wait else MQMT.DATAGRAM,
            MsgId=msg_id,
            CorrelId=correl_id or bytes(24),
            ReplyToQ=self.reply_queue,
            UserIdentifier=self.user,
            Persistence=MQPER.PERSISTENT if persistent else MQPER.NOT_PERSISTENT,
        )
        md, value = command_message(pairs, body=body, md=md, folders=folders)
        if not wait:
            await self.put(queue, md, value, key=correl_id)
            return None
        reply: asyncio.Future[CommandResult] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = reply
        try:
            await self.put(queue, md, value, key=correl_id)
            return await asyncio.wait_for(reply, timeout)
        except TimeoutError:
            raise TimeoutError(
                f"no reply from the broker service on {self.reply_queue} within {timeout:g} s "
                "(is 'mqk serve' running?)"
            ) from None
        finally:
            self._pending.pop(msg_id, None)

    async def subscribe(
        self,
        topic: str | Sequence[str],
        *,
        queue: str,
        options: Sequence[str] = (),
        correl_id: bytes | None = None,
        sub_name: str | None = None,
        filter: str | None = None,
        sub_point: str | None = None,
        wait: bool = True,
    ) -> CommandResult | None:
        """RegSub."""
        pairs = subscription_pairs("RegSub", topic, queue, options, sub_name, filter, sub_point)
        return await self.command(pairs, correl_id=correl_id, wait=wait)

    async def unsubscribe(
        self,
        topic: str | Sequence[str] | None,
        *,
        queue: str,
        options: Sequence[str] = (),
        correl_id: bytes | None = None,
        sub_name: str | None = None,
        filter: str | None = None,
        sub_point: str | None = None,
        wait: bool = True,
    ) -> CommandResult | None:
        """DeregSub."""
        pairs = subscription_pairs("DeregSub", topic, queue, options, sub_name, filter, sub_point)
        return await self.command(pairs, correl_id=correl_id, wait=wait)

    async def request_update(
        self,
        topic: str,
        *,
        queue: str,
        options: Sequence[str] = (),
        correl_id: bytes | None = None,
        sub_name: str | None = None,
        filter: str | None = None,
        wait: bool = True,
    ) -> CommandResult | None:
        """ReqUpdate: the retained publication on ``topic`` is sent to ``queue``."""
        pairs = request_update_pairs(topic, queue, options, sub_name, filter)
        return await self.command(pairs, correl_id=correl_id, wait=wait)

    async def publish(
        self,
        topic: str | Sequence[str],
        body: bytes,
        *,
        retain: bool = False,
        options: Sequence[str] = (),
        stream: str | None = None,
        persistent: bool = False,
        wait: bool = False,
        folders: Sequence[str] = (),
    ) -> CommandResult | None:
        """Publish on the stream (default ``SYSTEM.BROKER.DEFAULT.STREAM``); ``folders`` are
        further RFH2 folders, e.g. ``<usr>`` properties for subscribers' filters."""
        pairs = publish_pairs(topic, retain, options)
        return await self.command(
            pairs,
            queue=stream or self.stream,
            body=body,
            wait=wait,
            persistent=persistent,
            folders=folders,
        )

    async def delete_publication(
        self, topic: str, *, stream: str | None = None, wait: bool = True
    ) -> CommandResult | None:
        """DeletePub: the retained publication on ``topic`` is deleted."""
        pairs = [("Command", "DeletePub"), ("Topic", topic)]
        return await self.command(pairs, queue=stream or self.stream, wait=wait)

    # --- replies -----------------------------------------------------------------------
    async def _replies(self, replies: AsyncIterator[Publication]) -> AsyncIterator[None]:
        async for reply in replies:
            result = parse_reply_publication(reply)
            waiting = self._pending.get(reply.md.CorrelId)
            if waiting is not None and not waiting.done():
                waiting.set_result(result)
            elif not result.ok:  # a command sent without waiting: its failure, in one line
                log.warning(
                    "the broker refused a command: %s reason %d",
                    result.completion,
                    result.reason,
                )
            yield None


def parse_reply_publication(reply: Publication) -> CommandResult:
    """The reply's ``<pscr>`` as a :class:`CommandResult` (the client's parser)."""
    try:
        return command_result(reply.value, reply.md)
    except MQError:  # not a reply at all: an error result, never a crash
        return CommandResult("error", int(RC.RFH_FORMAT_ERROR), (), ())


__all__ = ["MQPubSub", "default_reply_queue", "parse_reply_publication"]
