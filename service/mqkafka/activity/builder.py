"""Activity events from what the engine did with one consumed message."""

from __future__ import annotations

from mqkafka.activity.events import COMMAND, DELIVERY, FastEncoder
from mqkafka.engine.effects import Deliver, Processed
from mqkafka.kafka.txloop import OutRecord
from mqkafka.mq.mqmd import MQMD

_TOPIC_TAGS = ("Topic", "MQPSTopic")


class ActivityRecorder:
    def __init__(self, topic: str, qmgr: str) -> None:
        self.topic = topic
        self.qmgr = qmgr
        self._encoder = FastEncoder()
        self._keys: dict[str, bytes] = {}

    def _key(self, queue: str) -> bytes:
        key = self._keys.get(queue)
        if key is None:
            key = self._keys[queue] = queue.encode()
        return key

    def command(self, done: Processed, size: int, put_ms: int, now_ms: int) -> OutRecord:
        command = done.command
        md = done.md
        correl = md.CorrelId
        value = self._encoder.event(
            COMMAND,
            now_ms,
            put_ms,
            self.qmgr,
            done.queue,
            command.name if command is not None else None,
            done.response.completion.value,
            int(done.response.reason),
            md.UserIdentifier,
            getattr(command, "q_name", None),
            correl if any(correl) else None,
            getattr(command, "sub_name", None),
            getattr(command, "topics", ()),
            md.MsgId,
            md.Persistence == 1,
            size,
            float(now_ms - put_ms),
        )
        return OutRecord(self.topic, value, self._key(done.queue))

    def delivery(
        self, deliver: Deliver, source: MQMD, size: int, put_ms: int, now_ms: int
    ) -> OutRecord:
        md = deliver.md
        value = self._encoder.event(
            DELIVERY,
            now_ms,
            put_ms,
            self.qmgr,
            deliver.queue,
            "Publish",
            "ok",
            0,
            md.UserIdentifier,
            deliver.queue,
            md.CorrelId,
            None,
            [value for tag, value in deliver.psc if tag in _TOPIC_TAGS],
            source.MsgId,
            md.Persistence == 1,
            size,
            float(now_ms - put_ms),
        )
        return OutRecord(self.topic, value, self._key(deliver.queue))
