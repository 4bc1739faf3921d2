"""Hypothesis strategies for the state records, built through the engine's own constructors
(so every value drawn is one the engine could have made), plus a few fixed samples."""

from __future__ import annotations

from hypothesis import strategies as st

from mqkafka.engine.identity import Identity
from mqkafka.engine.records import (
    STORED_REG_OPTIONS,
    Publication,
    Publisher,
    PublisherKey,
    SubscriberContext,
    Subscription,
    SubscriptionKey,
)
from mqkafka.engine.topicspace import ROOT, Namespace, Scheme, TopicFilter, TopicString
from mqkafka.mq.commands import Interface, PublicationContent, RegOpt
from mqkafka.mq.mqmd import MQMD
from mqkafka.mq.topics import escape_char_literal
from tests.unit.codecs.strategies import MQLONG, mqmds

# Avro strings are UTF-8: any text without lone surrogates.
CHARS = st.characters(exclude_categories=["Cs"])
TEXT = st.text(CHARS, max_size=20)
NO_NUL = st.characters(exclude_categories=["Cs"], exclude_characters="\x00")
OBJECT_NAMES = st.from_regex(r"[A-Za-z0-9./_%]{1,48}", fullmatch=True)
ID24 = st.binary(min_size=24, max_size=24).filter(any)

NAMESPACES = st.one_of(
    st.sampled_from(
        [ROOT, Namespace.stream("Sport"), Namespace.subpoint("Sport"), Namespace.stream()]
    ),
    OBJECT_NAMES.map(Namespace.stream),
    st.text(NO_NUL, max_size=128).map(Namespace.subpoint),
)
TOPIC_TEXTS = st.text(NO_NUL, min_size=1, max_size=30)
TOPICS = TOPIC_TEXTS.map(TopicString)
INTERFACES = st.sampled_from(Interface)


@st.composite
def topic_filters(draw: st.DrawFn) -> TopicFilter:
    scheme = draw(st.sampled_from(Scheme))
    text = draw(TOPIC_TEXTS)
    if scheme is Scheme.CHAR:  # a valid character pattern: escape the literal, maybe a wildcard
        text = escape_char_literal(text) + draw(st.sampled_from(["", "*", "?"]))
    return TopicFilter(text, scheme)


IDENTITIES = st.builds(Identity, OBJECT_NAMES, OBJECT_NAMES, st.none() | ID24)


@st.composite
def subscriptions(draw: st.DrawFn) -> Subscription:
    identity = draw(IDENTITIES)
    key = SubscriptionKey(draw(NAMESPACES), identity, draw(topic_filters()), draw(st.none() | TEXT))
    bits = draw(st.integers(0, int(STORED_REG_OPTIONS))) & int(STORED_REG_OPTIONS)
    options = RegOpt(bits) & ~RegOpt.CORREL_ID_AS_IDENTITY
    if identity.correl_id is not None:
        options |= RegOpt.CORREL_ID_AS_IDENTITY
    identities = draw(st.frozensets(st.text(NO_NUL, min_size=1, max_size=12), max_size=4))
    exclusive = draw(st.none() | st.sampled_from(sorted(identities))) if identities else None
    return Subscription(
        key=key,
        user_id=draw(st.text(NO_NUL, max_size=12)),
        options=options,
        interface=draw(INTERFACES),
        delivery_correl_id=identity.correl_id or draw(ID24),
        name=draw(st.none() | st.text(NO_NUL, min_size=1, max_size=20)),
        identities=identities,
        exclusive=exclusive,
        user_data=draw(st.none() | TEXT),
        context=draw(st.builds(SubscriberContext, TEXT, st.binary(min_size=32, max_size=32), TEXT)),
    )


CONTENTS = st.builds(
    PublicationContent,
    body=st.binary(max_size=64),
    folders=st.lists(TEXT, max_size=3).map(tuple),
    name_values=st.lists(st.tuples(TEXT, TEXT), max_size=3).map(tuple),
    encoding=MQLONG,
    ccsid=MQLONG,
    format=st.text(CHARS, max_size=8),
    name_value_ccsid=MQLONG,
)


@st.composite
def publications(
    draw: st.DrawFn,
    namespaces: st.SearchStrategy[Namespace] = NAMESPACES,
    topics: st.SearchStrategy[TopicString] = TOPICS,
) -> Publication:
    return Publication(
        namespace=draw(namespaces),
        topic=draw(topics),
        content=draw(CONTENTS),
        interface=draw(INTERFACES),
        priority=draw(st.integers(-1, 9) | MQLONG),
        persistence=draw(st.integers(0, 2) | MQLONG),
        expiry=draw(st.just(-1) | MQLONG),
        retained_at=draw(st.floats(allow_nan=False)),
        pub_time=draw(st.none() | TEXT),
        seq_num=draw(st.none() | TEXT),
        local=draw(st.booleans()),
        reply_to=draw(st.none() | st.tuples(OBJECT_NAMES, OBJECT_NAMES)),
        md=draw(st.just(MQMD()) | mqmds()),
    )


PUBLISHERS = st.builds(
    Publisher,
    key=st.builds(PublisherKey, NAMESPACES, IDENTITIES, TOPICS),
    user_id=st.text(NO_NUL, max_size=12),
    options=st.sampled_from([RegOpt.NONE, RegOpt.ANONYMOUS, RegOpt.DIRECT_REQUESTS | RegOpt.LOCAL]),
    implicit=st.booleans(),
)

# ---- fixed samples -----------------------------------------------------------------------

Q = Identity("SUB.Q", "QM1")
Q_CORREL = Identity("SUB.Q", "QM1", b"C" * 24)


def sub(
    topic: str = "Sport/#",
    *,
    namespace: Namespace = ROOT,
    identity: Identity = Q,
    name: str | None = None,
    user_data: str | None = None,
) -> Subscription:
    options = RegOpt.CORREL_ID_AS_IDENTITY if identity.correl_id else RegOpt.NONE
    return Subscription(
        key=SubscriptionKey(namespace, identity, TopicFilter(topic, Scheme.TOPIC)),
        user_id="fred",
        options=options,
        interface=Interface.RFH2,
        delivery_correl_id=identity.correl_id or b"D" * 24,
        name=name,
        user_data=user_data,
    )


def pub(topic: str, *, namespace: Namespace = ROOT, body: bytes = b"") -> Publication:
    return Publication(
        namespace=namespace,
        topic=TopicString(topic),
        content=PublicationContent(body=body),
        interface=Interface.RFH2,
        priority=4,
        persistence=1,
    )


def publisher(topic: str, *, namespace: Namespace = ROOT, implicit: bool = False) -> Publisher:
    return Publisher(PublisherKey(namespace, Q, TopicString(topic)), "fred", implicit=implicit)
