"""Activity events from what the engine did with one consumed message, written in batches.

The dispatcher collects the encoded events of a batch here and writes them as a few
``ActivityBatch`` records at its end (``records``), in the batch's transaction: a Kafka record
per event would cost more than the publication it describes.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from mqkafka.activity.events import COMMAND, DELIVERY, FastEncoder, Replayed, join_blocks
from mqkafka.engine.effects import Deliver, Processed
from mqkafka.kafka.txloop import OutRecord
from mqkafka.mq.mqmd import MQMD

_TOPIC_TAGS = ("Topic", "MQPSTopic")
_ONE = b"\x02"  # an array block's count of one event
# Records stay far below Kafka's default 1 MB limit whatever the fan-out of a batch.
MAX_BATCH_BYTES = 256 * 1024


class ActivityRecorder:
    def __init__(self, topic: str, qmgr: str, key: str = "") -> None:
        self.topic = topic
        self.qmgr = qmgr
        self.key = key.encode() or None
        self.encoder = FastEncoder()
        self.blocks: list[bytes] = []  # Avro array blocks of the events not yet written
        # Replayed publications noted by the dispatcher, encoded by ``flush`` before the next
        # event and at the batch's end: the hot path appends a tuple, and the encoding runs
        # as one loop (``FastEncoder.replayed_blocks``).
        self.replays: list[Replayed] = []

    def command(self, done: Processed, size: int, put_ms: int, now_ms: int) -> bytes:
        """Record the command event; its middle (``FastEncoder.middle``) is returned."""
        self.flush()
        md = done.md
        middle = self.command_middle(done)
        self.blocks.append(
            _ONE
            + self.encoder.assemble(
                COMMAND, now_ms, put_ms, middle, md.MsgId, md.Persistence == 1, size,
                float(now_ms - put_ms),
            )
        )  # fmt: skip
        return middle

    def command_middle(self, done: Processed) -> bytes:
        command = done.command
        md = done.md
        correl = md.CorrelId
        return self.encoder.middle(
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
        )

    def delivery(
        self, deliver: Deliver, source: MQMD, size: int, put_ms: int, now_ms: int
    ) -> bytes:
        """Record the delivery event; its middle is returned."""
        self.flush()
        middle = self.delivery_middle(deliver)
        self.blocks.append(
            _ONE
            + self.encoder.assemble(
                DELIVERY, now_ms, put_ms, middle, source.MsgId, deliver.md.Persistence == 1,
                size, float(now_ms - put_ms),
            )
        )  # fmt: skip
        return middle

    def delivery_middle(self, deliver: Deliver) -> bytes:
        md = deliver.md
        return self.encoder.middle(
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
        )

    def flush(self) -> None:
        """Encode the publications noted in ``replays`` (in order, before any later event)."""
        if self.replays:
            self.encoder.replayed_blocks(self.replays, self.blocks)
            self.replays.clear()

    def clear(self) -> None:
        """Forget the events not yet written (an aborted batch's)."""
        self.blocks.clear()
        self.replays.clear()

    def records(self) -> list[OutRecord]:
        """The events collected since the last call, as ActivityBatch records."""
        self.flush()
        blocks = self.blocks
        if not blocks:
            return []
        self.blocks = []
        # where each record ends, by the running sum of the blocks' sizes (no Python loop per
        # block: a batch holds thousands); a block larger than a record goes alone
        ends = list(accumulate(map(len, blocks)))
        out = []
        start, done = 0, 0
        while start < len(blocks):
            stop = max(bisect_right(ends, done + MAX_BATCH_BYTES, start), start + 1)
            out.append(OutRecord(self.topic, join_blocks(blocks[start:stop]), self.key))
            start, done = stop, ends[stop - 1]
        return out
