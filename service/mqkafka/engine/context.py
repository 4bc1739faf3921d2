"""Everything the engine needs from outside besides its state: configuration, a clock, an id
generator, the authority and filter ports, and queue defaults. Injected, never global, so a
test fixes the clock and the ids and gets the same effects every run.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from mqkafka.engine.authority import ALLOW_ALL, AuthorityPort
from mqkafka.engine.filters import PASS_ALL
from mqkafka.engine.ports import FilterPort, IdGenerator, QueueDefaults
from mqkafka.mq.commands import CONTROL_QUEUE, DEFAULT_STREAM

# Ids the broker makes start with these 4 bytes. Queue managers start theirs with "AMQ " (and
# CSQ on z/OS), so a broker-chosen id never clashes with one a queue manager generated:
# "this does not conflict with other message identifiers or correlation identifiers generated
# by queue managers" (seed 001).
MSG_ID_PREFIX = b"MQKM"
CORREL_ID_PREFIX = b"MQKC"


class UniqueIds:
    """Prefix, 12 random bytes fixed per process, 8-byte counter: unique without a syscall."""

    def __init__(self, seed: bytes | None = None) -> None:
        self._instance = seed if seed is not None else os.urandom(12)
        if len(self._instance) != 12:
            raise ValueError("the instance part of an id is 12 bytes")
        self._counter = itertools.count(1)
        self._msg = MSG_ID_PREFIX + self._instance  # joined once: a MsgId per delivered copy
        self._correl = CORREL_ID_PREFIX + self._instance

    def msg_id(self) -> bytes:
        return self._msg + next(self._counter).to_bytes(8, "big")

    def correl_id(self) -> bytes:
        return self._correl + next(self._counter).to_bytes(8, "big")


class CountingIds(UniqueIds):
    """Deterministic ids for tests: the instance part is zero."""

    def __init__(self) -> None:
        super().__init__(bytes(12))


@dataclass(frozen=True, slots=True)
class StaticQueueDefaults:
    """Every queue non-persistent at priority 0 unless listed.

    Choice (§10.9): PersAsQueue and a publisher's MQPER_PERSISTENCE_AS_Q_DEF resolve to the
    queue's default persistence, which is MQPER_NOT_PERSISTENT (0) unless configured here.
    """

    persistence: int = 0
    priority: int = 0
    persistence_of: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    priority_of: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    def default_persistence(self, queue: str) -> int:
        return self.persistence_of.get(queue, self.persistence)

    def default_priority(self, queue: str) -> int:
        return self.priority_of.get(queue, self.priority)

    def exists(self, queue: str) -> bool:
        """Every queue exists (or is created on first use) unless an adapter says otherwise."""
        return True


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """Broker configuration.

    ``strict_v6_local``: choice §10.4 - ``Local`` is a no-op in a single queue manager unless
    this is set, when a publication published ``Local`` reaches only subscriptions registered
    ``Local`` and DeletePub ``Local`` deletes only retained publications published ``Local``.
    ``streams``: the stream queues (SYSTEM.QPUBSUB.QUEUE.NAMELIST); Publish and DeletePub
    belong on one of them, every other command on the control queue (§1.2).
    """

    qmgr_name: str = "QM1"
    control_queue: str = CONTROL_QUEUE
    streams: frozenset[str] = frozenset({DEFAULT_STREAM})
    strict_v6_local: bool = False

    def __post_init__(self) -> None:
        if not self.qmgr_name or len(self.qmgr_name) > 48:
            raise ValueError("a queue manager name is 1 to 48 characters")

    @property
    def put_appl_name(self) -> str:
        """PutApplName of broker messages: "first 28 chars of the QM name" (§3.2, §4.1)."""
        return self.qmgr_name[:28]


@dataclass(frozen=True, slots=True)
class EngineContext:
    config: EngineConfig = EngineConfig()
    clock: Callable[[], float] = time.time
    ids: IdGenerator = field(default_factory=UniqueIds)
    authority: AuthorityPort = ALLOW_ALL
    filters: FilterPort = PASS_ALL
    queues: QueueDefaults = StaticQueueDefaults()

    @property
    def qmgr_name(self) -> str:
        return self.config.qmgr_name


__all__ = [
    "CORREL_ID_PREFIX",
    "MSG_ID_PREFIX",
    "CountingIds",
    "EngineConfig",
    "EngineContext",
    "IdGenerator",
    "QueueDefaults",
    "StaticQueueDefaults",
    "UniqueIds",
]
