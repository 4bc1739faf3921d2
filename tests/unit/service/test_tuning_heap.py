"""The service keeps freed heap for the next transaction (issue 34 point 4): a transaction's
activity records, ~256 KB each, are made again in memory already mapped, not faulted in
page by page after glibc gave the heap's top back to the kernel."""

from __future__ import annotations

import platform
import resource

import pytest

from mqkafka.activity.builder import MAX_BATCH_BYTES
from mqkafka.service.tuning import KEEP_FREE_BYTES, MMAP_BYTES, tune_malloc

GLIBC = platform.libc_ver()[0] == "glibc"
RECORDS = 6  # a 5,000-publication batch's activity records at fan-out 1
ROUNDS = 20


def faults() -> int:
    return resource.getrusage(resource.RUSAGE_THREAD).ru_minflt


@pytest.mark.skipif(not GLIBC, reason="glibc's mallopt (elsewhere tune_malloc changes nothing)")
def test_a_transactions_activity_records_reuse_the_last_ones_memory() -> None:
    assert tune_malloc()
    blocks = [bytes([i]) * (MAX_BATCH_BYTES // 14) for i in range(14)]
    records = [b"".join(blocks) for _ in range(RECORDS)]  # the heap grows once
    del records
    before = faults()
    for _ in range(ROUNDS):
        records = [b"".join(blocks) for _ in range(RECORDS)]
        del records
    # given back each round, every page of them faulted in again: ~64 a record
    assert faults() - before < ROUNDS * RECORDS * 64 // 10


def test_the_kept_heap_is_bounded_and_large_messages_are_mapped_on_their_own() -> None:
    assert MAX_BATCH_BYTES * 8 < MMAP_BYTES < KEEP_FREE_BYTES <= 64 << 20
