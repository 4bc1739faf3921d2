"""A batch's activity events as Avro array blocks, cut into ActivityBatch record values as
they come (``ActivityRecorder``'s store; issue 34 point 4).

``Blocks`` is written twice: in C (``_blocks.c``, built at install where a compiler is found:
setup.py) and here in Python, which is the reference and the fallback. A replayed fan-out-1
publication, nearly every one under load, is one ``fan_out_1`` call: its plan's
``events.fan_out_1_template`` filled in with the publication's MsgId, sizes and times. In
Python that is the put time's parts kept per batch, two sizes looked up, a ``%`` format, the
block kept and folded into records every ``SETTLE_BLOCKS``; in C, one call that parses the
template as it copies it into the open record, the times and sizes encoded on the stack.
Cachegrind, the in-process dispatcher, 256 B fan-out 1, batches of 5,000
(``bench.bench_activity_counts --batches 4``), instructions a publication over no activity's
~33,800 (20 publications a put ms: a backlog) and ~37,800 (a put time each: a live flow):
compiled +1,630 and +1,700 (off / on 0.954 and 0.957); the Python twin +6,940 and +18,460
(0.83 and 0.67: a method call more than the inline format it replaced). Of the compiled
~1,650: the dispatcher's call ~450, ``fan_out_1`` ~500, and ~260 the copy of each record's
256 KB into its bytes at ``take`` (valgrind counts a ``rep movsb`` by the byte; on the CPU
it is ~10 ns a publication).

Either way a record holds the blocks that follow while they fit its ``limit``
(``builder.MAX_BATCH_BYTES``), a larger block alone; ``tests/unit/activity`` checks that the
two write the same records for any sequence of blocks and replays.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from typing import Protocol

from mqkafka.activity.events import MQ_MSG_ID_LENGTH, FastEncoder, join_blocks

SETTLE_BLOCKS = 64  # blocks that the Python twin folds into records at once (~18 KB)
TIMES_KEPT = 4096  # put times whose encoding a batch keeps (the Python twin)


class BlockStore(Protocol):
    def begin(self, time_ms: int) -> None:
        """The batch's processing time: that of the replays' events that follow."""

    def fan_out_1(
        self, template: bytes, msg_id: bytes, put_ms: int, value: bytes, head: bytes, body: bytes
    ) -> None:
        """A replayed fan-out-1 publication's block: ``template`` (``fan_out_1_template``'s)
        with ``msg_id`` (24 bytes), the put time, and the sizes of the message (``value``) and
        of its copy (``head`` + ``body``), taken here: the caller's len() calls cost more."""

    def add(self, block: bytes) -> None:
        """A block made elsewhere (``FastEncoder``), after those before it."""

    def take(self) -> list[bytes]:
        """The records' values since the last ``take`` or ``clear``."""

    def clear(self) -> None:
        """Forget the blocks not yet taken (an aborted batch's)."""


class PyBlocks:
    """``Blocks`` in Python. Blocks are kept in a list and folded into records every
    ``SETTLE_BLOCKS``, while they are still in the cache (in-process, batches of 5,000:
    +1.42 / +1.16 us a publication over no activity settling every 256 / 64 blocks)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.encoder = FastEncoder()
        self.varints = self.encoder.varints  # sizes as Avro longs (the encoder's cache)
        self.blocks: list[bytes] = []  # blocks not yet settled
        self._open: list[bytes] = []  # settled blocks of the record being filled
        self._open_size = 0
        self._values: list[bytes] = []
        self.time_ms = -1
        self.put_ms: int | None = None  # the put time of head, between and tail
        self.head = self.between = self.tail = b""
        self.times: dict[int, tuple[bytes, bytes, bytes]] = {}  # the batch's, by put time

    def begin(self, time_ms: int) -> None:
        if time_ms != self.time_ms:
            self.time_ms, self.put_ms = time_ms, None
            self.times = {}

    def stamp(self, put_ms: int) -> None:
        """``head``, ``between`` and ``tail`` (``events.stamps``) of publications put at
        ``put_ms``: a batch interleaves its partitions' put times, so they are kept."""
        times = self.times
        found = times.get(put_ms)
        if found is None:
            found = self.encoder.template_times(self.time_ms, put_ms)
            if len(times) >= TIMES_KEPT:
                times.clear()
            times[put_ms] = found
        self.head, self.between, self.tail = found
        self.put_ms = put_ms

    def fan_out_1(
        self, template: bytes, msg_id: bytes, put_ms: int, value: bytes, head: bytes, body: bytes
    ) -> None:
        if len(msg_id) != MQ_MSG_ID_LENGTH:
            raise ValueError("fan_out_1: the template's MsgId is 24 bytes")
        if put_ms != self.put_ms:
            self.stamp(put_ms)
        size, copy_size = len(value), len(head) + len(body)
        varints = self.varints
        try:  # sizes seen before: a subscript costs less than a call
            sized, copied = varints[size], varints[copy_size]
        except KeyError:
            sized, copied = self.encoder.varint(size), self.encoder.varint(copy_size)
        blocks = self.blocks
        blocks.append(
            template % (self.head, msg_id, sized, self.between, msg_id, copied, self.tail)
        )
        if len(blocks) >= SETTLE_BLOCKS:
            self.settle()

    def add(self, block: bytes) -> None:
        self.blocks.append(block)

    def settle(self) -> None:
        """Fold ``blocks`` into records' values now."""
        blocks = self.blocks
        if not blocks:
            return
        self.blocks = []
        # Nearly always the blocks fit the open record whole: one join, its length the
        # only sum (the running sums below cost ~5x the join: a Python int per block).
        joined = b"".join(blocks)
        if self._open_size + len(joined) <= self.limit:
            self._open.append(joined)
            self._open_size += len(joined)
            return
        ends = list(accumulate(map(len, blocks), initial=0))  # no Python loop per block
        start, count = 0, len(blocks)
        while start < count:
            room = self.limit - self._open_size
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

    def take(self) -> list[bytes]:
        self.settle()
        if self._open:
            self._close()
        values, self._values = self._values, []
        return values

    def clear(self) -> None:
        self.blocks.clear()
        self._open.clear()
        self._open_size = 0
        self._values.clear()


try:
    from mqkafka.activity._blocks import Blocks as CBlocks
except ImportError:  # built without a C compiler: the Python twin
    COMPILED = False
else:
    COMPILED = True


def blocks(limit: int) -> BlockStore:
    """The compiled ``Blocks`` where it was built, else the Python one."""
    return CBlocks(limit) if COMPILED else PyBlocks(limit)
