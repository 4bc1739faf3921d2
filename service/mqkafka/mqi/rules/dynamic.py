"""Dynamic queues (seed 004, reference §9.5–§9.6): names, creation, liveness.

- :class:`DynamicQName` parses MQOD.DynamicQName and :func:`create_dynamic_queue` turns
  "MQOPEN of a model queue" into a new :class:`QueueDefinition` for the catalogue.
- :class:`Liveness` notices applications that stopped without saying so (a crash), so a
  temporary dynamic queue goes when its creator "terminates", not only on a clean exit.
- The lifecycle of a queue once it exists (logical deletion, MQCO_DELETE rules ...) is the
  state machine in :mod:`mqkafka.mqi.rules.lifecycle`, re-exported here.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.catalogue import OBJECT_NAME_CHARS, QueueDefinition
from mqkafka.mqi.rules.lifecycle import (
    AdminDelete,
    Backout,
    Close,
    Commit,
    ConnectionEnded,
    DeleteAuthority,
    Event,
    Get,
    Open,
    OpenHandle,
    Put,
    QMgrStarted,
    QueueEffect,
    QueueState,
    QueueTransition,
    Work,
    allow_all,
    step,
)

# --- DynamicQName ------------------------------------------------------------------------

STAR_LAST_POSITION = 33  # "the * is only valid in positions 1-33" (§9.5)
SUFFIX_DIGITS = 16  # generated part: 16 hex digits, as in MQ's CREDIT.REPLY.A346EF00367849A0
_MAX_ATTEMPTS = 8  # 64 random bits collide with ~0 probability; retry covers the rest


@dataclass(frozen=True)
class DynamicQName:
    """A parsed MQOD.DynamicQName: a ``prefix`` and whether a unique suffix is generated.

    Rules (reference §9.5, malformed -> ``MQRC_DYNAMIC_Q_NAME_ERROR`` 2011): the significant
    part ends at a NUL and trailing blanks are not part of it; it must not be blank; it
    uses object-name characters plus ``*``; a ``*`` may only be in positions 1-33 and be
    followed only by blanks/NUL; ``*`` alone generates the whole name. Without ``*`` the
    name is used as given.
    """

    prefix: str
    generated: bool

    @classmethod
    def parse(cls, raw: str | bytes) -> DynamicQName:
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        text = text.split("\0", 1)[0]
        if len(text) > C.MQ_Q_NAME_LENGTH:
            raise _name_error(f"longer than 48 characters: {text!r}")
        name = text.rstrip(" ")
        if not name:
            raise _name_error("blank DynamicQName")
        generated = name.endswith("*")
        prefix = name[:-1] if generated else name
        if generated and len(name) > STAR_LAST_POSITION:
            raise _name_error(f"'*' at position {len(name)}, after position 33")
        bad = sorted(set(prefix) - OBJECT_NAME_CHARS)
        if bad:
            # covers leading/embedded blanks and a '*' that something other than blanks follows
            raise _name_error(f"{name!r} contains {''.join(bad)!r}")
        return cls(prefix, generated)

    def with_suffix(self, suffix: int) -> str:
        """The name for a 64-bit ``suffix``: prefix + 16 upper-case hex digits."""
        return f"{self.prefix}{suffix & (2**64 - 1):0{SUFFIX_DIGITS}X}"


def _name_error(detail: str) -> MQError:
    return MQError(RC.DYNAMIC_Q_NAME_ERROR, detail)


def resolve_dynamic_name(
    raw: str | bytes,
    taken: Callable[[str], bool],
    random64: Callable[[], int] = lambda: secrets.randbits(64),
) -> str:
    """The queue name an MQOPEN of a model creates; 2011 if malformed, 2100 if in use.

    A random suffix rather than a counter: clients create queues without asking each other,
    and 64 random bits make a clash practically impossible (``taken`` catches the rest).
    """
    pattern = DynamicQName.parse(raw)
    if not pattern.generated:
        if taken(pattern.prefix):  # "used as given" (§9.5; UNCERTAIN-lite)
            raise MQError(RC.OBJECT_ALREADY_EXISTS, f"queue {pattern.prefix} already exists")
        return pattern.prefix
    for _ in range(_MAX_ATTEMPTS):
        name = pattern.with_suffix(random64())
        if not taken(name):
            return name
    raise MQError(RC.OBJECT_ALREADY_EXISTS, f"no free name for {pattern.prefix}*")


def create_dynamic_queue(
    model: QueueDefinition,
    dynamic_q_name: str | bytes,
    *,
    creator: str,
    user: str,
    taken: Callable[[str], bool],
    random64: Callable[[], int] = lambda: secrets.randbits(64),
) -> QueueDefinition:
    """MQOPEN of ``model``: "an instance of a local queue with the same attributes as the
    model queue", temporary or permanent as the model's DefinitionType says (seed 004)."""
    if not model.is_model:
        raise MQError(RC.Q_TYPE_ERROR, f"{model.name} is not a model queue")
    name = resolve_dynamic_name(dynamic_q_name, taken, random64)
    return replace(
        model,
        name=name,
        queue_type=C.MQQT_LOCAL,
        model=model.name,
        creator=creator,
        created_by=user,
    )


# --- Liveness ------------------------------------------------------------------------


class Liveness:
    """Which connections have gone quiet: a crash is noticed by silence, not by a goodbye.

    Clients heartbeat (the adapter carries the beats, e.g. on a compacted topic); a
    connection unheard for ``timeout`` seconds is reported once by :meth:`expired` and then
    forgotten. A clean exit calls :meth:`ended` instead, so it is never reported.
    """

    def __init__(self, timeout: float) -> None:
        if timeout <= 0:
            raise MQError(RC.UNEXPECTED_ERROR, "liveness timeout must be positive")
        self.timeout = timeout
        self._last_beat: dict[str, float] = {}

    def heartbeat(self, connection: str, now: float) -> None:
        self._last_beat[connection] = max(now, self._last_beat.get(connection, now))

    def ended(self, connection: str) -> None:
        self._last_beat.pop(connection, None)

    def expired(self, now: float) -> list[str]:
        gone = sorted(c for c, t in self._last_beat.items() if now - t > self.timeout)
        for connection in gone:
            del self._last_beat[connection]
        return gone

    def __contains__(self, connection: object) -> bool:
        return connection in self._last_beat


__all__ = [
    "AdminDelete",
    "Backout",
    "Close",
    "Commit",
    "ConnectionEnded",
    "DeleteAuthority",
    "DynamicQName",
    "Event",
    "Get",
    "Liveness",
    "Open",
    "OpenHandle",
    "Put",
    "QMgrStarted",
    "QueueEffect",
    "QueueState",
    "QueueTransition",
    "Work",
    "allow_all",
    "create_dynamic_queue",
    "resolve_dynamic_name",
    "step",
]
