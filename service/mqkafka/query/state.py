"""The broker's state as operators read it: subscriptions and retained publications, from
the compacted state topics (what DISPLAY SUB and a retained-publication browser show).

``subscription_view`` and ``retained_view`` are pure; ``subscriptions`` and ``retained``
read the topics through :func:`values`, which reads any registered state kind's topic
(``mqkafka.state.kinds``) with :func:`mqkafka.kafka.compacted.read_compacted`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, TypeVar

from mqkafka.engine.records import Publication, Subscription
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.compacted import read_compacted
from mqkafka.mq.commandoptions import option_names
from mqkafka.mq.topics import Scheme, TopicFilter, TopicString, matches
from mqkafka.query.render import Body, md_fields, render_body
from mqkafka.state import recordcodec as codec
from mqkafka.state.kinds import RETAINED, SUBSCRIPTIONS, StateKind

SUBSCRIPTIONS_TOPIC = SUBSCRIPTIONS.topic
RETAINED_TOPIC = RETAINED.topic
_V = TypeVar("_V")
ROOT = "subpoint:"  # the namespace of RFH2 commands without SubPoint and of the default stream


@dataclass(frozen=True)
class SubscriptionView:
    """One subscription; ``None`` where MQ leaves the attribute unset."""

    topic: str
    namespace: str  # "" for the root, else "subpoint:NAME" or "stream:NAME"
    queue: str
    qmgr: str
    correl_id: str | None  # the identity's CorrelId (CorrelAsId), full hex
    name: str | None
    identities: tuple[str, ...]
    user_id: str
    options: tuple[str, ...]
    filter: str | None
    interface: str
    delivery_correl_id: str

    @property
    def label(self) -> str:
        """Topic with its namespace when not the root: what names it on one line."""
        return self.topic if not self.namespace else f"[{self.namespace}] {self.topic}"


@dataclass(frozen=True)
class RetainedView:
    topic: str
    namespace: str
    body: Body
    md: dict[str, str]
    persistence: int
    priority: int
    expiry: int
    retained_at: float
    folders: tuple[str, ...]


def _namespace(text: str) -> str:
    return "" if text == ROOT else text


def subscription_view(s: Subscription) -> SubscriptionView:
    identity = s.key.identity
    return SubscriptionView(
        topic=s.key.topic.text,
        namespace=_namespace(codec.namespace_text(s.key.namespace)),
        queue=identity.q_name,
        qmgr=identity.q_mgr_name,
        correl_id=identity.correl_id.hex() if identity.correl_id is not None else None,
        name=s.name,
        identities=tuple(sorted(s.identities)),
        user_id=s.user_id,
        options=tuple(option_names(s.options)),
        filter=s.key.filter,
        interface=s.interface.value,
        delivery_correl_id=s.delivery_correl_id.hex(),
    )


def retained_view(p: Publication) -> RetainedView:
    return RetainedView(
        topic=p.topic.text,
        namespace=_namespace(codec.namespace_text(p.namespace)),
        body=render_body(p.content.body),
        md=md_fields(p.md),
        persistence=p.persistence,
        priority=p.priority,
        expiry=p.expiry,
        retained_at=p.retained_at,
        folders=p.content.folders,
    )


def values(config: ClientConfig, kind: StateKind[_V, Any], namespace: str = "") -> list[_V]:
    """Every value of a state ``kind`` its compacted topic holds now (tombstoned keys gone)."""
    decode = kind.binding.decode
    return [decode(value) for value in read_compacted(config, namespace + kind.topic).values()]


def subscriptions(config: ClientConfig, namespace: str = "") -> list[SubscriptionView]:
    views = [subscription_view(s) for s in values(config, SUBSCRIPTIONS, namespace)]
    return sorted(views, key=lambda v: (v.namespace, v.topic, v.queue, v.correl_id or ""))


def retained(
    config: ClientConfig, namespace: str = "", topic_filter: str | None = None
) -> list[RetainedView]:
    """Retained publications, those whose topic ``topic_filter`` (``#``/``+``) selects."""
    return [view for view, _ in retained_bodies(config, namespace, topic_filter)]


def retained_bodies(
    config: ClientConfig, namespace: str = "", topic_filter: str | None = None
) -> list[tuple[RetainedView, bytes]]:
    """As :func:`retained`, each with the body's bytes (for showing it as text, JSON or hex
    at will)."""
    flt = TopicFilter(topic_filter, Scheme.TOPIC) if topic_filter else None
    found = []
    for pub in values(config, RETAINED, namespace):
        if flt is None or matches(flt, TopicString(pub.topic.text)):
            found.append((retained_view(pub), pub.content.body))
    return sorted(found, key=lambda pair: (pair[0].namespace, pair[0].topic))


def age(view: RetainedView, now: float | None = None) -> float:
    """Seconds since the publication was retained."""
    return max((now if now is not None else time.time()) - view.retained_at, 0.0)


__all__ = [
    "RETAINED_TOPIC",
    "SUBSCRIPTIONS_TOPIC",
    "RetainedView",
    "SubscriptionView",
    "age",
    "retained",
    "retained_bodies",
    "retained_view",
    "subscription_view",
    "subscriptions",
    "values",
]
