"""What RegSub, DeregSub and ReqUpdate share: finding a subscription by name, resolving the
namespace and identity a command names, the identity-ownership check, FullResp attributes and
sending retained publications to a subscription.

Finding the subscription a command means (S0, S2; choices §10.1, §10.15). "Trad." is the
traditional identity with the topic, SubPoint and Filter:

| command gives                  | found                              | result                     |
|--------------------------------|------------------------------------|----------------------------|
| SubName                        | the named subscription             | act on it                  |
| SubName, name unknown          | trad. match without a name         | 3153; RegSub AddName: name |
| SubName, name unknown          | trad. match with another name      | 3152                       |
| RegSub SubName + topic         | named one, other identity or topic | re-point the name (S2)     |
| RegSub AddName, name elsewhere | -                                  | 3152                       |
| no SubName                     | trad. match, named or not          | act on it                  |
| anything, nothing found        | -                                  | RegSub creates; else 3073  |
"""

from __future__ import annotations

from mqkafka.engine.context import EngineContext
from mqkafka.engine.delivery import Copies
from mqkafka.engine.effects import DeleteRetained
from mqkafka.engine.identity import Identity, check_owner, identity_of
from mqkafka.engine.outcome import Outcome, selected
from mqkafka.engine.records import SubscriberContext, Subscription, SubscriptionKey
from mqkafka.engine.state import EngineState, Live
from mqkafka.engine.topicspace import Namespace, NamespaceKind, TopicFilter, subscriber_namespace
from mqkafka.engine.view import PublicationView
from mqkafka.mq.commandoptions import option_names
from mqkafka.mq.commands import DeregSub, Interface, RegOpt, RegSub, ReqUpdate
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC


def retained_copies(state: EngineState, sub: Subscription, ctx: EngineContext, out: Outcome) -> int:
    """Deliver each retained publication the subscription selects; return how many."""
    compiled = ctx.filters.compile(sub.key.filter) if sub.key.filter is not None else None
    live = Live(sub, 0, compiled)
    now = ctx.clock()
    sent = 0
    authority = ctx.authority
    for pub in state.retained_selected(sub.namespace, sub.key.topic):
        copies = Copies.retained_copies(pub, ctx, now)
        if copies is None:  # expired while held: it goes
            out.effects.append(DeleteRetained(pub.namespace, pub.topic.text))
            continue
        if not authority.may_subscribe(sub.user_id, pub.namespace, pub.topic.text):
            continue  # as at publish time: never a topic its userid may not subscribe to
        if compiled is not None and not selected(
            compiled, PublicationView(pub.content, pub.md), out
        ):
            continue
        out.effects.append(copies.deliver(live))
        sent += 1
    return sent


def by_name(
    state: EngineState,
    namespace: Namespace,
    name: str,
    cmd: DeregSub | ReqUpdate,
    flt: TopicFilter | None,
    ctx: EngineContext,
) -> Subscription:
    """ "the SubName value takes precedence over all other identifier fields" (S0)."""
    sub = state.named(namespace, name)
    if sub is not None:
        return sub
    # "If a subscription exists that matches the traditional identity of this command, but
    # has no SubName, the Request Update command fails with MQRCCF_SUB_NAME_ERROR" (S0).
    if flt is not None:
        try:
            identity = identity_for(cmd.q_name, cmd.q_mgr_name, cmd.correl_id, cmd.options, ctx)
        except MQError:
            identity = None
        if identity is not None:
            match = state.subscription(SubscriptionKey(namespace, identity, flt, cmd.filter))
            if match is not None and match.name is None:
                raise MQError(RC.CF_SUB_NAME_ERROR, "the matching subscription has no SubName")
    raise MQError(RC.CF_NOT_REGISTERED, f"no subscription named {name!r}", parm="SubName")


def namespace_of(
    interface: Interface, sub_point: str | None, stream: str | None, ctx: EngineContext
) -> Namespace:
    namespace = subscriber_namespace(interface, sub_point, stream)
    # RFH1: "3082 UNKNOWN_STREAM: stream not defined and cannot be created" (§3.5).
    if namespace.kind is NamespaceKind.STREAM and namespace.name not in ctx.config.streams:
        raise MQError(RC.CF_UNKNOWN_STREAM, f"no stream {stream!r}", parm="StreamName")
    return namespace


def identity_for(
    q_name: str, q_mgr_name: str, correl_id: bytes, options: RegOpt, ctx: EngineContext
) -> Identity:
    return identity_of(q_name, q_mgr_name, correl_id, options, ctx.qmgr_name)


def check_identity_free(
    state: EngineState, identity: Identity, cmd: RegSub, ctx: EngineContext
) -> None:
    """ "associates the userid of the original registration message with the subscriber's
    identity and from then on prevents any other user using that identity" (S0).

    Each distinct owner of the identity's subscriptions is asked once (not each subscription:
    an identity may hold thousands). When one refuses, the answer is the one its oldest
    refusing subscription gives, as when every subscription was asked oldest first."""
    for owner in state.owners_of(identity):
        try:
            check_owner(owner, cmd.user_id, cmd.options, ctx.authority)
        except MQError:
            break
    else:
        return
    for owner in state.owners_oldest_first(identity):
        check_owner(owner, cmd.user_id, cmd.options, ctx.authority)


def context_of(cmd: RegSub) -> SubscriberContext:
    md = cmd.md
    return SubscriberContext(md.UserIdentifier, md.AccountingToken, md.ApplIdentityData)


def full_response(sub: Subscription, cmd: RegSub, out: Outcome) -> None:
    if RegOpt.FULL_RESPONSE in cmd.options:
        out.full = attributes(sub, "RegSub")


def attributes(sub: Subscription, command: str) -> tuple[tuple[str, str], ...]:
    """FullResp: "the response pscr carries the subscription's attributes" (§2.7, §3.3)."""
    key = sub.key
    pairs: list[tuple[str, str]] = [("Command", command), ("Topic", key.topic.text)]
    if key.namespace.name:
        pairs.append(("SubPoint", key.namespace.name))
    if key.filter is not None:
        pairs.append(("Filter", key.filter))
    pairs += [
        ("QMgrName", key.identity.q_mgr_name),
        ("QName", key.identity.q_name),
        ("UserId", sub.user_id),
    ]
    pairs += [("RegOpt", name) for name in option_names(sub.options)]
    if sub.exclusive is not None and RegOpt.LOCKED not in sub.options:
        pairs.append(("RegOpt", "Locked"))  # choice §10.9: Locked reported, informational
    if sub.name is not None:
        pairs.append(("SubName", sub.name))
    pairs += [("SubIdentity", identity) for identity in sorted(sub.identities)]
    if sub.user_data is not None:
        pairs.append(("SubUserData", sub.user_data))
    pairs.append(("CorrelId", sub.delivery_correl_id.hex().upper()))
    return tuple(pairs)
