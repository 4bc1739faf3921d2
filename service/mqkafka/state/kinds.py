"""The registry of state kinds: each kind of broker state declared once, everything else
derived from the declaration (as Kafka Streams derives changelogs, restoration and metrics
from one ``StoreBuilder``).

A :class:`StateKind` says what one kind of state is on the wire and in the engine:

* its **name**, which is also its RocksDB column family, its snapshot table, and the
  ``EngineState`` store (attribute and constructor parameter) that holds it;
* its **changelog**: the compacted Kafka topic and how that topic is declared when the
  catalogue (``topics/catalogue.toml``) does not declare it;
* its **codec**: the Avro writer schema (``schemas/<schema>.avsc``), value encoder and
  decoder, the natural key of a value and that key as record-key bytes
  (``state.recordcodec``);
* how a **record applies** to the engine state: through the engine effects that store and
  remove a value, and a lookup of the current value;
* how it appears in a **snapshot** (the Parquet columns of the snapshot job) and as a
  **gauge** (a Prometheus metric of how many the worker holds).

Readers iterate :data:`STATE_KINDS` instead of naming each kind: the service's replica and
its effect records, the RocksDB state, the metrics, the query layer (CLI, console), the
snapshot job and provisioning. So a new kind of state is one entry here plus its engine logic
(its records, effects and store). The MQI's own state topics (the queue catalogue and the
connection heartbeats) are declared here too (:data:`MQI_CHANGELOGS`): provisioning and the
MQI read them from here.

To add a kind: its value, key and effects in the engine with the ``EngineState`` store named
as the kind (the engine logic), its writer schema in ``schemas/``, and one ``StateKind``
registered in ``STATE_KINDS``. A catalogue entry is optional (provisioning declares the
topic from ``changelog``); a store that needs more than get, put and delete by key (as the
retained publications' prefix scans do) adds a store class in ``state/rocks.py``.

Nothing here imports a Kafka client, RocksDB or Spark, nor (until a kind is first bound to
the engine) the engine or the Avro codec: the declarations are plain data that every adapter
reads cheaply, the MQI and the CLI included.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Generic, Literal, TypeVar

if TYPE_CHECKING:
    from mqkafka.engine.records import (
        Publication,
        Publisher,
        PublisherKey,
        Subscription,
        SubscriptionKey,
    )
    from mqkafka.engine.topicspace import Namespace

V = TypeVar("V")  # a value of the kind (a Subscription, a Publication, ...)
K = TypeVar("K")  # its natural key (a SubscriptionKey, (namespace, topic), ...)

COMPACTED: Final[Mapping[str, str]] = {"cleanup.policy": "compact"}
# the compaction settings of the busy state topics (retained, subscriptions)
_BUSY: Final[Mapping[str, str]] = {
    **COMPACTED,
    "min.cleanable.dirty.ratio": "0.1",
    "segment.ms": "3600000",
}


@dataclass(frozen=True)
class Changelog:
    """A compacted state topic and its declaration (partitions, topic configs, purpose), used
    by provisioning where the catalogue does not declare the topic itself. ``topic`` is the
    name before the namespace prefix (wire contract: the catalogue's names)."""

    topic: str
    partitions: int
    purpose: str
    config: Mapping[str, str] = field(default_factory=lambda: dict(COMPACTED))


@dataclass(frozen=True)
class SnapshotColumn:
    """One column of a snapshot table: ``path`` in the decoded record ``v`` (``v.key.topic``),
    named ``alias``, through ``transform``: none, ``length`` (of bytes) or ``timestamp``
    (epoch seconds as a timestamp, to the microsecond)."""

    alias: str
    path: str
    transform: Literal["", "length", "timestamp"] = ""


@dataclass(frozen=True)
class GaugeSpec:
    """The Prometheus gauge of how many values of a kind a worker holds."""

    name: str
    help: str


@dataclass(frozen=True)
class KindBinding(Generic[V, K]):
    """A kind bound to bytes and to the engine: its codec, its keys, and the engine effects
    and lookup its records apply through."""

    encode: Callable[[V], bytes]
    decode: Callable[[bytes], V]  # MQError(OBJECT_DAMAGED) for bytes that do not decode
    key_of: Callable[[V], K]
    key_bytes: Callable[[K], bytes]  # the record key: Kafka's and RocksDB's
    parse_key: Callable[[bytes], K]  # what a tombstone names
    # the engine effects that store a value (``stores(value)``) and remove one by key
    # (``removing(key)``, an instance of ``removes``), and what they carry
    stores: type[Any]
    removes: type[Any]
    removing: Callable[[K], Any]
    stored_value: Callable[[Any], V]
    removed_key: Callable[[Any], K]
    current: Callable[[Any, K], V | None]  # the engine state's value under a key, or None


@dataclass(frozen=True, eq=False)
class StateKind(Generic[V, K]):
    """One kind of broker state, declared once (see the module docstring).

    ``bind`` returns the kind's :class:`KindBinding`; it is called once, at first use, so that
    reading the declarations (provisioning, the MQI, the CLI) does not import the engine and
    the Avro codec (over a second on a busy machine)."""

    name: str
    changelog: Changelog
    schema: str  # schemas/<schema>.avsc, the values' writer schema
    required_field: str  # a field every value has: null in a snapshot row that did not decode
    snapshot: tuple[SnapshotColumn, ...]
    gauge: GaugeSpec | None
    bind: Callable[[], KindBinding[V, K]]

    @property
    def topic(self) -> str:
        return self.changelog.topic

    @functools.cached_property
    def binding(self) -> KindBinding[V, K]:
        return self.bind()

    def record(self, value: V) -> tuple[bytes, bytes]:
        """(key, value) of the record that stores ``value``."""
        b = self.binding
        return b.key_bytes(b.key_of(value)), b.encode(value)

    def apply_record(self, state: Any, key: bytes, value: bytes | None) -> bool:
        """Apply one consumed record to the engine ``state`` through its effects: a value
        stores, a tombstone (None) removes. False when it changes nothing (a worker's own
        record coming back, a tombstone of what is not there). MQError(OBJECT_DAMAGED) when
        the bytes do not decode."""
        b = self.binding
        if value is None:
            natural = b.parse_key(key)
            if b.current(state, natural) is None:
                return False
            state.apply([b.removing(natural)])
            return True
        decoded = b.decode(value)
        if b.current(state, b.key_of(decoded)) == decoded:
            return False
        state.apply([b.stores(decoded)])
        return True

    def size(self, state: Any) -> int:
        """How many values the engine ``state`` holds (its store named as the kind)."""
        return len(getattr(state, self.name))


AnyKind = StateKind[Any, Any]


class StateKinds:
    """The registry: kinds in declaration order, each name and topic once (and, once bound,
    each engine effect type)."""

    def __init__(self, kinds: Iterable[AnyKind] = ()) -> None:
        self._kinds: dict[str, AnyKind] = {}
        self._by_topic: dict[str, AnyKind] = {}
        self._by_effect: dict[type[Any], tuple[AnyKind, bool]] | None = None
        for kind in kinds:
            self.register(kind)

    def register(self, kind: AnyKind) -> AnyKind:
        """Add ``kind``; a name or topic already registered is refused."""
        for clash, what in (
            (kind.name in self._kinds, f"name {kind.name!r}"),
            (kind.topic in self._by_topic, f"topic {kind.topic!r}"),
        ):
            if clash:
                raise ValueError(f"state kind {kind.name!r}: {what} is already registered")
        self._kinds[kind.name] = kind
        self._by_topic[kind.topic] = kind
        self._by_effect = None
        return kind

    def __iter__(self) -> Iterator[AnyKind]:
        return iter(tuple(self._kinds.values()))

    def __len__(self) -> int:
        return len(self._kinds)

    def __getitem__(self, name: str) -> AnyKind:
        return self._kinds[name]

    def __contains__(self, name: object) -> bool:
        return name in self._kinds

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._kinds)

    def of_topic(self, topic: str) -> AnyKind | None:
        """The kind whose changelog is ``topic`` (without the namespace prefix)."""
        return self._by_topic.get(topic)

    def topics(self, namespace: str = "") -> dict[str, AnyKind]:
        """Each kind by its namespace-prefixed topic, in declaration order."""
        return {namespace + kind.topic: kind for kind in self._kinds.values()}

    def _effects(self) -> dict[type[Any], tuple[AnyKind, bool]]:
        if self._by_effect is None:
            found: dict[type[Any], tuple[AnyKind, bool]] = {}
            for kind in self._kinds.values():
                b = kind.binding
                for effect, storing in ((b.stores, True), (b.removes, False)):
                    if effect in found:
                        raise ValueError(
                            f"state kind {kind.name!r}: effect {effect.__name__} is already "
                            f"registered by {found[effect][0].name!r}"
                        )
                    found[effect] = (kind, storing)
            self._by_effect = found
        return self._by_effect

    def record_of(self, effect: object) -> tuple[AnyKind, bytes, bytes | None] | None:
        """The state record that carries out ``effect`` (kind, key, value; a tombstone's value
        is None), or None when ``effect`` is not a state effect of a registered kind."""
        found = self._effects().get(type(effect))
        if found is None:
            return None
        kind, storing = found
        b = kind.binding
        if storing:  # kind.record inlined: a retained publication's write path
            value = b.stored_value(effect)
            return kind, b.key_bytes(b.key_of(value)), b.encode(value)
        return kind, b.key_bytes(b.removed_key(effect)), None

    def sizes(self, state: Any) -> dict[str, int]:
        """How many values of each kind the engine ``state`` holds."""
        return {kind.name: kind.size(state) for kind in self._kinds.values()}


# --------------------------------------------------------------------------------------------
# The broker's kinds. Each binds to the engine in a function of its own, which imports what it
# needs when first called (see ``StateKind``).
# --------------------------------------------------------------------------------------------


def _namespace_columns(path: str) -> tuple[SnapshotColumn, ...]:
    return (
        SnapshotColumn("namespace_kind", f"{path}.kind"),
        SnapshotColumn("namespace_name", f"{path}.name"),
    )


def _identity_columns(path: str) -> tuple[SnapshotColumn, ...]:
    return (
        SnapshotColumn("q_name", f"{path}.q_name"),
        SnapshotColumn("q_mgr_name", f"{path}.q_mgr_name"),
        SnapshotColumn("correl_id", f"{path}.correl_id"),
    )


def _bind_retained() -> KindBinding[Publication, tuple[Namespace, str]]:
    from mqkafka.engine.effects import DeleteRetained, Retain
    from mqkafka.state import recordcodec as codec

    def key_of(p: Publication) -> tuple[Namespace, str]:
        return p.namespace, p.topic.text

    def current(state: Any, key: tuple[Namespace, str]) -> Publication | None:
        found: Publication | None = state.retained.get(*key)
        return found

    return KindBinding(
        encode=codec.encode_retained,
        decode=codec.decode_retained,
        key_of=key_of,
        key_bytes=lambda key: codec.retained_key(*key),
        parse_key=codec.parse_retained_key,
        stores=Retain,
        removes=DeleteRetained,
        removing=lambda key: DeleteRetained(*key),
        stored_value=lambda e: e.publication,
        removed_key=lambda e: (e.namespace, e.topic),
        current=current,
    )


def _bind_subscriptions() -> KindBinding[Subscription, SubscriptionKey]:
    from mqkafka.engine.effects import RemoveSubscription, StoreSubscription
    from mqkafka.state import recordcodec as codec

    def current(state: Any, key: SubscriptionKey) -> Subscription | None:
        found: Subscription | None = state.subscription(key)
        return found

    return KindBinding(
        encode=codec.encode_subscription,
        decode=codec.decode_subscription,
        key_of=lambda s: s.key,
        key_bytes=codec.subscription_key,
        parse_key=codec.parse_subscription_key,
        stores=StoreSubscription,
        removes=RemoveSubscription,
        removing=RemoveSubscription,
        stored_value=lambda e: e.subscription,
        removed_key=lambda e: e.key,
        current=current,
    )


def _bind_publishers() -> KindBinding[Publisher, PublisherKey]:
    from mqkafka.engine.effects import DeregisterPublisher, RegisterPublisher
    from mqkafka.state import recordcodec as codec

    def current(state: Any, key: PublisherKey) -> Publisher | None:
        found: Publisher | None = state.publisher(key)
        return found

    return KindBinding(
        encode=codec.encode_publisher,
        decode=codec.decode_publisher,
        key_of=lambda p: p.key,
        key_bytes=codec.publisher_key,
        parse_key=codec.parse_publisher_key,
        stores=RegisterPublisher,
        removes=DeregisterPublisher,
        removing=DeregisterPublisher,
        stored_value=lambda e: e.publisher,
        removed_key=lambda e: e.key,
        current=current,
    )


RETAINED: Final = StateKind["Publication", "tuple[Namespace, str]"](
    name="retained",
    changelog=Changelog(
        "mqk-retained",
        4,
        "Retained publications keyed by stream and topic string "
        "(schemas/retained_publication.avsc); a tombstone is a DeletePub. Compaction is "
        "retain semantics.",
        _BUSY,
    ),
    schema="retained_publication",
    required_field="topic",
    snapshot=(
        *_namespace_columns("v.namespace"),
        SnapshotColumn("topic", "v.topic"),
        SnapshotColumn("interface", "v.interface"),
        SnapshotColumn("user_id", "v.md.UserIdentifier"),
        SnapshotColumn("msg_id", "v.md.MsgId"),
        SnapshotColumn("priority", "v.priority"),
        SnapshotColumn("persistence", "v.persistence"),
        SnapshotColumn("expiry", "v.expiry"),
        SnapshotColumn("retained_at", "v.retained_at", "timestamp"),
        SnapshotColumn("pub_time", "v.pub_time"),
        SnapshotColumn("seq_num", "v.seq_num"),
        SnapshotColumn("local", "v.local"),
        SnapshotColumn("reply_to_q", "v.reply_to.q_name"),
        SnapshotColumn("reply_to_q_mgr", "v.reply_to.q_mgr_name"),
        SnapshotColumn("format", "v.content.format"),
        SnapshotColumn("body_bytes", "v.content.body", "length"),
        SnapshotColumn("body", "v.content.body"),
        SnapshotColumn("md", "v.md"),
        SnapshotColumn("content", "v.content"),
    ),
    gauge=GaugeSpec("mqk_retained_publications", "Retained publications held"),
    bind=_bind_retained,
)

SUBSCRIPTIONS: Final = StateKind["Subscription", "SubscriptionKey"](
    name="subscriptions",
    changelog=Changelog(
        "mqk-subscriptions",
        4,
        "Subscriptions (identity, names, subscriber identities, options, userid) keyed by "
        "subscription key; tombstone on deregistration.",
        _BUSY,
    ),
    schema="subscription",
    required_field="user_id",
    snapshot=(
        *_namespace_columns("v.key.namespace"),
        SnapshotColumn("topic", "v.key.topic.text"),
        SnapshotColumn("scheme", "v.key.topic.scheme"),
        SnapshotColumn("filter", "v.key.filter"),
        *_identity_columns("v.key.identity"),
        SnapshotColumn("user_id", "v.user_id"),
        SnapshotColumn("options", "v.options"),
        SnapshotColumn("interface", "v.interface"),
        SnapshotColumn("sub_name", "v.name"),
        SnapshotColumn("identities", "v.identities"),
        SnapshotColumn("exclusive", "v.exclusive"),
        SnapshotColumn("user_data", "v.user_data"),
        SnapshotColumn("delivery_correl_id", "v.delivery_correl_id"),
        SnapshotColumn("context", "v.context"),
    ),
    gauge=GaugeSpec("mqk_subscriptions", "Subscriptions held"),
    bind=_bind_subscriptions,
)

PUBLISHERS: Final = StateKind["Publisher", "PublisherKey"](
    name="publishers",
    changelog=Changelog(
        "mqk-publishers",
        1,
        "Publisher registrations (RegPub and implicit registration) keyed by publisher identity.",
    ),
    schema="publisher",
    required_field="user_id",
    snapshot=(
        *_namespace_columns("v.key.namespace"),
        SnapshotColumn("topic", "v.key.topic"),
        *_identity_columns("v.key.identity"),
        SnapshotColumn("user_id", "v.user_id"),
        SnapshotColumn("options", "v.options"),
        SnapshotColumn("implicit", "v.implicit"),
    ),
    gauge=None,  # none today: a gauge here would be a new metric
    bind=_bind_publishers,
)

# in the catalogue's order (also the order snapshots are taken and listed in)
STATE_KINDS: Final = StateKinds((RETAINED, SUBSCRIPTIONS, PUBLISHERS))

# The MQI's state topics: kept by the MQI's own replica (mqi/replica.py), not the engine's.
MQI_CHANGELOGS: Final = (
    Changelog(
        "mqk-queues",
        1,
        "The queue manager's catalogue: queue definitions (local, model, dynamic) keyed by "
        "queue name.",
    ),
    Changelog(
        "mqk-connections",
        1,
        "Heartbeats of MQI connections (broker time), keyed by connection id: how a crashed "
        "application's temporary dynamic queues are found and deleted; and, keyed "
        "acked/<connection id>, what a getter that closed its handle or crashed acknowledged "
        "above its share group's start (browse where __share_group_state may not be read).",
        {
            **COMPACTED,
            "message.timestamp.type": "LogAppendTime",
            "segment.ms": "60000",
            "delete.retention.ms": "60000",
        },
    ),
)


def changelogs(kinds: StateKinds = STATE_KINDS) -> tuple[Changelog, ...]:
    """Every state topic the broker and the MQI keep, as provisioning declares it."""
    return (*(kind.changelog for kind in kinds), *MQI_CHANGELOGS)


__all__ = [
    "COMPACTED",
    "MQI_CHANGELOGS",
    "PUBLISHERS",
    "RETAINED",
    "STATE_KINDS",
    "SUBSCRIPTIONS",
    "AnyKind",
    "Changelog",
    "GaugeSpec",
    "KindBinding",
    "SnapshotColumn",
    "StateKind",
    "StateKinds",
    "changelogs",
]
