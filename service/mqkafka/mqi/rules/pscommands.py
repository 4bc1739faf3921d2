"""Queued pub/sub command messages as a client writes them, and the replies it reads (pure).

A command is an MQRFH2 whose ``<psc>`` folder holds the command's properties (built by
:func:`mqkafka.mq.commandrender.command_to_psc`, one option per element, reference §2.1), then
for a Publish the publication's other folders and its body. The MQMD says the rest:

| MQMD field | command message |
|---|---|
| Format | ``MQHRF2`` (the RFH2's own Format names the body, e.g. ``MQSTR``) |
| MsgType | MQMT_REQUEST when a reply is wanted (always answered), else MQMT_DATAGRAM |
| ReplyToQ | where the reply goes; also the default subscriber queue (QName) |
| CorrelId | the identity's CorrelId when the command says CorrelAsId (seed 001) |
| MsgId | chosen by the client, so it can wait for the reply whose CorrelId it is |

A reply (reference §3.3) is an MQRFH2 with ``<pscr>``: ``Completion`` first, then either
FullResp attributes or one ``<Response>`` group per reason; after a warning or error the
command comes back as a second folder ``<psc>``.
"""

from __future__ import annotations

from dataclasses import dataclass

from mqkafka.mq import rfh2
from mqkafka.mq.commandrender import command_to_psc
from mqkafka.mq.commands import Command, Publish
from mqkafka.mq.errors import MQError
from mqkafka.mq.folders import Element, Folder, render_folder
from mqkafka.mq.message import decode_message
from mqkafka.mq.mqmd import MQFMT_RF_HEADER_2, MQMD
from mqkafka.mq.reasons import CC, RC
from mqkafka.mq.responses import Completion, ResponseItem
from mqkafka.mq.rfh2 import Rfh2


def encode_command(command: Command, encoding: int) -> bytes:
    """The record value of ``command``: one MQRFH2 (integers in ``encoding``) and the body."""
    psc = render_folder(Folder.from_pairs("psc", command_to_psc(command)))
    if isinstance(command, Publish):
        content = command.content
        header = Rfh2(
            content.encoding,
            content.ccsid,
            content.format,
            0,
            content.name_value_ccsid,
            (psc, *content.folders),
        )
        return rfh2.encode(header, encoding) + content.body
    return rfh2.encode(Rfh2(folders=(psc,)), encoding)


@dataclass(frozen=True)
class CommandReply:
    """What the queue manager answered: completion, reasons, FullResp attributes, echo."""

    completion: Completion
    reasons: tuple[ResponseItem, ...] = ()
    attributes: tuple[tuple[str, str], ...] = ()
    echo: tuple[tuple[str, str], ...] = ()

    @property
    def comp(self) -> CC:
        return self.completion.cc

    @property
    def reason(self) -> int:
        return self.reasons[0].reason if self.reasons else RC.NONE

    def attribute(self, name: str) -> str | None:
        return next((value for key, value in self.attributes if key == name), None)


def parse_reply(value: bytes, md: MQMD) -> CommandReply:
    """A reply record's ``<pscr>``; anything else is ``MQRC_RFH_FORMAT_ERROR``."""
    if md.Format != MQFMT_RF_HEADER_2:
        raise MQError(RC.RFH_FORMAT_ERROR, f"a reply must be an MQRFH2, not {md.Format!r}")
    message = decode_message(value, md)
    pscr = message.pscr()
    if pscr is None:
        raise MQError(RC.RFH_FORMAT_ERROR, "the reply has no <pscr> folder")
    return reply_of(pscr, message.psc())


def reply_of(pscr: Folder, echo: Folder | None = None) -> CommandReply:
    elements = pscr.elements
    if not elements or elements[0].name != "Completion":
        raise MQError(RC.RFH_FORMAT_ERROR, "<pscr> must start with <Completion>")
    try:
        completion = Completion(elements[0].value or "")
    except ValueError:
        raise MQError(RC.RFH_FORMAT_ERROR, f"unknown Completion {elements[0].value!r}") from None
    reasons: list[ResponseItem] = []
    attributes: list[tuple[str, str]] = []
    for element in elements[1:]:
        if element.name == "Response":
            reasons.append(_item(element))
        elif not element.children:
            attributes.append((element.name, element.value or ""))
    return CommandReply(
        completion, tuple(reasons), tuple(attributes), tuple(echo.pairs()) if echo else ()
    )


def _item(response: Element) -> ResponseItem:
    reason: int | None = None
    parm: str | None = None
    value: str | None = None
    for child in response.children:
        if child.name == "Reason":
            try:
                reason = int(child.value or "")
            except ValueError:
                raise MQError(RC.RFH_FORMAT_ERROR, f"Reason {child.value!r}") from None
        else:
            parm, value = child.name, child.value
    if reason is None:
        raise MQError(RC.RFH_FORMAT_ERROR, "<Response> without <Reason>")
    return ResponseItem(reason, parm, value)


__all__ = ["CommandReply", "encode_command", "parse_reply", "reply_of"]
