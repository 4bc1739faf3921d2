"""Whether and how the broker answers a command (reference §3.1, §3.2): the one place where a
response becomes a Reply effect, a DeadLetter, or nothing.

When a response is sent (§3.1):

| MsgType  | PAN | NAN | ok  | warning | error |
|----------|-----|-----|-----|---------|-------|
| REQUEST  |  -  |  -  | yes | yes     | yes   |
| DATAGRAM | yes | no  | yes | yes     | no    |
| DATAGRAM | no  | yes | no  | yes     | yes   |
| DATAGRAM | yes | yes | yes | yes     | yes   |
| DATAGRAM | no  | no  | no  | no      | no    |
| other    |  -  |  -  | dead letter, MQRC_MSG_TYPE_ERROR (2029) - never a reply to a reply |

Choices where the reference is silent: a reply that is due but has no ReplyToQ to go to puts
the command on the dead-letter queue with the response's reason if it was not ok (so the
failure is not lost), and is dropped if it was ok. A ReplyToQ the command's userid may not put
to gets no reply: the command goes to the dead-letter queue with the reason (issue 20).
"""

from __future__ import annotations

from mqkafka.engine.authority import grants_everything
from mqkafka.engine.context import EngineContext
from mqkafka.engine.delivery import PutTime
from mqkafka.engine.effects import DeadLetter, Effect, Reply
from mqkafka.mq.commands import Interface
from mqkafka.mq.mqmd import MQAT, MQFMT_RF_HEADER_1, MQFMT_RF_HEADER_2, MQMD, MQMT, MQRO
from mqkafka.mq.reasons import RC
from mqkafka.mq.responses import Completion, Response

COMMAND_MSG_TYPES = frozenset({int(MQMT.REQUEST), int(MQMT.DATAGRAM)})
_REQUEST = int(MQMT.REQUEST)
_PAN = int(MQRO.PAN)
_NAN = int(MQRO.NAN)
_PASS_MSG_ID = int(MQRO.PASS_MSG_ID)
_PASS_CORREL_ID = int(MQRO.PASS_CORREL_ID)


def wants_reply(md: MQMD, completion: Completion) -> bool:
    """The §3.1 table."""
    if md.MsgType == _REQUEST:
        return True
    pan = bool(md.Report & _PAN)
    nan = bool(md.Report & _NAN)
    if completion is Completion.OK:
        return pan
    if completion is Completion.WARNING:
        return pan or nan
    return nan


def reply_md(command: MQMD, interface: Interface, ctx: EngineContext) -> MQMD:
    """The response's MQMD (§3.2)."""
    report = command.Report
    put = PutTime(ctx.clock())
    return MQMD(
        Report=MQRO.NONE,
        MsgType=MQMT.REPLY,
        Format=MQFMT_RF_HEADER_2 if interface is Interface.RFH2 else MQFMT_RF_HEADER_1,
        # MsgId: new, unless MQRO_PASS_MSG_ID; CorrelId: the command's MsgId
        # (MQRO_COPY_MSG_ID_TO_CORREL_ID, the default) unless MQRO_PASS_CORREL_ID.
        MsgId=command.MsgId if report & _PASS_MSG_ID else ctx.ids.msg_id(),
        CorrelId=command.CorrelId if report & _PASS_CORREL_ID else command.MsgId,
        Priority=command.Priority,
        Persistence=command.Persistence,
        Expiry=command.Expiry,
        ReplyToQMgr=ctx.qmgr_name,
        PutApplType=MQAT.BROKER,
        PutApplName=ctx.config.put_appl_name,
        PutDate=put.date,
        PutTime=put.time,
        # Other identity context "as if MQPMO_PASS_IDENTITY_CONTEXT": copied from the command.
        UserIdentifier=command.UserIdentifier,
        AccountingToken=command.AccountingToken,
        ApplIdentityData=command.ApplIdentityData,
    )


def respond(
    md: MQMD,
    interface: Interface,
    response: Response,
    echo: tuple[tuple[str, str], ...],
    ctx: EngineContext,
) -> list[Effect]:
    """The effects that answer a command whose outcome is ``response``."""
    if md.MsgType not in COMMAND_MSG_TYPES:
        return [DeadLetter(md, RC.MSG_TYPE_ERROR, f"MsgType {md.MsgType} is not a command")]
    if not wants_reply(md, response.completion):
        return []
    if not md.ReplyToQ:
        if response.completion is Completion.OK:
            return []
        return [DeadLetter(md, response.reason, "no ReplyToQ for the response")]
    authority = ctx.authority
    if not grants_everything(authority) and not authority.may_put(md.UserIdentifier, md.ReplyToQ):
        reason = RC.CF_NOT_AUTHORIZED if response.completion is Completion.OK else response.reason
        detail = f"{md.UserIdentifier!r} may not put to ReplyToQ {md.ReplyToQ!r}"
        return [DeadLetter(md, reason, detail)]
    return [
        Reply(
            md.ReplyToQ,
            md.ReplyToQMgr or ctx.qmgr_name,
            reply_md(md, interface, ctx),
            response,
            interface,
            echo if response.completion is not Completion.OK else (),
        )
    ]


__all__ = ["COMMAND_MSG_TYPES", "reply_md", "respond", "wants_reply"]
