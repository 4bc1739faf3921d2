"""What ``handle`` takes besides MQ's pub/sub commands: everything reaches the engine as a
value through ``handle``, never through a side door.

* ``InvalidCommand``: a message put to a broker queue that carries no valid command (its
  bytes do not decode, or a property is wrong), or one its adapter refuses (identity
  assurance: the sender may not claim its userid). The adapter's codec says why; the engine
  answers it as a command it refused (§3.3, §3.4) and nothing else happens.
* ``QueueDeleted``: a temporary dynamic subscriber queue was deleted; "the subscription is
  removed automatically when that queue is closed" (§2.7; choice §10.3, reference §9.6).
"""

from __future__ import annotations

from dataclasses import dataclass

from mqkafka.mq.commands import Command, Interface
from mqkafka.mq.mqmd import MQMD
from mqkafka.mq.responses import Response


@dataclass(frozen=True, slots=True)
class InvalidCommand:
    """``response`` answers it; ``echo`` is what of the command is repeated after the answer
    (§3.3: the command's properties, when they could be read); ``reason`` and ``detail`` go
    on its dead letter when no reply can be sent."""

    md: MQMD
    queue: str
    interface: Interface
    response: Response
    echo: tuple[tuple[str, str], ...]
    reason: int
    detail: str


@dataclass(frozen=True, slots=True)
class QueueDeleted:
    """The subscriber queue ``q_name`` at ``q_mgr_name`` is gone: its subscriptions go too."""

    q_name: str
    q_mgr_name: str


EngineInput = Command | InvalidCommand | QueueDeleted

__all__ = ["EngineInput", "InvalidCommand", "QueueDeleted"]
