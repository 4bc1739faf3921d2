"""The connection table is read by many connections' threads while one thread replays the
heartbeat topic into it (``mqk listen``: every client connection in one process)."""

from __future__ import annotations

import threading

from mqkafka.mqi.kafkaqm.heartbeat import ConnectionTable, Heartbeat, QueueUse

BEATS = 3000


def test_reading_while_beats_are_applied_never_raises() -> None:
    table = ConnectionTable(timeout=30.0)
    done = threading.Event()

    def replay() -> None:
        for n in range(1, BEATS + 1):
            key = f"c{n}"
            table.apply(key, Heartbeat(key, queues={"Q": QueueUse(handles=1)}).encode(), n)
            if n % 3 == 0:
                table.apply(f"c{n - 2}", None, n)  # a clean MQDISC's tombstone
        done.set()

    errors: list[Exception] = []
    replayer = threading.Thread(target=replay)
    replayer.start()
    try:
        while not done.is_set():
            try:
                table.expired()
                table.uses("Q")
                list(table)
            except RuntimeError as error:  # "dictionary changed size during iteration"
                errors.append(error)
    finally:
        replayer.join()
    assert errors == []
    assert len(table) == BEATS - BEATS // 3
