"""Process-wide memory settings for a running broker service.

Both are measured on the publication path (fan-out 10, ``bench/bench_service.py``, alternated
runs on one broker): each copy allocates and frees some fifteen small objects between Python,
confluent-kafka and librdkafka, so the allocators' bookkeeping is a visible share of its cost.
"""

from __future__ import annotations

import ctypes
import gc
import logging

log = logging.getLogger(__name__)

# Young objects collected once per this many container allocations. A transaction's records
# are alive until it is written, so a small threshold makes the collector walk each one;
# at 1,000,000 nearly all have been freed by reference count before a collection comes.
# (50,000 → 1,000,000: fan-out 10 +9.5% copies/s, service CPU per publication -7%.)
YOUNG_THRESHOLD = 1_000_000
M_MXFAST = 1  # glibc malloc.h: the largest chunk size kept in "fastbins"
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc malloc.h
# Freed heap kept for the next transaction rather than given back to the kernel. glibc gives
# the heap's top back once twice its (dynamic) mmap threshold is free: a transaction's
# activity records (~256 KB each, and librdkafka's copy of each) were freed, given back and
# faulted in again at the next, ~350 minor faults a 5,000-publication batch at ~1.9 us each
# on the 2-core VM (six 256 KB records: 660 us made, 17 us with the heap kept). Allocations
# above MMAP_BYTES (large messages) are mapped and unmapped on their own as before.
KEEP_FREE_BYTES = 32 << 20
MMAP_BYTES = 4 << 20


def tune_collector() -> None:
    """Everything built at start-up (state, indexes, caches) lives on: keep it out of the
    collector's sight, and collect young objects rarely."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, 20, 20)


def tune_malloc() -> bool:
    """Turn glibc's fastbins off (``mallopt(M_MXFAST, 0)``; small chunks still go through the
    per-thread cache). With them on, every free of a large block (a written batch, a fetched
    one) first sweeps all fastbins back together (``malloc_consolidate``): 7% of the service
    thread's samples at fan-out 10. Off: fan-out 10 +11% copies/s, fan-out 1 +3.5%.
    And keep up to ``KEEP_FREE_BYTES`` of freed heap (see there).
    Returns whether it applied (not on a C library without ``mallopt``)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    applied = bool(mallopt(M_MXFAST, 0))
    log.debug("malloc fastbins off: %s", applied)
    # the mmap threshold first: setting either stops glibc moving both with what is freed
    kept = bool(mallopt(M_MMAP_THRESHOLD, MMAP_BYTES)) and bool(
        mallopt(M_TRIM_THRESHOLD, KEEP_FREE_BYTES)
    )
    log.debug("malloc keeps %d MB freed: %s", KEEP_FREE_BYTES >> 20, kept)
    applied = applied and kept
    return applied
