"""What a connection that shares its clients makes at its first need, not at MQCONN: its
producer (first non-syncpoint put or requeue) and its keeper thread (first getter, producer
or collected object). Until then it is kept by the thread of the clients it shares
(:mod:`.sharedclients`): an idle connection has no Kafka client and no thread of its own
(``bench.bench_channel_idle``). A connection with clients of its own makes both at MQCONN.
A mixin of :class:`~.connection.Connection`, which holds the rest of the state named here.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from mqkafka.kafka import clients
from mqkafka.mqi.kafkaqm.heartbeat import QueueUse
from mqkafka.mqi.kafkaqm.keeper import Keeper
from mqkafka.mqi.kafkaqm.settings import Settings
from mqkafka.mqi.kafkaqm.sharedclients import SharedClients


class OnDemand:
    """A connection's producer and keeper, made at first need."""

    id: str
    settings: Settings
    clients: SharedClients
    connected: bool
    collected: deque[Callable[[], None]]
    _lock: threading.RLock
    _next_beat: float

    def _keeper_round(self) -> float:
        raise NotImplementedError

    def uses(self) -> dict[str, QueueUse]:
        raise NotImplementedError

    def _publish(self, uses: dict[str, QueueUse], *, flush: bool) -> None:
        raise NotImplementedError

    def _on_demand(self) -> None:
        self._producer: Any = None
        self._keeper: Keeper | None = None
        self._halted = False
        self._making = threading.Lock()  # not the connection's lock: a put never waits on it

    @property
    def producer(self) -> Any:
        """The producer of this connection's non-syncpoint puts (and requeues)."""
        producer = self._producer
        if producer is None:
            with self._making:
                if self._producer is None:
                    self._producer = clients.producer(
                        self.settings.client,
                        {
                            "acks": "all",
                            "enable.idempotence": True,
                            "linger.ms": 5,
                            "queue.buffering.max.messages": 1_000_000,
                            **self.settings.producer_config,
                        },
                    )
                producer = self._producer
            self.own_keeper()  # it polls the producer: asynchronous puts' outcomes
        return producer

    def unsent_puts(self) -> int:
        """This connection's non-syncpoint puts not yet delivered to Kafka."""
        return 0 if self._producer is None else len(self._producer)

    def own_keeper(self) -> Keeper:
        """This connection's keeper thread, started at its first call."""
        with self._making:
            if self._keeper is None:
                self._keeper = Keeper(self._keeper_round)
                if self._halted:  # ending: it never runs a round
                    self._keeper.halt()
            return self._keeper

    def pool_round(self) -> None:
        """The shared clients' thread, for a connection without a keeper: its heartbeat when
        due, never waiting on this connection's lock (others' beats would wait too); objects
        collected start its keeper, which closes them."""
        if self._keeper is not None or not self.connected:
            return
        if self.collected:
            self.own_keeper().wake()
            return
        if time.monotonic() < self._next_beat or not self._lock.acquire(blocking=False):
            return  # not due, or in a call: tried again next round
        try:
            uses = self.uses()
        finally:
            self._lock.release()
        self._next_beat = time.monotonic() + self.settings.heartbeat_interval
        self._publish(uses, flush=False)

    def _halt_rounds(self) -> None:
        """The keeper's and the shared clients' rounds end for this connection."""
        with self._making:
            self._halted = True
            keeper = self._keeper
        if keeper is not None:
            keeper.halt()
        self.clients.pause(self)


__all__ = ["OnDemand"]
