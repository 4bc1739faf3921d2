"""How large a transaction of ``TransactionalLoop`` grows: by records, bytes and time together.

A transaction's commit costs a fixed ~2-5 ms of round trips (offsets, markers), so a full
stream must drain in large transactions; a trickle must commit at once, or each record waits
for others. The old rule ("a batch that comes back short of ``batch_size`` commits") could
not tell the two apart: incompressible records arrive a fetch (~1 MB) at a time, so batches
come back short under full load and the stream was committed in tiny transactions (issue 21).

The rule here looks at what the transaction holds, not at one batch's size:

* it commits when it holds ``max_records`` inputs, ``max_bytes`` of input or ``max_writes``
  outputs, or is ``max_seconds`` old, or the loop is stopping (bounded memory and latency);
* while input keeps arriving it takes the next batch (what has arrived, without waiting);
* when nothing has arrived, a transaction that is still small commits at once (a trickle:
  no record waits), while one that is already large (the stream is full: ``busy_records`` or
  ``busy_bytes``) waits once, up to ``fill_wait``, for the next fetch before it commits.

A trickle, as measured (``bench_service --only latency``: 1,000 publications/s of the corpus's
mix, traced in the service): a transaction holds ~10 publications and lasts ~9 ms at p50, of
which Kafka's round trips are 83% (the replica's end offsets 18%, send_offsets 34%, commit
31%) and the service's own work 17%; no transaction waited for input (``fill_wait`` only
applies once ``busy_records`` or ``busy_bytes`` are reached). A publication waits for the
transaction in flight and then its own: put to read p50 ~18 ms, as through the identity relay
on this loop in the same run; the p99 is those round trips stalling on a loaded broker.
Producer settings tried on such transactions (1,000 each, interleaved) changed nothing:
``retry.backoff.max.ms`` 200 or 20, ``linger.ms`` 2 or 0 (p50 3.8-4.3 ms, p99 16-30 ms).

Pure logic, no I/O: ``tests/unit/kafka/test_batching.py`` checks it as a table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

COMMIT = -1.0  # next_wait's answer: commit now


@dataclass(frozen=True)
class BatchLimits:
    """The bounds of one transaction, with the reason for each default."""

    # inputs per consume(): more per call costs nothing but memory, which max_bytes bounds
    batch_size: int = 5000
    # 50,000 × 256 B publications are ~0.3 s of work: a commit's ~3 ms is then <1% of it
    max_records: int = 50_000
    # 32 MB of input: 500 × 64 KB bodies or 8 × 4 MB ones; what a transaction holds in the
    # consumer's batches until it commits is bounded by this, whatever the record size
    max_bytes: int = 32 << 20
    # copies written: fan-out multiplies them; the producer's queue holds them until sent
    max_writes: int = 200_000
    # the longest a record read early in a full stream waits for its commit
    max_seconds: float = 0.25
    # a transaction this large means the stream is full: wait for the next fetch rather
    # than commit at a momentary gap between fetches (2 ms: about one fetch round trip)
    busy_records: int = 1000
    busy_bytes: int = 1 << 20
    fill_wait: float = 0.002
    # input bytes handed to the handler at once: what it makes of them (up to one copy per
    # subscriber) is alive until produced, so large records go in small groups
    chunk_bytes: int = 8 << 20


def next_wait(
    limits: BatchLimits,
    *,
    records: int,
    size: int,
    writes: int,
    elapsed: float,
    last_batch: int,
    waited: bool = False,
    stopping: bool = False,
) -> float:
    """After a batch was added to the transaction (``records`` inputs of ``size`` bytes in
    all, ``writes`` outputs, ``elapsed`` seconds since it began, ``last_batch`` inputs in
    the batch just read, ``waited``: that read had waited for input): ``COMMIT``, or how
    long to wait for the next batch (0: take only what has already arrived)."""
    if stopping or elapsed >= limits.max_seconds:
        return COMMIT
    if records >= limits.max_records or size >= limits.max_bytes or writes >= limits.max_writes:
        return COMMIT
    if last_batch > 0:
        return 0.0
    if waited:  # a full stream's next fetch did not come in time: it is not full any more
        return COMMIT
    if records >= limits.busy_records or size >= limits.busy_bytes:
        return min(limits.fill_wait, limits.max_seconds - elapsed)
    return COMMIT


def chunks(lengths: Sequence[int], limit: int) -> list[tuple[int, int]]:
    """``lengths`` (of a batch's records) cut into consecutive ranges ``(start, end)`` of at
    most ``limit`` bytes each, or of one record where one alone is larger."""
    ranges: list[tuple[int, int]] = []
    start, total = 0, 0
    for i, length in enumerate(lengths):
        if total + length > limit and i > start:
            ranges.append((start, i))
            start, total = i, 0
        total += length
    if start < len(lengths):
        ranges.append((start, len(lengths)))
    return ranges
