"""What the engine asks its adapter to do: plain values, no I/O.

Message effects (``Deliver``, ``Reply``, ``DeadLetter``) carry a complete MQMD and what goes
after it; the adapter's ``mqkafka.wire.messagecodec`` turns them into bytes. State effects
(``StoreSubscription``, ``RemoveSubscription``, ``Retain``, ``DeleteRetained``,
``RegisterPublisher``, ``DeregisterPublisher``) are applied to ``EngineState`` and can be
written to a changelog.
"""

from __future__ import annotations

from dataclasses import dataclass

from mqkafka.engine.records import (
    Publication,
    Publisher,
    PublisherKey,
    Subscription,
    SubscriptionKey,
)
from mqkafka.engine.topicspace import Namespace
from mqkafka.mq.commands import Command, Interface, PublicationContent
from mqkafka.mq.mqmd import MQMD
from mqkafka.mq.responses import Response


@dataclass(frozen=True, slots=True)
class Deliver:
    """Put one publication copy on a subscriber queue.

    ``psc`` are the pub/sub properties the broker adds (RFH2 tag names for an RFH2 subscriber,
    RFH1 ``MQPS*`` names for an RFH1 one; reference §4.2, choice §10.8); ``content`` is the
    publisher's other folders / name-value pairs and body, passed through.
    """

    queue: str
    q_mgr_name: str
    md: MQMD
    psc: tuple[tuple[str, str], ...]
    content: PublicationContent
    interface: Interface


@dataclass(frozen=True, slots=True)
class Reply:
    """Answer a command (reference §3): ``echo`` is the command's own properties, appended
    after the response on warning and error (§3.3), empty on ok."""

    queue: str
    q_mgr_name: str
    md: MQMD
    response: Response
    interface: Interface
    echo: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class DeadLetter:
    """Put the command message on the dead-letter queue with a reason: when no reply can be
    sent (a REQUEST without ReplyToQ) or the message is not a command at all (2029)."""

    md: MQMD
    reason: int
    detail: str = ""
    value: bytes | None = None  # the message data, filled in by the codec that has it


@dataclass(frozen=True, slots=True)
class StoreSubscription:
    subscription: Subscription


@dataclass(frozen=True, slots=True)
class RemoveSubscription:
    key: SubscriptionKey


@dataclass(frozen=True, slots=True)
class Retain:
    publication: Publication


@dataclass(frozen=True, slots=True)
class DeleteRetained:
    namespace: Namespace
    topic: str  # the literal topic (TopicString.text)


@dataclass(frozen=True, slots=True)
class RegisterPublisher:
    publisher: Publisher


@dataclass(frozen=True, slots=True)
class DeregisterPublisher:
    key: PublisherKey


@dataclass(frozen=True, slots=True)
class Processed:
    """What became of one command message, reported beside the effects (``handle``'s
    ``outcomes``) for the adapter's metrics and activity events. ``command`` is None when the
    message was not a command at all; ``response`` is the outcome whether or not a reply was
    sent (§3.1)."""

    command: Command | None
    response: Response
    md: MQMD
    queue: str
    # True when a content filter looked at the message: the effects then depend on its body
    # and properties, not only on its headers (adapters must not reuse them for another).
    reads_content: bool = False


MessageEffect = Deliver | Reply | DeadLetter
StateEffect = (
    StoreSubscription
    | RemoveSubscription
    | Retain
    | DeleteRetained
    | RegisterPublisher
    | DeregisterPublisher
)
Effect = MessageEffect | StateEffect

__all__ = [
    "DeadLetter",
    "DeleteRetained",
    "Deliver",
    "DeregisterPublisher",
    "Effect",
    "MessageEffect",
    "Processed",
    "RegisterPublisher",
    "RemoveSubscription",
    "Reply",
    "Retain",
    "StateEffect",
    "StoreSubscription",
]
