"""``handle(state, command, context) -> effects``: the engine's one entry point.

``handle`` reads the state and returns effects; ``step`` also applies them. What it takes is
an ``EngineInput``: an MQ pub/sub command, an ``InvalidCommand`` (a message that is none, or
one its adapter refuses: answered with its error, see ``inputs``) or a ``QueueDeleted`` (the
subscriptions of a deleted temporary dynamic queue go). Every command goes through the same
frame:

1. MsgType must be REQUEST or DATAGRAM, else the message is dead-lettered with 2029 (§3.1);
2. the command must be on the right kind of queue: Publish and DeletePub on a stream queue,
   everything else on the control queue, else MQRCCF_INCORRECT_Q (3079, §1.2);
3. its sender must be allowed to put to that queue, and to the queues it names as its QName
   and ReplyToQ (issue 20: a command may not send replies or publications to a queue its
   userid could not put to itself), else MQRCCF_NOT_AUTHORIZED (S0) - in a reply, or in a
   dead letter when the ReplyToQ is the queue refused;
4. the command's handler runs: an ``MQError`` is an error response and no state changes
   (§3.3 "nothing was processed"); otherwise its effects plus an ok or warning response;
5. ``replies.respond`` decides whether the response is sent (§3.1) and addresses it (§3.2).

Nothing but ``MQError`` is expected out of a handler; anything else is a bug, reported as
MQRCCF_COMMAND_FAILED (3008, "internal error") rather than crashing the broker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mqkafka.engine.authority import grants_everything
from mqkafka.engine.context import EngineContext
from mqkafka.engine.effects import DeadLetter, Effect, Processed, Reply
from mqkafka.engine.inputs import EngineInput, InvalidCommand, QueueDeleted
from mqkafka.engine.outcome import Outcome
from mqkafka.engine.publisher import (
    delete_publication,
    deregister_publisher,
    publish,
    register_publisher,
)
from mqkafka.engine.replies import COMMAND_MSG_TYPES, respond
from mqkafka.engine.request_update import request_update
from mqkafka.engine.state import EngineState
from mqkafka.engine.subscribe import register
from mqkafka.engine.unsubscribe import deregister, queue_deleted
from mqkafka.mq.commandrender import command_to_psc, command_to_rfh1
from mqkafka.mq.commands import (
    Command,
    DeletePub,
    DeregPub,
    DeregSub,
    Interface,
    Publish,
    RegPub,
    RegSub,
    ReqUpdate,
)
from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC
from mqkafka.mq.responses import Completion, Response

Handler = Callable[[EngineState, Any, EngineContext], Outcome]

HANDLERS: dict[type, Handler] = {
    RegSub: register,
    DeregSub: deregister,
    ReqUpdate: request_update,
    Publish: publish,
    DeletePub: delete_publication,
    RegPub: register_publisher,
    DeregPub: deregister_publisher,
}
# "Publish/DeletePub belong on a stream queue, everything else on the control queue" (§1.2).
STREAM_COMMANDS = (Publish, DeletePub)
PUBLISHER_COMMANDS = (Publish, RegPub)


def handle(
    state: EngineState,
    command: EngineInput,
    ctx: EngineContext,
    outcomes: list[Processed] | None = None,
) -> list[Effect]:
    """The effects of one command; the state is not changed (see ``step``). When ``outcomes``
    is given, what became of the command is appended to it (for metrics and activity)."""
    if isinstance(command, InvalidCommand):
        return _refuse(command, ctx, outcomes)
    if isinstance(command, QueueDeleted):
        return queue_deleted(state, command)
    return _command(state, command, ctx, outcomes)


def _command(
    state: EngineState,
    command: Command,
    ctx: EngineContext,
    outcomes: list[Processed] | None,
) -> list[Effect]:
    reads_content = False
    echo = command.source or tuple(
        command_to_psc(command) if command.interface is Interface.RFH2 else command_to_rfh1(command)
    )
    md = command.md
    if md.MsgType not in COMMAND_MSG_TYPES:
        return respond(md, command.interface, Response.ok(), echo, ctx)
    try:
        _check_queue(command, ctx)
        outcome = HANDLERS[type(command)](state, command, ctx)
    except MQError as error:
        response = Response.of_error(error)
        effects = respond(md, command.interface, response, echo, ctx)
    except Exception as error:
        failure = MQError(RC.CF_COMMAND_FAILED, f"internal error: {error!r}")
        response = Response.of_error(failure)
        effects = respond(md, command.interface, response, echo, ctx)
    else:
        response = outcome.response()
        effects = outcome.effects
        reads_content = outcome.reads_content
        effects.extend(respond(md, command.interface, response, echo, ctx))
    if outcomes is not None:
        outcomes.append(Processed(command, response, md, command.queue, reads_content))
    return effects


def _refuse(
    invalid: InvalidCommand, ctx: EngineContext, outcomes: list[Processed] | None
) -> list[Effect]:
    """A message that is no valid command: answered with its error (§3.3, §3.4). One that is
    not a command and asks for no reply is not dropped: "a reply with the reason code when a
    reply can be addressed; otherwise ... the dead-letter queue" (issue 4, bad input)."""
    response = invalid.response
    md = invalid.md
    effects = respond(md, invalid.interface, response, invalid.echo, ctx)
    if response.completion is not Completion.WARNING and not any(
        isinstance(e, Reply | DeadLetter) for e in effects
    ):
        effects.append(DeadLetter(md, invalid.reason, invalid.detail))
    if outcomes is not None:
        outcomes.append(Processed(None, response, md, invalid.queue))
    return effects


def step(
    state: EngineState,
    command: EngineInput,
    ctx: EngineContext,
    outcomes: list[Processed] | None = None,
) -> list[Effect]:
    """``handle`` and apply the state effects: the engine as a state machine."""
    effects = handle(state, command, ctx, outcomes)
    state.apply(effects)
    return effects


def _check_queue(command: Command, ctx: EngineContext) -> None:
    config = ctx.config
    on_stream = command.queue in config.streams
    if isinstance(command, STREAM_COMMANDS) != on_stream or (
        not on_stream and command.queue != config.control_queue
    ):
        raise MQError(RC.CF_INCORRECT_Q, f"{command.name} put to {command.queue!r}")
    authority = ctx.authority
    if grants_everything(authority):
        return
    user = command.user_id
    if not authority.may_put(user, command.queue):
        raise MQError(RC.CF_NOT_AUTHORIZED, f"may not put to {command.queue!r}")
    reply_to = command.md.ReplyToQ
    if reply_to and not authority.may_put(user, reply_to):
        raise MQError(RC.CF_NOT_AUTHORIZED, f"may not put to ReplyToQ {reply_to!r}")
    # RegSub asks for its subscriber queue itself; a publisher's QName is where DirectReq
    # requests go. DeregSub and ReqUpdate send nothing to theirs (ownership rules hold).
    q_name = command.q_name if isinstance(command, PUBLISHER_COMMANDS) else ""
    if q_name and not authority.may_put(user, q_name):
        raise MQError(RC.CF_NOT_AUTHORIZED, f"may not put to QName {q_name!r}", parm="QName")


__all__ = ["HANDLERS", "handle", "step"]
