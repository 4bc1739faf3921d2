"""The values the broker keeps: subscriptions, retained publications, publisher registrations.

They are plain frozen values (no compiled filters, no callables) so that a store can persist
them; ``EngineState`` derives its indexes from them.

Invariants, checked when a value is built:

* a subscription's exclusive holder is one of its subscriber identities (S2, JoinExcl);
* its delivery CorrelId is 24 non-zero bytes: the subscriber's own with CorrelAsId, else
  one the broker chose (S1: "a correlation identifier of its own choosing");
* only options that describe the subscription are stored, not one-off command options
  (AddName, NoAlter, FullResp, Join*, LeaveOnly, DeregAll).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqkafka.engine.identity import Identity, Owner
from mqkafka.engine.topicspace import Namespace, TopicFilter, TopicString
from mqkafka.mq.commands import Interface, PublicationContent, RegOpt
from mqkafka.mq.mqmd import MQMD, MQMD_DEFAULT

# Options that stay with a subscription; the others act on one command only.
STORED_REG_OPTIONS = (
    RegOpt.CORREL_ID_AS_IDENTITY
    | RegOpt.ANONYMOUS
    | RegOpt.LOCAL
    | RegOpt.NEW_PUBLICATIONS_ONLY
    | RegOpt.PUBLISH_ON_REQUEST_ONLY
    | RegOpt.INCLUDE_STREAM_NAME
    | RegOpt.INFORM_IF_RETAINED
    | RegOpt.DUPLICATES_OK
    | RegOpt.NON_PERSISTENT
    | RegOpt.PERSISTENT
    | RegOpt.PERSISTENT_AS_PUBLISH
    | RegOpt.PERSISTENT_AS_Q
    | RegOpt.VARIABLE_USER_ID
    | RegOpt.LOCKED
    | RegOpt.DIRECT_REQUESTS
)


@dataclass(frozen=True, slots=True)
class SubscriptionKey:
    """What makes a subscription: "traditional identity ... in conjunction with a topic" (S2),
    plus the subscription point and Filter that DeregSub and ReqUpdate must repeat (S0)."""

    namespace: Namespace
    identity: Identity
    topic: TopicFilter
    filter: str | None = None


@dataclass(frozen=True, slots=True)
class SubscriberContext:
    """Identity context captured at registration, copied onto every delivered copy (§4.1)."""

    user_identifier: str = ""
    accounting_token: bytes = bytes(32)
    appl_identity_data: str = ""


@dataclass(frozen=True, slots=True)
class Subscription:
    key: SubscriptionKey
    user_id: str  # "the userid of the original registration message" owns it (S0)
    options: RegOpt
    interface: Interface
    delivery_correl_id: bytes
    name: str | None = None
    identities: frozenset[str] = frozenset()
    exclusive: str | None = None  # the identity that joined with JoinExcl, if any
    user_data: str | None = None
    context: SubscriberContext = SubscriberContext()

    def __post_init__(self) -> None:
        if self.exclusive is not None and self.exclusive not in self.identities:
            raise ValueError("the exclusive holder must be a subscriber identity")
        if len(self.delivery_correl_id) != 24 or not any(self.delivery_correl_id):
            raise ValueError("a delivery CorrelId is 24 non-zero bytes")
        if self.options & ~STORED_REG_OPTIONS:
            raise ValueError(f"not a stored option: {self.options & ~STORED_REG_OPTIONS!r}")
        correl = self.key.identity.correl_id
        if (RegOpt.CORREL_ID_AS_IDENTITY in self.options) != (correl is not None):
            raise ValueError("CorrelAsId is set exactly when the identity has a CorrelId")
        if correl is not None and self.delivery_correl_id != correl:
            raise ValueError("with CorrelAsId, copies carry the subscriber's CorrelId (S1)")

    @property
    def owner(self) -> Owner:
        return Owner(
            self.user_id,
            RegOpt.VARIABLE_USER_ID in self.options,
            self.key.identity.q_name,
            self.key.namespace,
        )

    @property
    def namespace(self) -> Namespace:
        return self.key.namespace

    @property
    def identity(self) -> Identity:
        return self.key.identity


@dataclass(frozen=True, slots=True)
class Publication:
    """One publication on one topic, as delivered and as retained ("one per topic", §4.3).

    Priority and persistence are resolved when it is published; ``expiry`` is the publisher's
    in tenths of a second (-1 unlimited), counted from ``retained_at`` (clock seconds).
    ``reply_to`` is the publisher's (QName, QMgrName) when it registered DirectReq, which
    RFH1 deliveries carry (§4.2).
    """

    namespace: Namespace
    topic: TopicString
    content: PublicationContent
    interface: Interface
    priority: int
    persistence: int
    expiry: int = -1
    retained_at: float = 0.0
    pub_time: str | None = None
    seq_num: str | None = None
    local: bool = False  # published with Local (DeletePub Local in strict v6 mode, §2.11)
    reply_to: tuple[str, str] | None = None
    md: MQMD = field(default=MQMD_DEFAULT, repr=False)  # the publisher's, for content filters

    def remaining_expiry(self, now: float) -> int | None:
        """Expiry for a copy sent at ``now`` ("reduced by the time it was held", §4.1), or
        None when it has expired."""
        if self.expiry < 0:
            return self.expiry
        left = self.expiry - int((now - self.retained_at) * 10)
        return left if left > 0 else None


@dataclass(frozen=True, slots=True)
class PublisherKey:
    namespace: Namespace
    identity: Identity
    topic: TopicString


@dataclass(frozen=True, slots=True)
class Publisher:
    """A publisher registration (RegPub, or implicit on Publish unless NoReg: S1)."""

    key: PublisherKey
    user_id: str
    options: RegOpt = RegOpt.NONE
    implicit: bool = False

    @property
    def owner(self) -> Owner:
        return Owner(
            self.user_id,
            RegOpt.VARIABLE_USER_ID in self.options,
            self.key.identity.q_name,
            self.key.namespace,
        )


__all__ = [
    "STORED_REG_OPTIONS",
    "Publication",
    "Publisher",
    "PublisherKey",
    "SubscriberContext",
    "Subscription",
    "SubscriptionKey",
]
