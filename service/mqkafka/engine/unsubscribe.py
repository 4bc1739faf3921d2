"""Deregister Subscriber (seed 002, reference §2.8): by name, by traditional identity, or
DeregAll; a subscriber identity leaves, and the subscription goes with its last identity."""

from __future__ import annotations

from dataclasses import replace

from mqkafka.engine.context import EngineContext
from mqkafka.engine.effects import Effect, RemoveSubscription, StoreSubscription
from mqkafka.engine.identity import Identity, check_owner, check_sub_identity, check_sub_name
from mqkafka.engine.inputs import QueueDeleted
from mqkafka.engine.outcome import Outcome
from mqkafka.engine.records import Subscription, SubscriptionKey
from mqkafka.engine.state import EngineState
from mqkafka.engine.subscriptions import attributes, by_name, identity_for, namespace_of
from mqkafka.engine.topicspace import (
    Namespace,
    TopicFilter,
    subscriber_namespace,
    subscription_topic,
)
from mqkafka.mq.commands import DeregSub, Interface, RegOpt
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mq.responses import ResponseItem


def deregister(state: EngineState, cmd: DeregSub, ctx: EngineContext) -> Outcome:
    namespace = namespace_of(cmd.interface, cmd.sub_point, cmd.stream, ctx)
    check_sub_name(cmd.sub_name)
    check_sub_identity(cmd.sub_identity)
    topics = [subscription_topic(text, cmd.interface) for text in cmd.topics]
    out = Outcome()
    if cmd.sub_name is not None:
        first = topics[0] if topics else None
        targets = [by_name(state, namespace, cmd.sub_name, cmd, first, ctx)]
    else:
        identity = identity_for(cmd.q_name, cmd.q_mgr_name, cmd.correl_id, cmd.options, ctx)
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


def queue_deleted(state: EngineState, cmd: QueueDeleted) -> list[Effect]:
    """Remove every subscription whose subscriber queue is the deleted queue.

    For a temporary dynamic subscriber queue: "If the subscriber queue is a temporary dynamic
    queue the subscription is removed automatically when that queue is closed" (§2.7; choice
    §10.3: such queues are allowed). The queue adapter sends it when it sees the queue go.
    """
    return [
        RemoveSubscription(sub.key)
        for sub in state.subscriptions
        if sub.key.identity.q_name == cmd.q_name and sub.key.identity.q_mgr_name == cmd.q_mgr_name
    ]


__all__ = ["deregister", "queue_deleted"]
