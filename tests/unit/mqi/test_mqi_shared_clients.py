"""Which connections may share Kafka clients (``sharedclients.pool_key``), and what the shared
thread does for a connection without a keeper of its own (``OnDemand.pool_round``): pure,
no Kafka (the clients themselves: tests/integration/mqi/test_mqi_shared_clients.py)."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import replace
from typing import Any, cast

import pytest

from mqkafka.mqi.kafkaqm.heartbeat import QueueUse
from mqkafka.mqi.kafkaqm.ondemand import OnDemand
from mqkafka.mqi.kafkaqm.settings import Settings
from mqkafka.mqi.kafkaqm.sharedclients import SharedClients, pool_key

BASE = Settings("kafka:9092", namespace="n.", user="alice", appl_name="app")


@pytest.mark.parametrize(
    ("changes", "shared"),
    [
        ({"user": "bob", "appl_name": "other"}, True),  # each connection's own, in its beats
        ({"read_ahead": 7, "join_timeout": 3.0}, True),  # its getters' own
        ({"producer_config": {"linger.ms": "0"}}, True),  # its producer's own
        ({"namespace": "m."}, False),
        ({"bootstrap_servers": "other:9092"}, False),
        ({"kafka_config": {"security.protocol": "SSL"}}, False),
        ({"qmgr_name": "QM2"}, False),
        ({"liveness_timeout": 20.0}, False),
        ({"heartbeat_interval": 1.0}, False),
        ({"lock_duration_ms": 15_000}, False),
        ({"reap": False}, False),
    ],
)
def test_connections_share_clients_when_their_kafka_settings_agree(
    changes: dict[str, Any], shared: bool
) -> None:
    assert (pool_key(replace(BASE, **changes)) == pool_key(BASE)) is shared


class Pool:
    def __init__(self) -> None:
        self.paused: list[str] = []

    def pause(self, member: object) -> None:
        self.paused.append(cast(Any, member).id)


class Idle(OnDemand):
    """A connection as ``pool_round`` sees it; its keeper's rounds counted."""

    def __init__(self) -> None:
        self.id = "c1"
        self.settings = BASE
        self.clients = cast(SharedClients, Pool())
        self.connected = True
        self.collected: deque[Any] = deque()
        self._lock = threading.RLock()
        self._next_beat = 0.0
        self.beats: list[dict[str, QueueUse]] = []
        self.rounds = 0
        self._on_demand()

    def _keeper_round(self) -> float:
        self.rounds += 1
        self.collected.clear()
        return 0.25

    def uses(self) -> dict[str, QueueUse]:
        return {"Q": QueueUse(handles=1)}

    def _publish(self, uses: dict[str, QueueUse], *, flush: bool) -> None:
        self.beats.append(uses)


def test_the_shared_thread_beats_an_idle_connection_when_due_only() -> None:
    conn = Idle()
    conn.pool_round()
    conn.pool_round()  # the next is a heartbeat interval away
    assert conn.beats == [{"Q": QueueUse(handles=1)}]
    assert conn._keeper is None and conn._producer is None


def test_the_shared_thread_never_waits_for_a_connection_in_a_call() -> None:
    conn = Idle()
    held, release = threading.Event(), threading.Event()

    def call() -> None:
        with conn._lock:
            held.set()
            release.wait(10)

    thread = threading.Thread(target=call)
    thread.start()
    held.wait(10)
    conn.pool_round()  # returns at once: tried again at its next round
    assert conn.beats == []
    release.set()
    thread.join()
    conn.pool_round()
    assert len(conn.beats) == 1


def test_collected_objects_start_the_connections_keeper_which_closes_them() -> None:
    conn = Idle()
    conn.collected.append(lambda: None)
    conn.pool_round()
    keeper = conn._keeper
    assert keeper is not None and conn.beats == []
    deadline = time.monotonic() + 10
    while conn.rounds == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    conn.pool_round()  # its keeper beats for it from now on
    assert conn.rounds >= 1 and conn.beats == []
    conn._halt_rounds()
    assert cast(Any, conn.clients).paused == ["c1"]


def test_a_keeper_asked_for_after_the_end_never_runs_a_round() -> None:
    conn = Idle()
    conn._halt_rounds()
    keeper = conn.own_keeper()
    assert not keeper._thread.is_alive() and conn.rounds == 0  # halted as it started
