"""Queued pub/sub from a plain Kafka application: command messages out, replies and
publications in, exactly as the wire contract says (no MQI needed).

    client = KafkaPubSub("127.0.0.1:9092")
    client.register("Sport/Soccer/#", queue="RESULTS", options=["CorrelAsId"], correl_id=cid)
    client.publish("Sport/Soccer/Chelsea", b"4-1", retain=True)
    for pub in client.read_queue("RESULTS", count=1): print(pub.topic, pub.body)

Every command is a REQUEST with a reply queue (default ``MQK.CLIENT.REPLY``), and the call
waits for the reply whose CorrelId is the command's MsgId (the default Report option), so a
caller learns the exact completion and reason code.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from mqkafka.kafka import clients, topicadmin
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.clients import KafkaError, KafkaException, TopicPartition
from mqkafka.kafka.groups import APP_GROUP_PREFIX
from mqkafka.mq import rfh1 as rfh1_codec
from mqkafka.mq.commands import CONTROL_QUEUE, DEFAULT_STREAM
from mqkafka.mq.message import decode_message
from mqkafka.mq.mqmd import (
    MQFMT_NONE,
    MQFMT_RF_HEADER_1,
    MQFMT_RF_HEADER_2,
    MQFMT_STRING,
    MQMD,
    MQMT,
    MQPER,
)
from mqkafka.mq.pscommands import (
    CommandResult,
    command_message,
    command_result,
    publish_pairs,
    request_update_pairs,
    subscription_pairs,
)
from mqkafka.mq.rfh1 import Rfh1, format_name_values
from mqkafka.wire.headers import mqmd_from_headers, mqmd_to_headers
from mqkafka.wire.kafkanative import has_psc, psc_pairs
from mqkafka.wire.names import queue_to_topic

# The command builders and the lenient reply reader (command_result) are mqkafka.mq.pscommands'
# (one place for the MQI, this client, the CLI and Faust).

REPLY_QUEUE = "MQK.CLIENT.REPLY"
REPLY_RETENTION_MS = str(3600 * 1000)  # of REPLY_QUEUE's topic, when this client makes it


class NoReply(TimeoutError):
    """The command message was put (it is on Kafka) but no reply came in time: the service
    applies it when it runs, so sending it again would do it twice."""

    def __init__(self, timeout: float) -> None:
        super().__init__(
            f"put; no reply from the broker service within {timeout:.0f} s: it will be "
            "applied when the service runs; do not re-send"
        )


@dataclass(frozen=True)
class Received:
    """A message read from a queue: its MQMD, the pub/sub properties and the body."""

    md: MQMD
    psc: dict[str, list[str]]
    body: bytes
    offset: int

    @property
    def topic(self) -> str | None:
        topics = self.psc.get("Topic")
        return topics[0] if topics else None


class KafkaPubSub:
    def __init__(
        self,
        kafka: ClientConfig | str,
        *,
        namespace: str = "",
        reply_queue: str = REPLY_QUEUE,
        user: str | None = None,
        put_timeout: float = 30.0,
    ) -> None:
        self.kafka = kafka if isinstance(kafka, ClientConfig) else ClientConfig(kafka)
        self.bootstrap = self.kafka.bootstrap
        self.namespace = namespace
        self.reply_queue = reply_queue
        self.user = user if user is not None else os.environ.get("USER", "mqk")[:12]
        # librdkafka gives a record up after message.timeout.ms (5 minutes by default, longer
        # than anyone waits for a command): bounded, every put ends with a delivery report,
        # so a put said done is on Kafka and one that failed is said, never dropped at exit.
        self.put_timeout = put_timeout
        timeout_ms = str(int(put_timeout * 1000))
        self._producer = clients.producer(
            self.kafka, {"linger.ms": 1, "message.timeout.ms": timeout_ms}
        )
        # One key for everything this client puts: its messages to a queue stay in one
        # partition, so they are processed in the order they were put (wire contract §2).
        self.client_key = uuid.uuid4().bytes
        self._replies: Any = None
        self._pending: dict[bytes, CommandResult] = {}

    # --- sending -----------------------------------------------------------------------
    def put(self, queue: str, md: MQMD, value: bytes, key: bytes | None = None) -> None:
        """Put one message and return once Kafka has it; KafkaException when it has not."""
        reports: list[KafkaError | None] = []
        self._producer.produce(
            queue_to_topic(queue, self.namespace),
            value=value,
            key=key,
            headers=mqmd_to_headers(md),
            on_delivery=lambda error, _message: reports.append(error),
        )
        self._producer.flush(self.put_timeout + 5.0)
        if not reports:  # not expected: message.timeout.ms ends every record before this
            reports.append(KafkaError(KafkaError._MSG_TIMED_OUT, f"{queue}: no delivery report"))
        if reports[0] is not None:
            raise KafkaException(reports[0])

    def command(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        queue: str = CONTROL_QUEUE,
        body: bytes = b"",
        correl_id: bytes | None = None,
        reply_to_q: str | None = None,
        wait: float | None = 30.0,
        persistent: bool = False,
        folders: Sequence[str] = (),
        rfh1: bool = False,
    ) -> CommandResult | None:
        """Send one command; wait for and return its reply (None with ``wait=None``).
        ``rfh1``: ``pairs`` are MQRFH name/value pairs (``MQPSCommand`` ...), the older
        interface, and the body follows that header."""
        msg_id = b"MQKA" + uuid.uuid4().bytes + bytes(4)
        md = MQMD(
            MsgType=MQMT.REQUEST if wait is not None else MQMT.DATAGRAM,
            MsgId=msg_id,
            CorrelId=correl_id or bytes(24),
            ReplyToQ=reply_to_q or self.reply_queue,
            UserIdentifier=self.user,
            Persistence=MQPER.PERSISTENT if persistent else MQPER.NOT_PERSISTENT,
        )
        if wait is not None:
            self._ensure_reply_consumer()
        if rfh1:
            md, value = rfh1_command_message(pairs, body, md)
        else:
            md, value = command_message(pairs, body=body, md=md, folders=folders)
        self.put(queue, md, value, key=correl_id or self.client_key)
        return None if wait is None else self.reply_to(msg_id, wait)

    def register(
        self,
        topic: str | Sequence[str],
        *,
        queue: str,
        options: Sequence[str] = (),
        correl_id: bytes | None = None,
        sub_name: str | None = None,
        filter: str | None = None,
        sub_point: str | None = None,
        wait: float | None = 30.0,
    ) -> CommandResult | None:
        pairs = subscription_pairs("RegSub", topic, queue, options, sub_name, filter, sub_point)
        return self.command(pairs, correl_id=correl_id, wait=wait)

    def deregister(
        self,
        topic: str | Sequence[str] | None,
        *,
        queue: str,
        options: Sequence[str] = (),
        correl_id: bytes | None = None,
        sub_name: str | None = None,
        filter: str | None = None,
        sub_point: str | None = None,
        wait: float | None = 30.0,
    ) -> CommandResult | None:
        pairs = subscription_pairs("DeregSub", topic, queue, options, sub_name, filter, sub_point)
        return self.command(pairs, correl_id=correl_id, wait=wait)

    def request_update(
        self,
        topic: str,
        *,
        queue: str,
        options: Sequence[str] = (),
        correl_id: bytes | None = None,
        sub_name: str | None = None,
        filter: str | None = None,
        wait: float | None = 30.0,
    ) -> CommandResult | None:
        pairs = request_update_pairs(topic, queue, options, sub_name, filter)
        return self.command(pairs, correl_id=correl_id, wait=wait)

    def publish(
        self,
        topic: str | Sequence[str],
        data: bytes,
        *,
        retain: bool = False,
        options: Sequence[str] = (),
        stream: str = DEFAULT_STREAM,
        persistent: bool = False,
        wait: float | None = 30.0,
        folders: Sequence[str] = (),
        register: bool = True,
    ) -> CommandResult | None:
        """Publish; ``register=False`` keeps the publisher unregistered: RFH1's Publish with
        NoReg, the one form MQ has for that (an RFH2 Publish with a reply queue registers
        its publisher implicitly), to the same stream and subscribers (no ``folders``)."""
        if not register and not folders:
            topics = [topic] if isinstance(topic, str) else list(topic)
            given = [*options, "RetainPub"] if retain else list(options)
            pairs = [("MQPSCommand", "Publish"), *(("MQPSTopic", t) for t in topics)]
            pairs += [("MQPSPubOpts", o) for o in ("NoReg", *given)]
            return self.command(
                pairs, queue=stream, body=data, wait=wait, persistent=persistent, rfh1=True
            )
        pairs = publish_pairs(topic, retain, options)
        return self.command(
            pairs, queue=stream, body=data, wait=wait, persistent=persistent, folders=folders
        )

    def delete_publication(
        self, topic: str, *, stream: str = DEFAULT_STREAM, wait: float | None = 30.0
    ) -> CommandResult | None:
        return self.command([("Command", "DeletePub"), ("Topic", topic)], queue=stream, wait=wait)

    # --- receiving ---------------------------------------------------------------------
    def _ensure_reply_consumer(self) -> None:
        if self._replies is not None:
            return
        topic = queue_to_topic(self.reply_queue, self.namespace)
        # mqk's shared reply queue keeps replies an hour, not for ever: each is read within
        # its command's wait, and the queue grew with every command (issue 35)
        config = {"retention.ms": REPLY_RETENTION_MS} if self.reply_queue == REPLY_QUEUE else {}
        topicadmin.ensure_topic(clients.admin(self.kafka), topic, config=config)
        consumer = clients.consumer(self.kafka, _READER)
        consumer.assign([TopicPartition(topic, 0, _end_offset(consumer, topic))])
        self._replies = consumer

    def reply_to(self, msg_id: bytes, timeout: float = 30.0) -> CommandResult:
        assert self._replies is not None
        deadline = time.monotonic() + timeout
        while msg_id not in self._pending:
            if time.monotonic() > deadline:
                raise NoReply(timeout)
            for message in self._replies.consume(100, 0.1):
                if message.error() is None:
                    md, _ = mqmd_from_headers(message.headers())
                    self._pending[md.CorrelId] = command_result(message.value(), md)
        return self._pending.pop(msg_id)

    def read_queue(
        self,
        queue: str,
        *,
        count: int | None = None,
        timeout: float = 10.0,
        from_beginning: bool = True,
        correl_id: bytes | None = None,
    ) -> Iterator[Received]:
        """Messages on ``queue`` (committed ones only), in order, until ``count`` or idle."""
        topic = queue_to_topic(queue, self.namespace)
        consumer = clients.consumer(self.kafka, _READER)
        metadata = consumer.list_topics(topic, timeout=10).topics[topic]
        start = -2 if from_beginning else -1
        consumer.assign([TopicPartition(topic, p, start) for p in metadata.partitions])
        seen = 0
        deadline = time.monotonic() + timeout
        try:
            while (count is None or seen < count) and time.monotonic() < deadline:
                for message in consumer.consume(500, 0.1):
                    if message.error() is not None:
                        continue
                    received = parse_received(
                        message.value() or b"", message.headers(), message.offset()
                    )
                    if correl_id is not None and received.md.CorrelId != correl_id:
                        continue
                    seen += 1
                    yield received
                    if count is not None and seen >= count:
                        return
        finally:
            consumer.close()

    def close(self) -> None:
        self._producer.flush(10)
        if self._replies is not None:
            self._replies.close()


def rfh1_command_message(
    pairs: Sequence[tuple[str, str]], body: bytes, md: MQMD
) -> tuple[MQMD, bytes]:
    """An MQRFH command: its NameValueString from ``pairs``, then the body (text)."""
    header = Rfh1(
        format=MQFMT_STRING if body else MQFMT_NONE, name_values=format_name_values(pairs)
    )
    md = md.replace(Format=MQFMT_RF_HEADER_1)
    return md, rfh1_codec.encode(header, md.Encoding, string_ccsid=md.CodedCharSetId) + body


def parse_received(value: bytes, headers: Any, offset: int = -1) -> Received:
    md, _ = mqmd_from_headers(headers)
    psc: dict[str, list[str]] = {}
    body = value
    if md.Format == MQFMT_RF_HEADER_2:
        message = decode_message(value, md)
        folder = message.psc()
        for key, item in folder.pairs() if folder is not None else ():
            psc.setdefault(key, []).append(item)
        body = message.body
    elif has_psc(headers):  # a Kafka-native queue's (issue 37): the <psc> in mqpsc.* headers
        for key, item in psc_pairs(headers):
            psc.setdefault(key, []).append(item)
    return Received(md, psc, body, offset)


_READER: dict[str, Any] = {
    "group.id": APP_GROUP_PREFIX + "reader",  # assign only: never joins, never commits
    "enable.auto.commit": False,
    "isolation.level": "read_committed",
    "fetch.wait.max.ms": 10,
}


def _end_offset(consumer: Any, topic: str, timeout: float = 30.0) -> int:
    deadline = time.monotonic() + timeout
    while True:
        try:
            _, high = consumer.get_watermark_offsets(
                TopicPartition(topic, 0), timeout=10, cached=False
            )
            return int(high)
        except KafkaException:  # a topic created a moment ago: metadata still on its way
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


__all__ = [
    "REPLY_QUEUE",
    "CommandResult",
    "KafkaPubSub",
    "NoReply",
    "Received",
    "command_message",
    "command_result",
    "parse_received",
    "publish_pairs",
    "request_update_pairs",
    "subscription_pairs",
]
