"""Register Subscriber, Deregister Subscriber and Request Update (seeds 000 and 002,
reference §2.7-§2.9).

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

A RegSub that names a subscription but gives no topic modifies the named subscription's
options; it never re-points it (re-pointing needs the new topic as well as the identity).
"""

from __future__ import annotations

from dataclasses import replace

from mqkafka.engine.context import EngineContext
from mqkafka.engine.delivery import Copies
from mqkafka.engine.effects import (
    DeleteRetained,
    Effect,
    RemoveSubscription,
    StoreSubscription,
)
from mqkafka.engine.identity import (
    Identity,
    check_owner,
    check_sub_identity,
    check_sub_name,
    identity_of,
)
from mqkafka.engine.outcome import Outcome, authorised
from mqkafka.engine.records import (
    STORED_REG_OPTIONS,
    SubscriberContext,
    Subscription,
    SubscriptionKey,
)
from mqkafka.engine.state import EngineState, Live
from mqkafka.engine.topicspace import (
    Namespace,
    TopicFilter,
    subscriber_namespace,
    subscription_topic,
)
from mqkafka.engine.view import PublicationView
from mqkafka.mq.commands import DeregSub, Interface, RegOpt, RegSub, ReqUpdate, option_names
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mq.responses import ResponseItem
from mqkafka.mq.topics import NamespaceKind

_NO_RETAINED_ON_REGISTRATION = RegOpt.NEW_PUBLICATIONS_ONLY | RegOpt.PUBLISH_ON_REQUEST_ONLY


# --------------------------------------------------------------------------------------------
# RegSub


def register(state: EngineState, cmd: RegSub, ctx: EngineContext) -> Outcome:
    namespace = _namespace(cmd.interface, cmd.sub_point, cmd.stream, ctx)
    check_sub_name(cmd.sub_name)
    check_sub_identity(cmd.sub_identity)
    topics = [subscription_topic(text, cmd.interface) for text in cmd.topics]
    if cmd.filter is not None:
        ctx.filters.compile(cmd.filter)  # MQRCCF_FILTER_ERROR (3150) when invalid
    # "A subscription name can be associated only with ... a single topic at a time" (S2).
    if cmd.sub_name is not None and len(topics) > 1:
        raise MQError(RC.CF_SUB_NAME_ERROR, "a SubName names one topic", parm="SubName")
    out = Outcome()
    if not topics:  # SubName alone: modify the named subscription
        assert cmd.sub_name is not None
        named = state.named(namespace, cmd.sub_name)
        if named is None:
            raise MQError(RC.CF_NOT_REGISTERED, f"no subscription named {cmd.sub_name!r}")
        _alter(named, cmd, ctx, out)
        return out
    identity = _identity(cmd.q_name, cmd.q_mgr_name, cmd.correl_id, cmd.options, ctx)
    if not ctx.authority.may_put(cmd.user_id, identity.q_name):
        raise MQError(RC.CF_NOT_AUTHORIZED, f"may not put to {identity.q_name!r}", parm="QName")
    allowed = authorised(
        [(flt.text, flt) for flt in topics],
        lambda text: ctx.authority.may_subscribe(cmd.user_id, namespace, text),
        out,
    )
    for flt in allowed:
        _register_one(state, cmd, ctx, SubscriptionKey(namespace, identity, flt, cmd.filter), out)
    return out


def _register_one(
    state: EngineState, cmd: RegSub, ctx: EngineContext, key: SubscriptionKey, out: Outcome
) -> None:
    name = cmd.sub_name
    existing = state.subscription(key)
    named = state.named(key.namespace, name) if name is not None else None
    add_name = RegOpt.ADD_NAME in cmd.options
    if named is not None and named.key != key:
        if add_name:
            raise MQError(RC.CF_DUPLICATE_SUBSCRIPTION, f"name {name!r} is in use")
        if existing is not None:
            raise MQError(RC.CF_DUPLICATE_SUBSCRIPTION, "identity and topic are subscribed")
        check_owner(named.owner, cmd.user_id, cmd.options, ctx.authority)
        _check_identity_free(state, key.identity, cmd, ctx)
        _repoint(state, named, key, cmd, ctx, out)
        return
    if name is not None and named is None and existing is not None:
        # AddName "adds SubName to an existing subscription that matches the traditional
        # identity and has no name; fails (3152) if ... [it] already has a different name".
        if existing.name is not None:
            raise MQError(RC.CF_DUPLICATE_SUBSCRIPTION, f"subscription named {existing.name!r}")
        if not add_name:
            raise MQError(RC.CF_SUB_NAME_ERROR, "the subscription has no SubName: use AddName")
    if existing is None:
        _create(state, cmd, ctx, key, out)
    else:
        _alter(existing, cmd, ctx, out)


def _create(
    state: EngineState, cmd: RegSub, ctx: EngineContext, key: SubscriptionKey, out: Outcome
) -> None:
    _check_identity_free(state, key.identity, cmd, ctx)
    identities, exclusive, _, warning = _join(None, cmd)
    sub = Subscription(
        key=key,
        user_id=cmd.user_id,
        options=cmd.options & STORED_REG_OPTIONS,
        interface=cmd.interface,
        # "If MQPS_CORREL_ID_AS_IDENTITY is not set ... the broker uses a correlation
        # identifier of its own choosing" (S1): one per subscription, kept for its life.
        delivery_correl_id=key.identity.correl_id or ctx.ids.correl_id(),
        name=cmd.sub_name,
        identities=identities,
        exclusive=exclusive,
        user_data=cmd.sub_user_data,
        context=_context_of(cmd),
    )
    out.effects.append(StoreSubscription(sub))
    if warning is not None:
        out.warnings.append(warning)
    _send_retained_on_registration(state, sub, ctx, out)
    _full_response(sub, cmd, out)


def _alter(existing: Subscription, cmd: RegSub, ctx: EngineContext, out: Outcome) -> None:
    check_owner(existing.owner, cmd.user_id, cmd.options, ctx.authority)
    identities, exclusive, may_alter, warning = _join(existing, cmd)
    if warning is not None:
        out.warnings.append(warning)
    # Re-registration "changes its options rather than failing, unless NoAlter" (§2.7; choice
    # §10.15); "NoAlter ... (Join options still add the identity)". A subscriber joining a
    # subscription other identities share does not change it under them.
    alter = may_alter and RegOpt.NO_ALTERATION not in cmd.options
    options = existing.options
    if alter:
        correl = existing.options & RegOpt.CORREL_ID_AS_IDENTITY  # part of the key, kept
        options = (cmd.options & STORED_REG_OPTIONS & ~RegOpt.CORREL_ID_AS_IDENTITY) | correl
    updated = replace(
        existing,
        options=options,
        name=existing.name or cmd.sub_name,
        identities=identities,
        exclusive=exclusive,
        user_data=cmd.sub_user_data
        if alter and cmd.sub_user_data is not None
        else existing.user_data,
    )
    if updated != existing:
        out.effects.append(StoreSubscription(updated))
    _full_response(updated, cmd, out)


def _repoint(
    state: EngineState,
    named: Subscription,
    key: SubscriptionKey,
    cmd: RegSub,
    ctx: EngineContext,
    out: Outcome,
) -> None:
    """ "The underlying traditional identity for the subscription can now be changed by
    specifying the same subscription name with new traditional identity information" (S2)."""
    identities, exclusive, may_alter, warning = _join(named, cmd)
    if warning is not None:
        out.warnings.append(warning)
    keep = not may_alter or RegOpt.NO_ALTERATION in cmd.options
    options = named.options if keep else cmd.options & STORED_REG_OPTIONS
    options = (options & ~RegOpt.CORREL_ID_AS_IDENTITY) | (
        cmd.options & RegOpt.CORREL_ID_AS_IDENTITY
    )
    if key.identity.correl_id is not None:
        correl = key.identity.correl_id
    elif named.key.identity.correl_id is None:
        correl = named.delivery_correl_id  # still the broker's id: keep it stable
    else:
        correl = ctx.ids.correl_id()
    moved = replace(
        named,
        key=key,
        options=options,
        delivery_correl_id=correl,
        identities=identities,
        exclusive=exclusive,
        user_data=cmd.sub_user_data if cmd.sub_user_data is not None else named.user_data,
        interface=cmd.interface,
    )
    out.effects += [RemoveSubscription(named.key), StoreSubscription(moved)]
    _send_retained_on_registration(state, moved, ctx, out)
    _full_response(moved, cmd, out)


def _join(
    sub: Subscription | None, cmd: RegSub
) -> tuple[frozenset[str], str | None, bool, ResponseItem | None]:
    """Subscriber identities (S2; reference §2.7): the new identity set, the exclusive holder,
    whether the command may change the subscription's attributes, and a warning.

    | case                                   | result                                   |
    |----------------------------------------|------------------------------------------|
    | no SubIdentity, exclusively locked     | 3156 SUBSCRIPTION_LOCKED                  |
    | Join*, locked by another identity      | 3156                                      |
    | JoinShared, already a member           | warning 3157 ALREADY_JOINED               |
    | JoinExcl, other identities present     | 3155 SUBSCRIPTION_IN_USE                  |
    | JoinExcl, already the exclusive holder | warning 3157                              |
    | SubIdentity, no Join, not a member     | 3154 SUB_IDENTITY_ERROR                   |
    | SubIdentity, no Join, not the only one | 3155 (a member modifying a shared subscription) |
    """
    me = cmd.sub_identity
    shared = RegOpt.JOIN_SHARED in cmd.options
    exclusive_join = RegOpt.JOIN_EXCLUSIVE in cmd.options
    if sub is None:
        if me is None:
            return frozenset(), None, True, None
        if not (shared or exclusive_join):
            raise MQError(RC.CF_SUB_IDENTITY_ERROR, "SubIdentity without a Join option")
        return frozenset({me}), me if exclusive_join else None, True, None
    members, holder = sub.identities, sub.exclusive
    if me is None:
        if holder is not None:
            raise MQError(RC.CF_SUBSCRIPTION_LOCKED, f"locked by identity {holder!r}")
        return members, holder, True, None
    if holder is not None and holder != me:
        raise MQError(RC.CF_SUBSCRIPTION_LOCKED, f"locked by identity {holder!r}")
    others = members - {me}
    if shared:
        warning = _already_joined(me) if me in members else None
        return members | {me}, holder, not others, warning
    if exclusive_join:
        if others:
            raise MQError(RC.CF_SUBSCRIPTION_IN_USE, "other identities share it")
        return members | {me}, me, True, _already_joined(me) if holder == me else None
    if me not in members:
        raise MQError(RC.CF_SUB_IDENTITY_ERROR, f"{me!r} is not a subscriber identity")
    if others:
        raise MQError(RC.CF_SUBSCRIPTION_IN_USE, "other identities share it")
    return members, holder, True, None


def _already_joined(identity: str) -> ResponseItem:
    return ResponseItem(RC.CF_ALREADY_JOINED, "SubIdentity", identity)


def _send_retained_on_registration(
    state: EngineState, sub: Subscription, ctx: EngineContext, out: Outcome
) -> None:
    """ "Immediately after a successful registration, matching retained publications are sent
    unless NewPubsOnly or PubOnReqOnly is set" (§2.7)."""
    if sub.options & _NO_RETAINED_ON_REGISTRATION:
        return
    _retained_copies(state, sub, ctx, out)


def _retained_copies(
    state: EngineState, sub: Subscription, ctx: EngineContext, out: Outcome
) -> int:
    """Deliver each retained publication the subscription selects; return how many."""
    compiled = ctx.filters.compile(sub.key.filter) if sub.key.filter is not None else None
    live = Live(sub, 0, compiled)
    now = ctx.clock()
    sent = 0
    for pub in state.retained_selected(sub.namespace, sub.key.topic):
        copies = Copies.retained_copies(pub, ctx, now)
        if copies is None:  # expired while held: it goes
            out.effects.append(DeleteRetained(pub.namespace, pub.topic.text))
            continue
        if compiled is not None and not compiled.matches(PublicationView(pub.content, pub.md)):
            continue
        out.effects.append(copies.deliver(live))
        sent += 1
    return sent


# --------------------------------------------------------------------------------------------
# DeregSub


def deregister(state: EngineState, cmd: DeregSub, ctx: EngineContext) -> Outcome:
    namespace = _namespace(cmd.interface, cmd.sub_point, cmd.stream, ctx)
    check_sub_name(cmd.sub_name)
    check_sub_identity(cmd.sub_identity)
    topics = [subscription_topic(text, cmd.interface) for text in cmd.topics]
    out = Outcome()
    if cmd.sub_name is not None:
        first = topics[0] if topics else None
        targets = [_by_name(state, namespace, cmd.sub_name, cmd, first, ctx)]
    else:
        identity = _identity(cmd.q_name, cmd.q_mgr_name, cmd.correl_id, cmd.options, ctx)
        if RegOpt.DEREGISTER_ALL in cmd.options:
            targets = _dereg_all_targets(state, cmd, identity, topics)
        else:
            targets = []
            for flt in topics:
                sub = state.subscription(SubscriptionKey(namespace, identity, flt, cmd.filter))
                if sub is None:
                    out.warnings.append(ResponseItem(RC.CF_NOT_REGISTERED, "Topic", flt.text))
                else:
                    targets.append(sub)
        if not targets:
            raise MQError(RC.CF_NOT_REGISTERED, "no such subscription", parm="Topic")
    member_of_some = False
    for sub in targets:
        check_owner(sub.owner, cmd.user_id, cmd.options, ctx.authority)
        effect = _leave(sub, cmd)
        if effect is not None:
            out.effects.append(effect)
            member_of_some = True
    if cmd.sub_identity is not None and not member_of_some:
        raise MQError(RC.CF_SUB_IDENTITY_ERROR, f"{cmd.sub_identity!r} is not a member")
    if RegOpt.FULL_RESPONSE in cmd.options and len(targets) == 1:
        out.full = attributes(targets[0], "DeregSub")
    return out


def _dereg_all_targets(
    state: EngineState, cmd: DeregSub, identity: Identity, topics: list[TopicFilter]
) -> list[Subscription]:
    """ "DeregAll: remove every subscription of this subscriber, narrowed by whichever of
    topic/subpoint/filter are given" (§2.8). An RFH2 DeregAll without SubPoint spans every
    subpoint; an RFH1 one stays in its stream (the default stream when none is named)."""
    spaces: Namespace | None = None
    if cmd.interface is Interface.RFH1 or cmd.sub_point is not None:
        spaces = subscriber_namespace(cmd.interface, cmd.sub_point, cmd.stream)
    return [
        sub
        for sub in state.of_identity(identity)
        if (spaces is None or sub.namespace == spaces)
        and (not topics or sub.key.topic in topics)
        and (cmd.filter is None or sub.key.filter == cmd.filter)
    ]


def _leave(sub: Subscription, cmd: DeregSub) -> Effect | None:
    """Without SubIdentity the subscription goes "whatever the set holds"; with one, that
    identity leaves and "Deregistering with a subscription identity from a subscription does
    not delete the subscription unless the subscription identity list becomes empty" (S2);
    LeaveOnly keeps it even then. None: the identity is not a member here."""
    me = cmd.sub_identity
    if me is None:
        return RemoveSubscription(sub.key)
    if me not in sub.identities:
        return None
    remaining = sub.identities - {me}
    if not remaining and RegOpt.LEAVE_ONLY not in cmd.options:
        return RemoveSubscription(sub.key)
    holder = None if sub.exclusive == me else sub.exclusive
    return StoreSubscription(replace(sub, identities=remaining, exclusive=holder))


# --------------------------------------------------------------------------------------------
# ReqUpdate


def request_update(state: EngineState, cmd: ReqUpdate, ctx: EngineContext) -> Outcome:
    namespace = _namespace(cmd.interface, cmd.sub_point, cmd.stream, ctx)
    check_sub_name(cmd.sub_name)
    flt = subscription_topic(cmd.topic, cmd.interface)
    # "Authority to put a message to this queue is required, in addition to access authority
    # for the topic in the request update" (S0).
    if not ctx.authority.may_subscribe(cmd.user_id, namespace, cmd.topic):
        raise MQError(RC.CF_NOT_AUTHORIZED, f"not authorised for {cmd.topic!r}", parm="Topic")
    if cmd.sub_name is not None:
        sub = _by_name(state, namespace, cmd.sub_name, cmd, flt, ctx)
    else:
        identity = _identity(cmd.q_name, cmd.q_mgr_name, cmd.correl_id, cmd.options, ctx)
        found = state.subscription(SubscriptionKey(namespace, identity, flt, cmd.filter))
        if found is None:
            # "The requester must have previously registered a subscription with the same
            # Topic, SubPoint, and Filter values" (S0).
            raise MQError(RC.CF_NOT_REGISTERED, "no subscription with that Topic/SubPoint/Filter")
        sub = found
    check_owner(sub.owner, cmd.user_id, cmd.options, ctx.authority)
    out = Outcome()
    if _retained_copies(state, sub, ctx, out) == 0:
        # "If the queue manager has no matching retained publications, the request fails with
        # return code MQRCCF_NO_RETAINED_MSG" (S0).
        raise MQError(RC.CF_NO_RETAINED_MSG, f"nothing retained for {cmd.topic!r}")
    return out


# --------------------------------------------------------------------------------------------
# Shared


def _by_name(
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
            identity = _identity(cmd.q_name, cmd.q_mgr_name, cmd.correl_id, cmd.options, ctx)
        except MQError:
            identity = None
        if identity is not None:
            match = state.subscription(SubscriptionKey(namespace, identity, flt, cmd.filter))
            if match is not None and match.name is None:
                raise MQError(RC.CF_SUB_NAME_ERROR, "the matching subscription has no SubName")
    raise MQError(RC.CF_NOT_REGISTERED, f"no subscription named {name!r}", parm="SubName")


def _namespace(
    interface: Interface, sub_point: str | None, stream: str | None, ctx: EngineContext
) -> Namespace:
    namespace = subscriber_namespace(interface, sub_point, stream)
    # RFH1: "3082 UNKNOWN_STREAM: stream not defined and cannot be created" (§3.5).
    if namespace.kind is NamespaceKind.STREAM and namespace.name not in ctx.config.streams:
        raise MQError(RC.CF_UNKNOWN_STREAM, f"no stream {stream!r}", parm="StreamName")
    return namespace


def _identity(
    q_name: str, q_mgr_name: str, correl_id: bytes, options: RegOpt, ctx: EngineContext
) -> Identity:
    return identity_of(q_name, q_mgr_name, correl_id, options, ctx.qmgr_name)


def _check_identity_free(
    state: EngineState, identity: Identity, cmd: RegSub, ctx: EngineContext
) -> None:
    """ "associates the userid of the original registration message with the subscriber's
    identity and from then on prevents any other user using that identity" (S0)."""
    for other in state.of_identity(identity):
        check_owner(other.owner, cmd.user_id, cmd.options, ctx.authority)


def _context_of(cmd: RegSub) -> SubscriberContext:
    md = cmd.md
    return SubscriberContext(md.UserIdentifier, md.AccountingToken, md.ApplIdentityData)


def _full_response(sub: Subscription, cmd: RegSub, out: Outcome) -> None:
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


__all__ = ["attributes", "deregister", "register", "request_update"]
