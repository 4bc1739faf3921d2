"""Queued pub/sub command messages as a client writes them, and the replies it reads (pure).

The one place every client builds commands: the MQI (``PubSub``, from a :class:`Command`
through :func:`encode_command`), the plain Kafka client ``mqkafka.client.kafka_pubsub`` and
through it the CLI and Faust (from ``<psc>`` pairs through :func:`command_message`, which also
sends what the model would refuse, as tests of the service need). Both end in
:func:`rfh2_command`.

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

from collections.abc import Sequence
from dataclasses import dataclass

from mqkafka.mq import rfh2
from mqkafka.mq.commandrender import command_to_psc
from mqkafka.mq.commands import Command, Publish
from mqkafka.mq.errors import MQError
from mqkafka.mq.folders import Element, Folder, render_folder
from mqkafka.mq.message import decode_message
from mqkafka.mq.mqmd import MQFMT_NONE, MQFMT_RF_HEADER_2, MQFMT_STRING, MQMD
from mqkafka.mq.reasons import CC, RC
from mqkafka.mq.responses import Completion, ResponseItem
from mqkafka.mq.rfh2 import Rfh2

Pairs = list[tuple[str, str]]


def rfh2_command(
    pairs: Sequence[tuple[str, str]],
    encoding: int,
    *,
    body: bytes = b"",
    folders: Sequence[str] = (),
    content: Rfh2 | None = None,
) -> bytes:
    """One MQRFH2 whose ``<psc>`` holds ``pairs`` (integers in ``encoding``), then ``folders``
    and the body; ``content`` gives the RFH2's own fields (those of a publication)."""
    psc = render_folder(Folder.from_pairs("psc", list(pairs)))
    header = content or Rfh2(format=MQFMT_STRING if body else MQFMT_NONE)
    header = Rfh2(
        header.encoding,
        header.ccsid,
        header.format,
        header.flags,
        header.name_value_ccsid,
        (psc, *folders),
    )
    return rfh2.encode(header, encoding) + body


def encode_command(command: Command, encoding: int) -> bytes:
    """The record value of ``command``: one MQRFH2 (integers in ``encoding``) and the body."""
    pairs = command_to_psc(command)
    if isinstance(command, Publish):
        content = command.content
        header = Rfh2(content.encoding, content.ccsid, content.format, 0, content.name_value_ccsid)
        return rfh2_command(
            pairs, encoding, body=content.body, folders=content.folders, content=header
        )
    return rfh2_command(pairs, encoding, content=Rfh2())


def command_message(
    pairs: Sequence[tuple[str, str]],
    *,
    body: bytes = b"",
    md: MQMD | None = None,
    folders: Sequence[str] = (),
) -> tuple[MQMD, bytes]:
    """An RFH2 command from ``<psc>`` pairs (plus any other folders) and the body, and its
    MQMD (Format MQHRF2)."""
    md = (md or MQMD()).replace(Format=MQFMT_RF_HEADER_2)
    return md, rfh2_command(pairs, md.Encoding, body=body, folders=folders)


def subscription_pairs(
    command: str,
    topic: str | Sequence[str] | None,
    queue: str,
    options: Sequence[str] = (),
    sub_name: str | None = None,
    filter: str | None = None,
    sub_point: str | None = None,
) -> Pairs:
    """RegSub or DeregSub (a DeregSub may name no topic: with DeregAll or a SubName)."""
    pairs = [("Command", command)]
    if topic is not None:
        pairs += [("Topic", t) for t in ([topic] if isinstance(topic, str) else topic)]
    pairs += [("QName", queue)] + [("RegOpt", o) for o in options]
    return pairs + _optional(SubName=sub_name, Filter=filter, SubPoint=sub_point)


def request_update_pairs(
    topic: str,
    queue: str,
    options: Sequence[str] = (),
    sub_name: str | None = None,
    filter: str | None = None,
) -> Pairs:
    pairs = [("Command", "ReqUpdate"), ("Topic", topic), ("QName", queue)]
    pairs += [("RegOpt", o) for o in options]
    return pairs + _optional(SubName=sub_name, Filter=filter)


def publish_pairs(
    topic: str | Sequence[str], retain: bool = False, options: Sequence[str] = ()
) -> Pairs:
    pairs = [("Command", "Publish")]
    pairs += [("Topic", t) for t in ([topic] if isinstance(topic, str) else topic)]
    return pairs + [("PubOpt", o) for o in ([*options, "RetainPub"] if retain else options)]


def _optional(**values: str | None) -> Pairs:
    return [(k, v) for k, v in values.items() if v is not None]


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


@dataclass(frozen=True)
class CommandResult:
    """A reply as the plain client reads it, leniently (never raises): completion text,
    reasons, and the ``<pscr>`` pairs."""

    completion: str  # ok | warning | error
    reason: int
    reasons: tuple[int, ...]
    pscr: tuple[tuple[str, str], ...]

    @property
    def ok(self) -> bool:
        return self.completion == "ok"


def command_result(value: bytes, md: MQMD) -> CommandResult:
    """A reply record read leniently (:class:`CommandResult`); :func:`parse_reply` is strict."""
    message = decode_message(value, md)
    folder = message.pscr()
    header = message.rfh1() if folder is None else None
    if header is not None:  # the reply to an MQRFH command: MQPSCompCode, MQPSReason...
        pairs = tuple(header.pairs())
        code = next((v for k, v in pairs if k == "MQPSCompCode"), "2")
        completion = {"0": "ok", "1": "warning"}.get(code.strip(), "error")
        reasons = tuple(int(v) for k, v in pairs if k == "MQPSReason" and v.strip().isdigit())
        reasons = tuple(r for r in reasons if r) or reasons[:1]
        return CommandResult(completion, reasons[0] if reasons else int(RC.NONE), reasons, pairs)
    pairs = tuple(folder.pairs()) if folder is not None else ()
    completion = next((v for k, v in pairs if k == "Completion"), "error")
    reasons = tuple(int(v) for k, v in pairs if k.endswith("Reason"))
    return CommandResult(completion, reasons[0] if reasons else int(RC.NONE), reasons, pairs)


__all__ = [
    "CommandReply",
    "CommandResult",
    "Pairs",
    "command_message",
    "command_result",
    "encode_command",
    "parse_reply",
    "publish_pairs",
    "reply_of",
    "request_update_pairs",
    "rfh2_command",
    "subscription_pairs",
]
