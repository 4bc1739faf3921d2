"""The service's process-wide memory settings take effect (and undo cleanly in the test)."""

from __future__ import annotations

import ctypes
import gc
import platform
from collections.abc import Iterator

import pytest

from mqkafka.service.tuning import M_MXFAST, YOUNG_THRESHOLD, tune_collector, tune_malloc

GLIBC = platform.libc_ver()[0] == "glibc"
DEFAULT_MXFAST = 64 * ctypes.sizeof(ctypes.c_size_t) // 4  # glibc malloc.c's DEFAULT_MXFAST


@pytest.fixture
def collector_restored() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*before)


def test_collector_freezes_start_up_objects_and_collects_young_ones_rarely(
    collector_restored: None,
) -> None:
    built_at_start_up: list[list[object]] = [
        [] for _ in range(10)
    ]  # containers: the collector tracks them
    tune_collector()
    assert gc.get_threshold()[0] == YOUNG_THRESHOLD
    # frozen: in the permanent generation, which no collection (and get_objects) walks
    assert not any(obj is built_at_start_up for obj in gc.get_objects())
    built_later: list[object] = []
    assert any(obj is built_later for obj in gc.get_objects())


@pytest.fixture
def fastbins_restored() -> Iterator[None]:
    yield
    if GLIBC:  # the rest of the test session runs with glibc's default again
        ctypes.CDLL(None).mallopt(M_MXFAST, DEFAULT_MXFAST)


def test_malloc_fastbins_are_turned_off_where_the_c_library_is_glibc(
    fastbins_restored: None,
) -> None:
    # glibc has mallopt; elsewhere nothing is changed and the service says so
    assert tune_malloc() is GLIBC
    # the allocator still serves small and large blocks afterwards
    assert len(bytearray(40)) == 40 and len(bytearray(1 << 20)) == 1 << 20
