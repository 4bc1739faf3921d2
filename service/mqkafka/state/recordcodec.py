"""The broker's state as bytes: record keys and Avro values of mqk-retained, mqk-subscriptions
and mqk-publishers, shared by the Kafka state topics and the local RocksDB stores.

Values are Avro binary with no framing (fastavro "schemaless"); the writer schemas are the
documented files in ``schemas/`` so that any Kafka consumer can read the broker's state.
Keys are UTF-8 strings built from the natural key of each record:

| topic             | key (parts joined by NUL)                         | why                |
|-------------------|---------------------------------------------------|--------------------|
| mqk-retained      | ns, topic                                         | retain = compaction |
| mqk-subscriptions | ns, q, qmgr, correl, scheme, topic [, filter]     | the SubscriptionKey |
| mqk-publishers    | ns, q, qmgr, correl, topic                        | the PublisherKey   |

mqk-retained is "keyed by stream and topic string": compaction keeps one publication per
topic, and the namespace first groups a namespace in key order (``in_namespace`` is a prefix
scan). Subscriptions need the whole key because DeregSub and ReqUpdate must repeat Topic,
SubPoint and Filter (S0).

``ns`` is ``stream:<name>`` or ``subpoint:<name>`` (``subpoint:`` alone is the root);
``correl`` is the identity's CorrelId in lowercase hex, empty when it has none; ``scheme``
is ``topic`` or ``char``. No part before the last can contain NUL (the value types refuse
it), so NUL separates unambiguously; a Filter (any text) comes last, and its absence (no
separator) differs from an empty one (a trailing NUL).

Bytes that do not decode to a valid value raise ``MQError(RC.OBJECT_DAMAGED)``: whatever
produced them, the stored object is damaged.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar

import fastavro

from mqkafka import resources
from mqkafka.engine.identity import Identity
from mqkafka.engine.records import (
    Publication,
    Publisher,
    PublisherKey,
    SubscriberContext,
    Subscription,
    SubscriptionKey,
)
from mqkafka.engine.topicspace import Namespace, Scheme, TopicFilter, TopicString
from mqkafka.mq.commands import Interface, PublicationContent, RegOpt
from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import FIELD_NAMES, MQMD, MQMD_DEFAULT
from mqkafka.mq.reasons import RC
from mqkafka.mq.topics import NamespaceKind

SEP: Final = "\x00"
_NS_PREFIX: Final = {NamespaceKind.STREAM: "stream:", NamespaceKind.SUBPOINT: "subpoint:"}
_NS_KIND: Final = {prefix[:-1]: kind for kind, prefix in _NS_PREFIX.items()}
_SCHEME_TEXT: Final = {Scheme.TOPIC: "topic", Scheme.CHAR: "char"}
_SCHEME_OF: Final = {text: scheme for scheme, text in _SCHEME_TEXT.items()}


def load_schema(name: str) -> Any:
    """A parsed writer schema from ``schemas/<name>.avsc``."""
    return fastavro.parse_schema(resources.schema(name))


RETAINED_SCHEMA: Final = load_schema("retained_publication")
SUBSCRIPTION_SCHEMA: Final = load_schema("subscription")
PUBLISHER_SCHEMA: Final = load_schema("publisher")

# --------------------------------------------------------------------------------------------
# Keys
# --------------------------------------------------------------------------------------------


def namespace_text(namespace: Namespace) -> str:
    """``stream:<name>`` or ``subpoint:<name>``: the namespace part of every key."""
    return _NS_PREFIX[namespace.kind] + namespace.name


def retained_prefix(namespace: Namespace, literal_prefix: str = "") -> bytes:
    """Every retained key of ``namespace`` whose topic starts with ``literal_prefix`` starts
    with these bytes (and no other key does)."""
    return (namespace_text(namespace) + SEP + literal_prefix).encode("utf-8")


def retained_key(namespace: Namespace, topic: str) -> bytes:
    return retained_prefix(namespace, topic)


def _identity_text(identity: Identity) -> str:
    correl = "" if identity.correl_id is None else identity.correl_id.hex()
    return SEP.join((identity.q_name, identity.q_mgr_name, correl))


def subscription_key(key: SubscriptionKey) -> bytes:
    parts = [
        namespace_text(key.namespace),
        _identity_text(key.identity),
        _SCHEME_TEXT[key.topic.scheme],
        key.topic.text,
    ]
    if key.filter is not None:
        parts.append(key.filter)
    return SEP.join(parts).encode("utf-8")


def publisher_key(key: PublisherKey) -> bytes:
    parts = (namespace_text(key.namespace), _identity_text(key.identity), key.topic.text)
    return SEP.join(parts).encode("utf-8")


def parse_retained_key(key: bytes) -> tuple[Namespace, str]:
    """(namespace, topic) of an mqk-retained key: what a tombstone deletes."""

    def parse() -> tuple[Namespace, str]:
        ns, topic = _split(key, 2, 2)
        return _namespace_of(ns), TopicString(topic).text  # a valid topic, or damaged

    return _damaged_if_fails("retained key", key, parse)


def parse_subscription_key(key: bytes) -> SubscriptionKey:
    def parse() -> SubscriptionKey:
        ns, q_name, q_mgr, correl, scheme, topic, *flt = _split(key, 6, 7)
        return SubscriptionKey(
            _namespace_of(ns),
            _identity_of(q_name, q_mgr, correl),
            TopicFilter(topic, _SCHEME_OF[scheme]),
            flt[0] if flt else None,
        )

    return _damaged_if_fails("subscription key", key, parse)


def parse_publisher_key(key: bytes) -> PublisherKey:
    def parse() -> PublisherKey:
        ns, q_name, q_mgr, correl, topic = _split(key, 5, 5)
        return PublisherKey(
            _namespace_of(ns), _identity_of(q_name, q_mgr, correl), TopicString(topic)
        )

    return _damaged_if_fails("publisher key", key, parse)


def _split(key: bytes, least: int, most: int) -> list[str]:
    parts = key.decode("utf-8").split(SEP, most - 1)
    if len(parts) < least:
        raise ValueError(f"{len(parts)} parts, {least} expected")
    return parts


def _namespace_of(text: str) -> Namespace:
    kind, _, name = text.partition(":")
    return Namespace(_NS_KIND[kind], name)


def _identity_of(q_name: str, q_mgr_name: str, correl: str) -> Identity:
    return Identity(q_name, q_mgr_name, bytes.fromhex(correl) if correl else None)


# --------------------------------------------------------------------------------------------
# Values: records <-> the dicts fastavro writes and reads
# --------------------------------------------------------------------------------------------

_NAMESPACES: dict[tuple[str, str], Namespace] = {}  # few distinct ones; skips re-validation


def _ns_out(namespace: Namespace) -> dict[str, str]:
    return {"kind": namespace.kind.name, "name": namespace.name}


def _ns_in(value: Mapping[str, str]) -> Namespace:
    kind, name = value["kind"], value["name"]
    found = _NAMESPACES.get((kind, name))
    if found is None:
        found = Namespace(NamespaceKind[kind], name)
        if len(_NAMESPACES) < 4096:
            _NAMESPACES[kind, name] = found
    return found


def _identity_out(identity: Identity) -> dict[str, Any]:
    return {
        "q_name": identity.q_name,
        "q_mgr_name": identity.q_mgr_name,
        "correl_id": identity.correl_id,
    }


def _identity_in(value: Mapping[str, Any]) -> Identity:
    return Identity(value["q_name"], value["q_mgr_name"], value["correl_id"])


_DEFAULT_MD: Final = MQMD_DEFAULT.as_dict()


def _md_in(value: dict[str, Any]) -> MQMD:
    # A default descriptor is common (the engine's own records) and costs a validation.
    return MQMD_DEFAULT if value == _DEFAULT_MD else MQMD(**value)


def _publication_out(p: Publication) -> dict[str, Any]:
    c = p.content
    md = p.md
    return {
        "namespace": _ns_out(p.namespace),
        "topic": p.topic.text,
        "interface": p.interface.name,
        "priority": p.priority,
        "persistence": p.persistence,
        "expiry": p.expiry,
        "retained_at": p.retained_at,
        "pub_time": p.pub_time,
        "seq_num": p.seq_num,
        "local": p.local,
        "reply_to": None
        if p.reply_to is None
        else {"q_name": p.reply_to[0], "q_mgr_name": p.reply_to[1]},
        "md": {name: getattr(md, name) for name in FIELD_NAMES},
        "content": {
            "body": c.body,
            "folders": c.folders,
            "name_values": [{"name": n, "value": v} for n, v in c.name_values],
            "encoding": c.encoding,
            "ccsid": c.ccsid,
            "format": c.format,
            "name_value_ccsid": c.name_value_ccsid,
        },
    }


def _publication_in(d: dict[str, Any]) -> Publication:
    c = d["content"]
    reply_to = d["reply_to"]
    return Publication(
        namespace=_ns_in(d["namespace"]),
        topic=TopicString(d["topic"]),
        content=PublicationContent(
            body=c["body"],
            folders=tuple(c["folders"]),
            name_values=tuple((nv["name"], nv["value"]) for nv in c["name_values"]),
            encoding=c["encoding"],
            ccsid=c["ccsid"],
            format=c["format"],
            name_value_ccsid=c["name_value_ccsid"],
        ),
        interface=Interface[d["interface"]],
        priority=d["priority"],
        persistence=d["persistence"],
        expiry=d["expiry"],
        retained_at=d["retained_at"],
        pub_time=d["pub_time"],
        seq_num=d["seq_num"],
        local=d["local"],
        reply_to=None if reply_to is None else (reply_to["q_name"], reply_to["q_mgr_name"]),
        md=_md_in(d["md"]),
    )


def _subscription_out(s: Subscription) -> dict[str, Any]:
    key, ctx = s.key, s.context
    return {
        "key": {
            "namespace": _ns_out(key.namespace),
            "identity": _identity_out(key.identity),
            "topic": {"text": key.topic.text, "scheme": key.topic.scheme.name},
            "filter": key.filter,
        },
        "user_id": s.user_id,
        "options": int(s.options),
        "interface": s.interface.name,
        "delivery_correl_id": s.delivery_correl_id,
        "name": s.name,
        "identities": sorted(s.identities),  # a set: sorted, so equal values encode equal
        "exclusive": s.exclusive,
        "user_data": s.user_data,
        "context": {
            "user_identifier": ctx.user_identifier,
            "accounting_token": ctx.accounting_token,
            "appl_identity_data": ctx.appl_identity_data,
        },
    }


def _subscription_in(d: dict[str, Any]) -> Subscription:
    k, ctx = d["key"], d["context"]
    return Subscription(
        key=SubscriptionKey(
            _ns_in(k["namespace"]),
            _identity_in(k["identity"]),
            TopicFilter(k["topic"]["text"], Scheme[k["topic"]["scheme"]]),
            k["filter"],
        ),
        user_id=d["user_id"],
        options=RegOpt(d["options"]),
        interface=Interface[d["interface"]],
        delivery_correl_id=d["delivery_correl_id"],
        name=d["name"],
        identities=frozenset(d["identities"]),
        exclusive=d["exclusive"],
        user_data=d["user_data"],
        context=SubscriberContext(
            ctx["user_identifier"], ctx["accounting_token"], ctx["appl_identity_data"]
        ),
    )


def _publisher_out(p: Publisher) -> dict[str, Any]:
    return {
        "key": {
            "namespace": _ns_out(p.key.namespace),
            "identity": _identity_out(p.key.identity),
            "topic": p.key.topic.text,
        },
        "user_id": p.user_id,
        "options": int(p.options),
        "implicit": p.implicit,
    }


def _publisher_in(d: dict[str, Any]) -> Publisher:
    k = d["key"]
    return Publisher(
        key=PublisherKey(
            _ns_in(k["namespace"]), _identity_in(k["identity"]), TopicString(k["topic"])
        ),
        user_id=d["user_id"],
        options=RegOpt(d["options"]),
        implicit=d["implicit"],
    )


# --------------------------------------------------------------------------------------------
# The public codec
# --------------------------------------------------------------------------------------------

_T = TypeVar("_T")


def _write(schema: Any, record: dict[str, Any]) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, schema, record)
    return out.getvalue()


def _read(what: str, schema: Any, value: bytes, build: Callable[[dict[str, Any]], _T]) -> _T:
    def decode() -> _T:
        data = io.BytesIO(value)
        record = fastavro.schemaless_reader(data, schema, None)
        if data.tell() != len(value):
            raise ValueError(f"{len(value) - data.tell()} bytes after the record")
        return build(record)

    return _damaged_if_fails(what, value, decode)


def _damaged_if_fails(what: str, data: bytes, action: Callable[[], _T]) -> _T:
    """Run ``action``; any failure means the stored bytes are damaged (MQRC_OBJECT_DAMAGED).

    Decoders of hostile bytes fail in many ways (EOFError, UnicodeDecodeError, KeyError on an
    enum symbol, MQError or ValueError from a value's own checks): all are one condition here.
    """
    try:
        return action()
    except Exception as error:  # any failure: see the docstring
        detail = f"{what} does not decode ({type(error).__name__}: {error}); {len(data)} bytes"
        raise MQError(RC.OBJECT_DAMAGED, detail) from error


def encode_retained(p: Publication) -> bytes:
    return _write(RETAINED_SCHEMA, _publication_out(p))


def decode_retained(value: bytes) -> Publication:
    return _read("retained publication", RETAINED_SCHEMA, value, _publication_in)


def encode_subscription(s: Subscription) -> bytes:
    return _write(SUBSCRIPTION_SCHEMA, _subscription_out(s))


def decode_subscription(value: bytes) -> Subscription:
    return _read("subscription", SUBSCRIPTION_SCHEMA, value, _subscription_in)


def encode_publisher(p: Publisher) -> bytes:
    return _write(PUBLISHER_SCHEMA, _publisher_out(p))


def decode_publisher(value: bytes) -> Publisher:
    return _read("publisher", PUBLISHER_SCHEMA, value, _publisher_in)


__all__ = [
    "PUBLISHER_SCHEMA",
    "RETAINED_SCHEMA",
    "SUBSCRIPTION_SCHEMA",
    "decode_publisher",
    "decode_retained",
    "decode_subscription",
    "encode_publisher",
    "encode_retained",
    "encode_subscription",
    "load_schema",
    "namespace_text",
    "parse_publisher_key",
    "parse_retained_key",
    "parse_subscription_key",
    "publisher_key",
    "retained_key",
    "retained_prefix",
    "subscription_key",
]
