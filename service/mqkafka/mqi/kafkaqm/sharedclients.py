"""The Kafka clients an MQI connection needs before it does anything: the admin client
(:class:`QueueAdmin`) and the state replica (catalogue and heartbeats: a consumer, a producer
and the tailing thread), with one thread that sends the heartbeats of connections that have no
keeper of their own and one that reaps crashed connections.

A connection made with ``Settings.share_clients`` (``mqk listen``'s) shares them with every
other such connection of the process made with the same Kafka settings; any other has a set
of its own. Shared, an idle connection costs no Kafka client and no thread: a connection had
five clients and ~17 threads (~1.9 MB, bench.bench_channel_idle), and a listener of ~90 idle
JMS connections saturated two cores. What a connection does with its own work stays its own,
made at its first need: its producer (first non-syncpoint put), its transactional producer
(first syncpoint put, ``syncpoint``), its getters' share consumers, and its keeper thread
(first getter or producer, or objects collected: ``Connection.pool_round``).

What is shared is safe to share: the replica's tables are read by all and written with each
connection's own key, its barriers (``sync``) wait for end offsets whoever asks; the admin
client is thread-safe (its counting readers under its lock). A pool ends with its last
connection; a pool a connection failed to connect with is not handed to new connections.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Protocol

from mqkafka.kafka.clients import KafkaEdgeError
from mqkafka.kafka.probe import KafkaUnusable, check_cluster
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.kafkaqm.admin import QueueAdmin
from mqkafka.mqi.kafkaqm.keeper import Keeper
from mqkafka.mqi.kafkaqm.queuestate import Effects
from mqkafka.mqi.kafkaqm.reaper import reap
from mqkafka.mqi.kafkaqm.replica import StateReplica, ensure_state_topics
from mqkafka.mqi.kafkaqm.settings import Settings
from mqkafka.mqi.rules.catalogue import SYSTEM_DEFINITIONS
from mqkafka.mqi.rules.errors import failed

log = logging.getLogger("mqkafka.mqi.kafkaqm.connection")  # the operator's lines: the MQI's

PoolKey = tuple[object, ...]
_SYSTEM_PARTITIONS = {"SYSTEM.BROKER.CONTROL.QUEUE": 4, "SYSTEM.BROKER.DEFAULT.STREAM": 4}


class Member(Protocol):
    """A connection as the pool's threads see it."""

    id: str

    def pool_round(self) -> None:
        """Its heartbeat when due, unless its own keeper sends it; never blocks for long."""


def pool_key(settings: Settings) -> PoolKey:
    """What the shared clients are made of: connections that agree on it may share them
    (the user id and application name are each connection's own, in its heartbeats)."""
    return (
        settings.bootstrap_servers,
        tuple(sorted(settings.kafka_config.items())),
        settings.namespace,
        settings.qmgr_name,
        settings.heartbeat_interval,
        settings.liveness_timeout,
        settings.lock_duration_ms,
        settings.admin_timeout,
        settings.reap,
        settings.create_topics,
    )


class SharedClients:
    """The admin client, the state replica and the threads that keep its connections."""

    def __init__(self, settings: Settings, key: PoolKey | None = None) -> None:
        self.settings, self.key = settings, key
        try:  # at once and in one line: a refused login, TLS to a plaintext port, no Kafka
            check_cluster(settings.client, timeout=settings.admin_timeout)
        except KafkaUnusable as error:
            reason = RC.NOT_AUTHORIZED if "SASL" in str(error) else RC.Q_MGR_NOT_AVAILABLE
            raise failed(reason, str(error)) from None
        except KafkaEdgeError as error:
            raise failed(RC.Q_MGR_NOT_AVAILABLE, str(error)) from None
        self.admin = QueueAdmin(settings)
        try:
            ensure_state_topics(self.admin, settings)
            self.replica = StateReplica(settings, self.admin)
            self.replica.sync()
        except MQError as error:
            self.admin.close()
            raise failed(
                RC.Q_MGR_NOT_AVAILABLE, f"cannot reach the queue manager: {error}"
            ) from None
        self.effects = Effects(settings, self.admin, self.replica)
        self.delivery_limit = self.admin.delivery_limit()
        self._members: dict[str, Member] = {}
        self._members_lock = threading.Lock()
        # held for a whole round: a connection leaving waits for the one in progress
        self._round = threading.RLock()
        self._next_reap = time.monotonic() + settings.heartbeat_interval
        self._beats = Keeper(self._beat_round, name="mqk-mqi-beats")
        self._reaper = Keeper(self._reap_round, name="mqk-mqi-reaper")
        self.closed = self.spoiled = False

    @property
    def usable(self) -> bool:
        """Whether new connections may have these clients."""
        return not (self.closed or self.spoiled)

    def spoil(self) -> None:
        """A connection failed with these clients (their replica stopped, or Kafka went away):
        the next connection makes a fresh set; these end with the connections they have."""
        self.spoiled = True

    def join(self, member: Member) -> None:
        with self._members_lock:
            self._members[member.id] = member

    def pause(self, member: Member) -> None:
        """Out of the rounds, once the round in progress (perhaps its own) has ended."""
        with self._members_lock:
            self._members.pop(member.id, None)
        with self._round:
            pass

    def members(self) -> list[Member]:
        with self._members_lock:
            return list(self._members.values())

    def _beat_round(self) -> float:
        with self._round:
            for member in self.members():
                try:
                    member.pool_round()
                except MQError as error:  # that connection's to report, at its next call
                    log.debug("heartbeat of connection %s: %s", member.id, error)
                except Exception:  # not the others' beats too
                    log.exception("heartbeat of connection %s failed", member.id)
        return self.settings.heartbeat_interval / 8

    def _reap_round(self) -> float:
        """In a thread of its own: deleting a crashed connection's queues may take seconds,
        and the other connections' heartbeats must not wait for it."""
        if time.monotonic() >= self._next_reap:
            self._next_reap = time.monotonic() + self.settings.heartbeat_interval
            if self.settings.reap:
                reap(self.replica, self.effects, ours=frozenset(m.id for m in self.members()))
        return max(self._next_reap - time.monotonic(), 0.0)

    def close(self) -> None:
        self.closed = True
        self._beats.halt()
        self._reaper.halt()
        self.replica.flush()
        self.replica.close()
        self.admin.close()


def provision_system_objects(settings: Settings, admin: QueueAdmin, replica: StateReplica) -> None:
    """The queue manager's system objects, defined (and their topics made) where missing:
    asked at each MQCONN, so one deleted meanwhile comes back as it would have."""
    for definition in SYSTEM_DEFINITIONS:
        if replica.lookup(definition.name) is not None:
            continue
        if not definition.is_model:
            topic = settings.topic_of(definition.name)
            if admin.partitions_of(topic) is None:
                admin.create_topic(topic, _SYSTEM_PARTITIONS.get(definition.name, 1))
        replica.define(definition)


_POOLS: dict[PoolKey, SharedClients] = {}
_USERS: dict[int, int] = {}  # id(pool) -> its connections
_LOCK = threading.Lock()  # made and ended under it: a pool is never handed out as it closes


def acquire(settings: Settings) -> SharedClients:
    """The clients for a new connection: the process's shared ones for its settings (made if
    none is usable), or a set of its own unless ``settings.share_clients``."""
    if not settings.share_clients:
        pool = SharedClients(settings)
        with _LOCK:
            _USERS[id(pool)] = 1
        return pool
    key = pool_key(settings)
    with _LOCK:
        found = _POOLS.get(key)
        if found is None or not found.usable:
            found = _POOLS[key] = SharedClients(settings, key)
        _USERS[id(found)] = _USERS.get(id(found), 0) + 1
        return found


def release(pool: SharedClients, member: Member) -> None:
    """``member`` is done with ``pool``: closed with its last connection."""
    pool.pause(member)
    with _LOCK:
        left = _USERS[id(pool)] = _USERS[id(pool)] - 1
        if left > 0:
            return
        del _USERS[id(pool)]
        if pool.key is not None and _POOLS.get(pool.key) is pool:
            del _POOLS[pool.key]
    pool.close()


def shared_pools() -> int:
    """How many shared pools this process holds (tests)."""
    with _LOCK:
        return len(_POOLS)


__all__ = [
    "Member",
    "SharedClients",
    "acquire",
    "pool_key",
    "provision_system_objects",
    "release",
    "shared_pools",
]
