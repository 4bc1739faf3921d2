"""The engine's one view of topics, namespaces and the subscription matcher.

Everything the engine needs from ``mqkafka.mq.topics`` and ``mqkafka.engine.matcher`` goes
through here, so that a change in their API is a change in this module only.

Namespaces (reference §1.4). The matcher keeps streams and subpoints apart even when they
share a name; the engine decides which namespace a command lives in:

| interface | command                         | namespace                                      |
|-----------|---------------------------------|------------------------------------------------|
| RFH2      | any, with ``SubPoint``          | that subpoint                                  |
| RFH2      | subscriber command, no SubPoint | the root (default subpoint)                    |
| RFH2      | Publish/DeletePub, no SubPoint  | the stream named by the queue it was put to    |
| RFH1      | any, ``MQPSStreamName`` given   | that stream                                    |
| RFH1      | subscriber command, no stream   | the root                                       |
| RFH1      | Publish/DeletePub, no stream    | the stream named by the queue it was put to    |

The default stream and the default subpoint are one namespace, the root: MQ v7+ maps the
default stream to the root of its topic tree and commands without SubPoint use the root
(§1.4), so RFH1 and RFH2 applications on the defaults see each other's publications. The
subpoint named ``SYSTEM.BROKER.DEFAULT.SUBPOINT`` is the root too.

Wildcard scheme (choice §10.16): RFH1 commands use the character scheme, RFH2 the topic one.
"""

from __future__ import annotations

from mqkafka.engine.matcher import SubscriptionIndex
from mqkafka.mq.commands import Interface
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mq.topics import (
    DEFAULT_STREAM_NAME,
    Namespace,
    NamespaceKind,
    Scheme,
    TopicFilter,
    TopicString,
    matches,
    validate_filter,
    validate_publish_topic,
)

ROOT = Namespace.subpoint("")
DEFAULT_SUBPOINT_OBJECT = "SYSTEM.BROKER.DEFAULT.SUBPOINT"


def scheme_of(interface: Interface) -> Scheme:
    return Scheme.TOPIC if interface is Interface.RFH2 else Scheme.CHAR


def subscriber_namespace(
    interface: Interface, sub_point: str | None, stream: str | None
) -> Namespace:
    """The namespace of RegSub / DeregSub / ReqUpdate (table above)."""
    if interface is Interface.RFH2:
        return _subpoint(sub_point)
    return _stream(stream) if stream else ROOT


def publisher_namespace(
    interface: Interface, sub_point: str | None, stream: str | None, queue: str
) -> Namespace:
    """The namespace of Publish / DeletePub / RegPub / DeregPub (table above).

    An RFH1 stream name that differs from the stream queue the message was put to is
    MQRCCF_INCORRECT_STREAM (reference §3.5, 3075).
    """
    if interface is Interface.RFH2:
        if sub_point:
            return _subpoint(sub_point)
        return _stream(queue)
    if stream and stream.rstrip(" ") != queue and queue:
        raise MQError(RC.CF_INCORRECT_STREAM, f"stream {stream!r} put to queue {queue!r}")
    return _stream(stream or queue)


def registration_namespace(stream: str | None) -> Namespace:
    """RegPub / DeregPub: the stream named, by default the default stream (§2.12)."""
    return _stream(stream) if stream else ROOT


def stream_queue_of(namespace: Namespace) -> str:
    """The stream queue whose browse authority guards a namespace (seed 000)."""
    if namespace.kind is NamespaceKind.STREAM:
        return namespace.name
    return DEFAULT_STREAM_NAME


def _subpoint(name: str | None) -> Namespace:
    if not name or name == DEFAULT_SUBPOINT_OBJECT:
        return ROOT
    return Namespace.subpoint(name)


def _stream(name: str | None) -> Namespace:
    if not name or name.rstrip(" ") == DEFAULT_STREAM_NAME:
        return ROOT
    return Namespace.stream(name)


def subscription_topic(text: str, interface: Interface) -> TopicFilter:
    """A subscription's topic (wildcards allowed) -> MQRCCF_TOPIC_ERROR when invalid."""
    return validate_filter(text, scheme_of(interface))


def publication_topic(text: str, interface: Interface) -> TopicString:
    """A publication's topic (no wildcards) -> MQRCCF_TOPIC_ERROR (or 2598) when invalid.
    ``EngineState.publication_topic`` remembers the answers."""
    return validate_publish_topic(text, scheme_of(interface))


def topic_text_for(topic: TopicString, interface: Interface) -> str:
    """A topic as written in a message of ``interface`` (escaped for the character scheme)."""
    return topic.spelled_for(scheme_of(interface))


def selects(flt: TopicFilter, topic: TopicString) -> bool:
    """One filter against one topic (namespaces are the caller's business)."""
    return matches(flt, topic)


__all__ = [
    "ROOT",
    "Namespace",
    "NamespaceKind",
    "Scheme",
    "SubscriptionIndex",
    "TopicFilter",
    "TopicString",
    "publication_topic",
    "publisher_namespace",
    "registration_namespace",
    "scheme_of",
    "selects",
    "stream_queue_of",
    "subscriber_namespace",
    "subscription_topic",
    "topic_text_for",
]
