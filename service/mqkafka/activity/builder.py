"""Activity events from what the engine did with one consumed message, written in batches.

The dispatcher collects the encoded events of a batch here and writes them as a few
``ActivityBatch`` records at its end (``records``), in the batch's transaction: a Kafka record
per event would cost more than the publication it describes. The blocks are kept and cut into
records by a ``blocks.BlockStore`` (compiled where it was built); a replayed fan-out-1
publication, the hot path, is one call of its ``fan_out_1``, which the dispatcher makes itself
(``fan_out_1`` here: the store's method, bound once), other replays ``replayed``.

Where the cost went (issue 34 point 4): in Python the fan-out-1 path was ~4,900 instructions
a publication over no activity's ~30,000 in a backlog (eval loop ~3,000, the ``%`` format
~1,500, copies ~600) and ~14,000 in a live flow (a put time each); compiled, ~1,650 either
way (``blocks`` has the figures). The records' ~256 KB values were faulted in page by page
at every transaction until ``service.tuning`` kept freed heap. Fewer, larger records would
not help (a transaction of 5,000 publications writes ~6), and the activity topic cannot be
compressed alone: confluent-kafka's producer compresses every topic alike (librdkafka's
per-topic setting is not reached from Python; lz4 for all cost the relay 12-37% more CPU on
the corpus), and a second producer would not write in the transaction.
"""

from __future__ import annotations

from mqkafka.activity.blocks import BlockStore, blocks
from mqkafka.activity.events import (
    COMMAND,
    DELIVERY,
    FastEncoder,
    ReplayedPlan,
)
from mqkafka.engine.effects import Deliver, Processed
from mqkafka.kafka.txloop import OutRecord
from mqkafka.mq.mqmd import MQMD

_TOPIC_TAGS = ("Topic", "MQPSTopic")
_ONE = b"\x02"  # an array block's count of one event
# Records stay far below Kafka's default 1 MB limit whatever the fan-out of a batch.
MAX_BATCH_BYTES = 256 * 1024


class ActivityRecorder:
    def __init__(
        self, topic: str, qmgr: str, key: str = "", store: BlockStore | None = None
    ) -> None:
        self.topic = topic
        self.qmgr = qmgr
        self.key = key.encode() or None
        self.encoder = FastEncoder()
        self.store = blocks(MAX_BATCH_BYTES) if store is None else store
        self.add = self.store.add
        self.fan_out_1 = self.store.fan_out_1
        self.time_ms = -1

    def begin(self, now_ms: int) -> None:
        """A batch processed at ``now_ms`` begins: the replays' times are of it."""
        self.time_ms = now_ms
        self.store.begin(now_ms)

    def replayed(self, plan: ReplayedPlan, msg_id: bytes, put_ms: int, size: int) -> None:
        """Record the events of a replayed publication whose plan has no template (another
        fan-out than 1; ``size``: the message's); ``fan_out_1`` does a template's."""
        stamp, latency = self.encoder.stamp_of(self.time_ms, put_ms)
        self.add(
            self.encoder.general_block(
                stamp, latency, msg_id, plan.activity, size, plan.copy_events,
                size - plan.length,
            )
        )  # fmt: skip

    def varint(self, value: int) -> bytes:
        return self.encoder.varint(value)

    def command(self, done: Processed, size: int, put_ms: int, now_ms: int) -> bytes:
        """Record the command event; its middle (``FastEncoder.middle``) is returned."""
        md = done.md
        middle = self.command_middle(done)
        self.add(
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
        middle = self.delivery_middle(deliver)
        self.add(
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

    def clear(self) -> None:
        """Forget the events not yet written (an aborted batch's)."""
        self.store.clear()

    def records(self) -> list[OutRecord]:
        """The events collected since the last call, as ActivityBatch records."""
        return [OutRecord(self.topic, value, self.key) for value in self.store.take()]
