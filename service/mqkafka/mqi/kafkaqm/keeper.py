"""A connection's keeper thread: when its rounds run, not what they do.

A round runs every ``KEEPER_TICK``, at once when woken (a getter's first acceptance since
its last commit: the keeper commits it, getter's opening comment), or sooner when the last
round said work falls due sooner (acceptances of a busy lane, due ``ACK_GAP`` after its
last commit; other wakes change nothing then). A round that fails is logged and the next
one runs: the keeper must outlive one bad round.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger("mqkafka.mqi.kafkaqm.connection")  # the operator's lines: the MQI's

KEEPER_TICK = 0.25  # seconds between rounds when nothing is due sooner


class Keeper:
    """Runs ``round_`` (which answers the seconds until its next work is due) in a thread."""

    def __init__(self, round_: Callable[[], float], name: str = "mqk-mqi-keeper") -> None:
        self._round = round_
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def halt(self) -> None:
        """Stop after the round in progress (waiting for it up to 10 s)."""
        self._stop.set()
        self._wake.set()
        self._thread.join(10)

    def _run(self) -> None:
        due = KEEPER_TICK
        while not self._stop.is_set():
            if due < KEEPER_TICK:
                self._stop.wait(due)
            else:
                self._wake.wait(KEEPER_TICK)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                due = min(KEEPER_TICK, self._round())
            except Exception:
                due = KEEPER_TICK
                log.exception("MQI keeper round failed")
