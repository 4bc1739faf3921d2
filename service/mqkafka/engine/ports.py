"""Ports: every question the engine asks of the world outside its state goes through one of
these, and adapters implement them (``selectors`` the filters, ``service.queues`` the queues on
Kafka, an ACL file the authority, ``context.UniqueIds`` the ids). The engine sees only these
interfaces, so it does no I/O of its own and a test can fix every answer.

Kept in their own module so that the adapters and the engine depend on this small contract
rather than on each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mqkafka.engine.topicspace import Namespace


class MessageView(Protocol):
    """What a content filter may look at in a publication."""

    @property
    def properties(self) -> Mapping[str, object]:
        """The RFH2 ``usr`` folder, typed by each property's ``dt`` (str, int, float, bool,
        bytes; a property that is present but empty is ``None``)."""

    @property
    def mqmd_fields(self) -> Mapping[str, object]:
        """MQMD fields by their MQ names (``Priority``, ``CorrelId`` as bytes, ``Format``...)."""

    @property
    def body(self) -> bytes:
        """The user data after the last header."""

    @property
    def body_format(self) -> str:
        """Format of the body (``MQSTR``, blank, ...), trailing blanks removed."""

    @property
    def msd(self) -> str | None:
        """The ``mcd`` folder's ``Msd`` (``xml``, ``xmlnsc``, ``json``, ``jms_text``...) if any."""


class CompiledFilter(Protocol):
    """A subscription's Filter, compiled once at registration, evaluated per publication."""

    @property
    def text(self) -> str: ...

    def matches(self, message: MessageView) -> bool:
        """True only when the filter evaluates to TRUE (UNKNOWN and FALSE both exclude)."""
        ...


class FilterPort(Protocol):
    def compile(self, text: str) -> CompiledFilter:
        """Compile a Filter; raise ``MQError(RC.CF_FILTER_ERROR, detail)`` when it is invalid."""
        ...


class AuthorityPort(Protocol):
    def may_put(self, user_id: str, queue: str) -> bool:
        """Put to a queue: the control queue, a stream queue, a subscriber queue."""
        ...

    def may_browse(self, user_id: str, queue: str) -> bool:
        """Browse a stream queue (ReqUpdate for another user's subscription, seed 000)."""
        ...

    def may_subscribe(self, user_id: str, namespace: Namespace, topic: str) -> bool: ...

    def may_publish(self, user_id: str, namespace: Namespace, topic: str) -> bool: ...

    def may_set_identity(self, sender: str, claimed: str) -> bool:
        """Whether an authenticated ``sender`` may put messages as ``claimed`` (MQ's setid)."""
        ...


class IdGenerator(Protocol):
    def msg_id(self) -> bytes:
        """A new unique 24-byte MsgId."""
        ...

    def correl_id(self) -> bytes:
        """A new unique, non-zero 24-byte CorrelId for a subscription (§4.1, §10.8)."""
        ...


class QueueDefaults(Protocol):
    """What the engine needs to know of queue definitions: DEFPSIST, DEFPRTY, and whether a
    subscriber queue exists (or may be created) at all. ``context.StaticQueueDefaults`` says
    yes to every queue; the service's ``QueueDirectory`` asks the Kafka cluster (when queues
    are not created on demand) - the engine never knows which."""

    def default_persistence(self, queue: str) -> int: ...
    def default_priority(self, queue: str) -> int: ...
    def exists(self, queue: str) -> bool: ...


__all__ = [
    "AuthorityPort",
    "CompiledFilter",
    "FilterPort",
    "IdGenerator",
    "MessageView",
    "QueueDefaults",
]
