"""Request Update (seed 000, reference §2.9): the retained publications a subscription's
topic selects, sent to its queue; none is MQRCCF_NO_RETAINED_MSG."""

from __future__ import annotations

from mqkafka.engine.context import EngineContext
from mqkafka.engine.identity import check_owner, check_sub_name
from mqkafka.engine.outcome import Outcome
from mqkafka.engine.records import SubscriptionKey
from mqkafka.engine.state import EngineState
from mqkafka.engine.subscriptions import by_name, identity_for, namespace_of, retained_copies
from mqkafka.engine.topicspace import subscription_topic
from mqkafka.mq.commands import ReqUpdate
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC


def request_update(state: EngineState, cmd: ReqUpdate, ctx: EngineContext) -> Outcome:
    namespace = namespace_of(cmd.interface, cmd.sub_point, cmd.stream, ctx)
    check_sub_name(cmd.sub_name)
    flt = subscription_topic(cmd.topic, cmd.interface)
    # "Authority to put a message to this queue is required, in addition to access authority
    # for the topic in the request update" (S0).
    if not ctx.authority.may_subscribe(cmd.user_id, namespace, cmd.topic):
        raise MQError(RC.CF_NOT_AUTHORIZED, f"not authorised for {cmd.topic!r}", parm="Topic")
    if cmd.sub_name is not None:
        sub = by_name(state, namespace, cmd.sub_name, cmd, flt, ctx)
    else:
        identity = identity_for(cmd.q_name, cmd.q_mgr_name, cmd.correl_id, cmd.options, ctx)
        found = state.subscription(SubscriptionKey(namespace, identity, flt, cmd.filter))
        if found is None:
            # "The requester must have previously registered a subscription with the same
            # Topic, SubPoint, and Filter values" (S0).
            raise MQError(RC.CF_NOT_REGISTERED, "no subscription with that Topic/SubPoint/Filter")
        sub = found
    named = cmd.sub_name is not None
    check_owner(sub.owner, cmd.user_id, cmd.options, ctx.authority, named=named)
    out = Outcome()
    if retained_copies(state, sub, ctx, out) == 0:
        # "If the queue manager has no matching retained publications, the request fails with
        # return code MQRCCF_NO_RETAINED_MSG" (S0).
        raise MQError(RC.CF_NO_RETAINED_MSG, f"nothing retained for {cmd.topic!r}")
    return out


__all__ = ["request_update"]
