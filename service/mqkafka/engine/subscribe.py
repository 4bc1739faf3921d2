"""Register Subscriber (seed 002, reference §2.7): create, alter, name, re-point and join.

How a command finds its subscription is in ``subscriptions`` (the table there). A RegSub
that names a subscription but gives no topic modifies the named subscription's options; it
never re-points it (re-pointing needs the new topic as well as the identity).
"""

from __future__ import annotations

from dataclasses import replace

from mqkafka.engine.context import EngineContext
from mqkafka.engine.effects import RemoveSubscription, StoreSubscription
from mqkafka.engine.identity import check_owner, check_sub_identity, check_sub_name
from mqkafka.engine.outcome import Outcome, authorised
from mqkafka.engine.records import STORED_REG_OPTIONS, Subscription, SubscriptionKey
from mqkafka.engine.state import EngineState
from mqkafka.engine.subscriptions import (
    attributes,
    check_identity_free,
    context_of,
    full_response,
    identity_for,
    namespace_of,
    retained_copies,
)
from mqkafka.engine.topicspace import subscription_topic
from mqkafka.mq.commands import RegOpt, RegSub
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mq.responses import ResponseItem

_NO_RETAINED_ON_REGISTRATION = RegOpt.NEW_PUBLICATIONS_ONLY | RegOpt.PUBLISH_ON_REQUEST_ONLY


def register(state: EngineState, cmd: RegSub, ctx: EngineContext) -> Outcome:
    namespace = namespace_of(cmd.interface, cmd.sub_point, cmd.stream, ctx)
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
    identity = identity_for(cmd.q_name, cmd.q_mgr_name, cmd.correl_id, cmd.options, ctx)
    if not ctx.authority.may_put(cmd.user_id, identity.q_name):
        raise MQError(RC.CF_NOT_AUTHORIZED, f"may not put to {identity.q_name!r}", parm="QName")
    if identity.q_mgr_name == ctx.qmgr_name and not ctx.queues.exists(identity.q_name):
        # "queue name invalid or subscriber queue cannot be opened" (MQ9:3076).
        raise MQError(RC.CF_Q_NAME_ERROR, f"no queue {identity.q_name!r}", parm="QName")
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
        if RegOpt.NO_ALTERATION in cmd.options:
            # NoAlter: "leave its attributes unchanged" (§2.7) - its topic and traditional
            # identity too. Choice (issue 33), from what JMS v6 does: it re-attaches a durable
            # subscriber by SubName with a new CorrelId, NoAlter and FullResp, and gets with
            # the CorrelId the full response names (what was published while it was away
            # waits under the old one); to unsubscribe it asks the same with the topic
            # "JMS:SYS:Unknown" and reads the real topic from the full response.
            _alter(named, cmd, ctx, out)
            return
        check_owner(named.owner, cmd.user_id, cmd.options, ctx.authority)
        check_identity_free(state, key.identity, cmd, ctx)
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
    check_identity_free(state, key.identity, cmd, ctx)
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
        context=context_of(cmd),
    )
    out.effects.append(StoreSubscription(sub))
    if warning is not None:
        out.warnings.append(warning)
    _send_retained_on_registration(state, sub, ctx, out)
    full_response(sub, cmd, out)


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
    full_response(updated, cmd, out)


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
    full_response(moved, cmd, out)


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
    retained_copies(state, sub, ctx, out)


__all__ = ["attributes", "register"]
