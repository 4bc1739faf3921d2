"""Publish, Delete Publication, Register and Deregister Publisher (seed 001, reference §2.10-
§2.12, §4.3).

Who gets a copy of a publication on a topic (§4.3), one copy per matching subscription
whatever the number of its subscriber identities (S2):

| subscription                                  | gets a copy?                            |
|-----------------------------------------------|-----------------------------------------|
| topic does not select the publication's topic | no                                      |
| PubOnReqOnly                                  | no (only retained copies, by ReqUpdate) |
| the publisher's own identity, OtherSubsOnly   | no                                      |
| not Local, publication Local, strict v6 mode  | no (choice §10.4; otherwise Local is a no-op) |
| Filter false or unknown                       | no                                      |
| its userid may not subscribe to the topic     | no (checked per copy, as MQ does)       |
| otherwise                                     | yes                                     |

The publish path is the hot one: everything per subscription is looked up, not computed
(the matcher index, the cached delivery template, the shared added properties).
"""

from __future__ import annotations

from mqkafka.engine.authority import grants_everything
from mqkafka.engine.context import EngineContext
from mqkafka.engine.delivery import Copies, Published
from mqkafka.engine.effects import (
    DeleteRetained,
    DeregisterPublisher,
    Effect,
    RegisterPublisher,
    Retain,
)
from mqkafka.engine.identity import Identity, check_owner, identity_of
from mqkafka.engine.outcome import Outcome, authorised, selected
from mqkafka.engine.records import Publication, Publisher, PublisherKey
from mqkafka.engine.state import EngineState
from mqkafka.engine.topicspace import (
    Namespace,
    TopicString,
    publisher_namespace,
    registration_namespace,
    selects,
    subscription_topic,
)
from mqkafka.engine.view import PublicationView
from mqkafka.mq.commands import (
    DeletePub,
    DelOpt,
    DeregPub,
    Interface,
    Publish,
    PubOpt,
    RegOpt,
    RegPub,
)
from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import MQPRI_PRIORITY_AS_Q_DEF
from mqkafka.mq.reasons import RC
from mqkafka.mq.responses import ResponseItem

_PRIORITY_AS_Q_DEF = int(MQPRI_PRIORITY_AS_Q_DEF)
_LOCAL = int(PubOpt.LOCAL)
_REG_LOCAL = int(RegOpt.LOCAL)
_OTHER_SUBS_ONLY = int(PubOpt.OTHER_SUBSCRIBERS_ONLY)
_RETAIN = int(PubOpt.RETAIN_PUBLICATION)
_NO_REGISTRATION = int(PubOpt.NO_REGISTRATION)

# Options a publisher registration keeps (RegPub / implicit registration, §2.12).
_PUBLISHER_OPTIONS = (
    RegOpt.ANONYMOUS | RegOpt.CORREL_ID_AS_IDENTITY | RegOpt.DIRECT_REQUESTS | RegOpt.LOCAL
)


def publish(state: EngineState, cmd: Publish, ctx: EngineContext) -> Outcome:
    namespace = publisher_namespace(cmd.interface, cmd.sub_point, cmd.stream, cmd.queue)
    topics = [state.publication_topic(text, cmd.interface) for text in cmd.topics]
    publisher = _publisher_identity(cmd, ctx)
    out = Outcome()
    authority = ctx.authority
    check_subscribers = not grants_everything(authority)
    if not check_subscribers:
        allowed = topics
    else:
        allowed = authorised(
            [(topic.text, topic) for topic in topics],
            lambda text: ctx.authority.may_publish(cmd.user_id, namespace, text),
            out,
        )
    md = cmd.md
    # MQPRI_PRIORITY_AS_Q_DEF / MQPER_PERSISTENCE_AS_Q_DEF resolve against the stream queue
    # the publication was put to (§4.1 "resolved if AS_Q_DEF").
    priority = md.Priority
    if priority == _PRIORITY_AS_Q_DEF:
        priority = ctx.queues.default_priority(cmd.queue)
    persistence = md.Persistence
    if persistence != 0 and persistence != 1:  # MQPER_PERSISTENCE_AS_Q_DEF (or unknown)
        persistence = ctx.queues.default_persistence(cmd.queue)
    options = int(cmd.options)  # plain int: IntFlag arithmetic is slow on the hot path
    local = bool(options & _LOCAL or int(cmd.reg_options) & _REG_LOCAL)
    strict_local = local and ctx.config.strict_v6_local
    others_only = bool(options & _OTHER_SUBS_ONLY)
    retain = bool(options & _RETAIN)
    # Implicit registration "unless MQPS_NO_REGISTRATION is specified" (S1).
    register = publisher is not None and not options & _NO_REGISTRATION
    now = ctx.clock()
    effects = out.effects
    for topic in allowed:
        registration = None
        if register:
            assert publisher is not None
            registration = _implicit_registration(state, cmd, ctx, namespace, publisher, topic)
        reply_to = _direct_requests(state, cmd, namespace, publisher, topic, registration)
        published = Published(
            namespace,
            topic,
            cmd.content,
            priority,
            persistence,
            md.Expiry,
            cmd.pub_time,
            cmd.seq_num,
            reply_to,
        )
        copies = Copies(published, ctx, now=now)
        view: PublicationView | None = None
        for live in state.matching(namespace, topic):
            if not live.push:
                continue
            if others_only and live.sub.key.identity == publisher:
                continue
            if strict_local and not live.local:
                continue
            # a wildcard (or a topic the ACL's patterns miss) never delivers what its userid
            # may not subscribe to; decisions are cached, so this is a dict hit per copy
            if check_subscribers and not authority.may_subscribe(
                live.sub.user_id, namespace, topic.text
            ):
                continue
            if live.compiled is not None:
                if view is None:
                    view = PublicationView(cmd.content, md)
                    out.reads_content = True
                if not selected(live.compiled, view, out):
                    continue
            effects.append(copies.deliver(live))
        if retain:  # replaces the topic's previous one (§4.3)
            pub = Publication(
                namespace,
                topic,
                cmd.content,
                cmd.interface,
                priority,
                persistence,
                md.Expiry,
                now,
                cmd.pub_time,
                cmd.seq_num,
                local,
                reply_to,
                md,
            )
            effects.append(Retain(pub))
        if registration is not None:
            effects.append(registration)
    return out


def _publisher_identity(cmd: Publish, ctx: EngineContext) -> Identity | None:
    """The publisher's identity, when it names a queue (its QName or MQMD.ReplyToQ)."""
    if not cmd.q_name:
        return None
    correl = RegOpt.CORREL_ID_AS_IDENTITY if cmd.correl_as_id else RegOpt.NONE
    return identity_of(cmd.q_name, cmd.q_mgr_name, cmd.correl_id, correl, ctx.qmgr_name)


def _implicit_registration(
    state: EngineState,
    cmd: Publish,
    ctx: EngineContext,
    namespace: Namespace,
    identity: Identity,
    topic: TopicString,
) -> Effect | None:
    key = PublisherKey(namespace, identity, topic)
    existing = state.publisher(key)
    if existing is not None:
        # RFH1 Publish lists MQRCCF_DUPLICATE_IDENTITY among its errors (§2.10); in RFH2
        # publisher registration is implicit bookkeeping only (§1.2), never a refusal.
        if cmd.interface is Interface.RFH1:
            check_owner(existing.owner, cmd.user_id, cmd.reg_options, ctx.authority)
        return None
    options = cmd.reg_options & _PUBLISHER_OPTIONS
    return RegisterPublisher(Publisher(key, cmd.user_id, options, implicit=True))


def _direct_requests(
    state: EngineState,
    cmd: Publish,
    namespace: Namespace,
    identity: Identity | None,
    topic: TopicString,
    registration: Effect | None,
) -> tuple[str, str] | None:
    """The publisher's queue, for RFH1 copies, when it registered DirectReq (§4.2)."""
    if identity is None:
        return None
    if isinstance(registration, RegisterPublisher):
        options = registration.publisher.options
    else:
        existing = state.publisher(PublisherKey(namespace, identity, topic))
        options = existing.options if existing is not None else cmd.reg_options
    if RegOpt.DIRECT_REQUESTS in options:
        return identity.q_name, identity.q_mgr_name
    return None


def delete_publication(state: EngineState, cmd: DeletePub, ctx: EngineContext) -> Outcome:
    """Delete the retained publications of the topics named (wildcards allowed, §2.11).

    Nothing retained is not an error (choice §10.10: DeletePub is idempotent). In strict v6
    mode ``Local`` deletes only publications retained with Local and the default only the
    others; otherwise ``Local`` is a no-op in a single queue manager (§10.4).
    """
    namespace = publisher_namespace(cmd.interface, cmd.sub_point, cmd.stream, cmd.queue)
    filters = [subscription_topic(text, cmd.interface) for text in cmd.topics]
    out = Outcome()
    allowed = authorised(
        [(flt.text, flt) for flt in filters],
        lambda text: ctx.authority.may_publish(cmd.user_id, namespace, text),
        out,
    )
    local = DelOpt.LOCAL in cmd.options
    strict = ctx.config.strict_v6_local
    gone: set[str] = set()
    for flt in allowed:
        for pub in state.retained_selected(namespace, flt):
            if strict and pub.local != local:
                continue
            if pub.topic.text not in gone:
                gone.add(pub.topic.text)
                out.effects.append(DeleteRetained(namespace, pub.topic.text))
    return out


def register_publisher(state: EngineState, cmd: RegPub, ctx: EngineContext) -> Outcome:
    namespace = registration_namespace(cmd.stream)
    topics = [state.publication_topic(text, cmd.interface) for text in cmd.topics]
    identity = identity_of(cmd.q_name, cmd.q_mgr_name, cmd.correl_id, cmd.options, ctx.qmgr_name)
    for other in state.publishers_of(identity):
        check_owner(other.owner, cmd.user_id, cmd.options, ctx.authority)
    out = Outcome()
    allowed = authorised(
        [(topic.text, topic) for topic in topics],
        lambda text: ctx.authority.may_publish(cmd.user_id, namespace, text),
        out,
    )
    for topic in allowed:
        key = PublisherKey(namespace, identity, topic)
        existing = state.publisher(key)
        owner = existing.user_id if existing is not None else cmd.user_id
        publisher = Publisher(key, owner, cmd.options & _PUBLISHER_OPTIONS)
        if publisher != existing:
            out.effects.append(RegisterPublisher(publisher))
    return out


def deregister_publisher(state: EngineState, cmd: DeregPub, ctx: EngineContext) -> Outcome:
    """Topics may hold wildcards; DeregAll without topics removes every registration of the
    identity in the stream. None registered: 3073; some topics unmatched: a warning each."""
    namespace = registration_namespace(cmd.stream)
    filters = [subscription_topic(text, cmd.interface) for text in cmd.topics]
    identity = identity_of(cmd.q_name, cmd.q_mgr_name, cmd.correl_id, cmd.options, ctx.qmgr_name)
    registered = [p for p in state.publishers_of(identity) if p.key.namespace == namespace]
    out = Outcome()
    targets: dict[PublisherKey, Publisher] = {}
    if not filters:
        targets = {p.key: p for p in registered}
    for flt in filters:
        hits = [p for p in registered if selects(flt, p.key.topic)]
        if not hits:
            out.warnings.append(ResponseItem(RC.CF_NOT_REGISTERED, "Topic", flt.text))
        targets.update((p.key, p) for p in hits)
    if not targets:
        raise MQError(RC.CF_NOT_REGISTERED, "no such publisher registration", parm="Topic")
    for publisher in targets.values():
        check_owner(publisher.owner, cmd.user_id, cmd.options, ctx.authority)
        out.effects.append(DeregisterPublisher(publisher.key))
    return out


__all__ = ["delete_publication", "deregister_publisher", "publish", "register_publisher"]
