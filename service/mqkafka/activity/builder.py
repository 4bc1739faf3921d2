"""Activity events from what the engine did with one consumed message, written in batches.

The dispatcher collects the encoded events of a batch here and writes them as a few
``ActivityBatch`` records at its end (``records``), in the batch's transaction: a Kafka record
per event would cost more than the publication it describes.

A replayed fan-out-1 publication (nearly every one, under load) is the hot path: its plan
keeps its events as one ``%`` format (``events.fan_out_1_template``), and the dispatcher fills
it in with the MsgId, the sizes and the times' parts that this recorder keeps by put time for
the batch (``times``, made by ``stamp``), while the plan is still in the cache; ``replayed``
does another fan-out. Blocks are folded into records every
``SETTLE_BLOCKS`` (``settle``), while they are still in the cache, rather than all at the
batch's end (in-process, batches of 5,000: +1.42 / +1.32 / +1.16 / +1.20 us a publication over
no activity settling every 256 / 128 / 64 / 32 blocks, paired medians of 40).

Where the rest goes (issue 34 point 4, the loaded 2-core VM): the format and the fold, ~0.7 us
a publication with 10,000 plans' templates out of the cache; the records' ~256 KB values were
faulted in page by page at every transaction until ``service.tuning`` kept freed heap. Fewer,
larger records would not help (a transaction of 5,000 publications writes ~6), and the
activity topic cannot be compressed alone: confluent-kafka's producer compresses every topic
alike (librdkafka's per-topic setting is not reached from Python; lz4 for all cost the relay
12-37% more CPU on the corpus), and a second producer would not write in the transaction.
Counted in instructions (valgrind, the dispatcher in-process, 256 B fan-out 1, batches of
5,000, 20 publications a put ms): ~6,200 a publication over no activity's ~26,900, of them the
eval loop ~3,000, the format ~1,500, copies ~600; a new put time ~12,000 more (``stamp``).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from mqkafka.activity.events import (
    COMMAND,
    DELIVERY,
    MQ_MSG_ID_LENGTH,
    FastEncoder,
    ReplayedPlan,
    join_blocks,
)
from mqkafka.engine.effects import Deliver, Processed
from mqkafka.kafka.txloop import OutRecord
from mqkafka.mq.mqmd import MQMD

_TOPIC_TAGS = ("Topic", "MQPSTopic")
_ONE = b"\x02"  # an array block's count of one event
# Records stay far below Kafka's default 1 MB limit whatever the fan-out of a batch.
MAX_BATCH_BYTES = 256 * 1024
SETTLE_BLOCKS = 64  # blocks that ActivityRecorder.settle folds into records at once (~18 KB)
TIMES_KEPT = 4096  # put times whose encoding a batch keeps (ActivityRecorder.times)


class ActivityRecorder:
    def __init__(self, topic: str, qmgr: str, key: str = "") -> None:
        self.topic = topic
        self.qmgr = qmgr
        self.key = key.encode() or None
        self.encoder = FastEncoder()
        self.blocks: list[bytes] = []  # Avro array blocks of the events not yet written
        self._open: list[bytes] = []  # settled blocks of the record being filled
        self._open_size = 0
        self._values: list[bytes] = []  # the records' values made since ``records``
        self.varints = self.encoder.varints  # sizes as Avro longs (the encoder's cache)
        # Replayed publications' times: the batch's processing time (``begin``); the put time
        # last stamped (None: none yet) and fan_out_1_template's arguments that its times
        # decide; by put time, those of the others stamped in this batch (``stamp``).
        self.time_ms = -1
        self.put_ms: int | None = None
        self.head = self.between = self.tail = b""
        self.times: dict[int, tuple[bytes, bytes, bytes]] = {}

    def begin(self, now_ms: int) -> None:
        """A batch processed at ``now_ms`` begins: the replays' times are of it."""
        if now_ms != self.time_ms:
            self.time_ms, self.put_ms = now_ms, None
            self.times = {}

    def stamp(self, put_ms: int) -> None:
        """Make ``head``, ``between`` and ``tail`` (``events.stamps``) those of replayed
        publications put at ``put_ms``. The dispatcher calls this only for a put time other
        than the last: publications read from a partition's backlog share put times, and the
        attributes cost less to read than a lookup by put time; a batch interleaves its
        partitions' put times, and in a live flow nearly every publication has its own, so
        they are kept for the batch and encoded in one call (``template_times``)."""
        times = self.times
        found = times.get(put_ms)
        if found is None:
            found = self.encoder.template_times(self.time_ms, put_ms)
            if len(times) >= TIMES_KEPT:
                times.clear()
            times[put_ms] = found
        self.head, self.between, self.tail = found
        self.put_ms = put_ms

    def replayed(
        self, plan: ReplayedPlan, msg_id: bytes, put_ms: int, size: int, copy_size: int
    ) -> None:
        """Record a replayed publication's events (``size``: the message's; ``copy_size``:
        its copy's at fan-out 1; ``msg_id``: an MQ one, 24 bytes, as ``split_msg_id``
        gives a replay). The dispatcher does the fan-out-1 path itself."""
        template = plan.template
        if template is not None:
            # the plan keeps no middles beside its template, whose MsgId length is 24
            assert len(msg_id) == MQ_MSG_ID_LENGTH
            if put_ms != self.put_ms:
                self.stamp(put_ms)
            varint = self.encoder.varint
            self.blocks.append(
                template % (self.head, msg_id, varint(size), self.between, msg_id,
                            varint(copy_size), self.tail)
            )  # fmt: skip
        else:
            stamp, latency = self.encoder.stamp_of(self.time_ms, put_ms)
            self.blocks.append(
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

    def clear(self) -> None:
        """Forget the events not yet written (an aborted batch's)."""
        self.blocks.clear()
        self._open.clear()
        self._open_size = 0
        self._values.clear()

    def settle(self) -> None:
        """Fold ``blocks`` into records' values now, while they are in the cache (the
        dispatcher calls this every ``SETTLE_BLOCKS``): each record holds the blocks that
        follow while they fit ``MAX_BATCH_BYTES``, a block larger than that alone."""
        blocks = self.blocks
        if not blocks:
            return
        self.blocks = []
        # Nearly always the blocks fit the open record whole: one join, its length the
        # only sum (the running sums below cost ~5x the join: a Python int per block).
        joined = b"".join(blocks)
        if self._open_size + len(joined) <= MAX_BATCH_BYTES:
            self._open.append(joined)
            self._open_size += len(joined)
            return
        ends = list(accumulate(map(len, blocks), initial=0))  # no Python loop per block
        start, count = 0, len(blocks)
        while start < count:
            room = MAX_BATCH_BYTES - self._open_size
            stop = bisect_right(ends, ends[start] + room, start + 1) - 1
            if stop == start:  # the next block does not fit the record: the record is done
                if self._open_size:
                    self._close()
                    continue
                stop = start + 1
            self._open.append(b"".join(blocks[start:stop]))
            self._open_size += ends[stop] - ends[start]
            start = stop
            if start < count:
                self._close()

    def _close(self) -> None:
        self._values.append(join_blocks(self._open))
        self._open = []
        self._open_size = 0

    def records(self) -> list[OutRecord]:
        """The events collected since the last call, as ActivityBatch records."""
        self.settle()
        if self._open:
            self._close()
        values, self._values = self._values, []
        return [OutRecord(self.topic, value, self.key) for value in values]
