"""The answer to a command that its adapter could not wholly carry out (issue 19).

The engine decides what a command does; only the adapter learns that part of it cannot be
written where it goes: a publication copy too large for its subscriber queue, a retained
publication too large for the retained store, a subscription record too large for its
changelog (MQRC_MSG_TOO_BIG_FOR_Q, 2030). Then the command's sender is told, as §3.1 says
for the new completion:

| what could not be written                  | response                               |
|--------------------------------------------|----------------------------------------|
| some copies, or the retained publication   | warning with the reason (the rest done) |
| a state record (nothing of it was done)    | error with the reason                  |

A warning keeps the warnings the command already had. Pure: no Kafka, no sizes.
"""

from __future__ import annotations

from dataclasses import replace

from mqkafka.engine.context import EngineContext
from mqkafka.engine.effects import Effect, Processed
from mqkafka.engine.replies import respond
from mqkafka.mq.commandrender import command_to_psc, command_to_rfh1
from mqkafka.mq.commands import Interface
from mqkafka.mq.responses import Completion, Response, ResponseItem


def answer_again(
    done: Processed, reason: int, ctx: EngineContext, *, failed: bool
) -> tuple[Processed, list[Effect]]:
    """``done`` with its response amended by ``reason``, and the effects that answer it now
    (replacing the answer made before: a Reply, a DeadLetter, or none)."""
    command = done.command
    if command is None:
        raise ValueError("only a command's answer can be amended")
    item = ResponseItem(reason)
    old = done.response
    if failed:
        response = Response.error(item)
    elif old.completion is Completion.WARNING:
        response = Response.warning((*old.reasons, item))
    else:
        response = Response.warning((item,))
    # As ``handle`` echoes a command on warning and error (§3.3).
    echo = command.source or tuple(
        command_to_psc(command) if command.interface is Interface.RFH2 else command_to_rfh1(command)
    )
    effects = respond(done.md, command.interface, response, echo, ctx)
    return replace(done, response=response), effects


__all__ = ["answer_again"]
