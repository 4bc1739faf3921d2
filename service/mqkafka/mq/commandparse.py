"""Commands read from message pairs: an RFH2 ``<psc>`` folder or an RFH1 NameValueString,
given as ordered (tag, text) pairs, checked as reference §2.1 says (first tag ``Command``,
known and non-repeated properties, option values) and built into a command value, which
checks the rest of what needs only the message itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mqkafka.mq.commandoptions import DelOpt, Interface, PubOpt, RegOpt, parse_options
from mqkafka.mq.commands import (
    EMPTY_CONTENT,
    Command,
    DeletePub,
    DeregPub,
    DeregSub,
    PublicationContent,
    Publish,
    RegPub,
    RegSub,
    ReqUpdate,
)
from mqkafka.mq.commandtags import (
    PSC_PROPERTIES,
    RFH1_COMMANDS,
    RFH1_INLINE_DATA,
    RFH1_PROPERTIES,
    RFH2_COMMANDS,
)
from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import MQMD, MQMD_DEFAULT
from mqkafka.mq.reasons import RC

# Choice: IBM's JMS client (v6 migration mode) names its connection in every Publish - first in
# an MQRFH (`UNIQUE_CONNECTION_ID <hex> MQPSCommand Publish ...`), inside <psc> in an MQRFH2.
# The reference has no such tag; a broker that JMS works with accepts it, so it is read and
# dropped, in any command and at any place. Any other unknown name keeps its reason code.
CONNECTION_ID_TAG = "UNIQUE_CONNECTION_ID"

_CLASSES: dict[str, type[Command]] = {
    c.name: c for c in (RegSub, DeregSub, ReqUpdate, Publish, DeletePub, RegPub, DeregPub)
}


def command_from_psc(
    pairs: Sequence[tuple[str, str]],
    md: MQMD = MQMD_DEFAULT,
    *,
    queue: str | None = None,
    local_qmgr: str = "",
    content: PublicationContent = EMPTY_CONTENT,
) -> Command:
    """Build the command of an RFH2 ``<psc>`` folder given as ordered (tag, text) pairs."""
    return _build(pairs, md, Interface.RFH2, queue, local_qmgr, content)


def command_from_rfh1(
    pairs: Sequence[tuple[str, str]],
    md: MQMD = MQMD_DEFAULT,
    *,
    queue: str | None = None,
    local_qmgr: str = "",
    content: PublicationContent = EMPTY_CONTENT,
) -> Command:
    """Build the command of an RFH1 NameValueString given as ordered (name, value) pairs.

    Pairs that are not pub/sub tags (user pairs of a Publish, §2.3) and MQPSStringData /
    MQPSIntData go into the Publish content, in their original order.
    """
    return _build(pairs, md, Interface.RFH1, queue, local_qmgr, content)


def _build(
    pairs: Sequence[tuple[str, str]],
    md: MQMD,
    interface: Interface,
    queue: str | None,
    local_qmgr: str,
    content: PublicationContent,
) -> Command:
    rfh1 = interface is Interface.RFH1
    if any(tag == CONNECTION_ID_TAG for tag, _ in pairs):
        pairs = [pair for pair in pairs if pair[0] != CONNECTION_ID_TAG]
    command_tag = "MQPSCommand" if rfh1 else "Command"
    if not pairs or pairs[0][0] != command_tag:
        # Choice (the reference does not say which): no Command at all is a mandatory property
        # missing, MQRC_RFH_PARM_MISSING 2339 - Command "must be specified" (S0) and §2.1.5
        # gives "mandatory property missing -> 2339", "bad Command -> 2336". A Command that is
        # there but not first is bad: "MQPSCommand must be the first tag" (§2.3), 2336.
        if all(tag != command_tag for tag, _ in pairs):
            raise MQError(RC.RFH_PARM_MISSING, "the message has no Command", parm=command_tag)
        raise MQError(RC.RFH_COMMAND_ERROR, "the first property must be Command", parm=command_tag)
    verb = pairs[0][1].strip()
    allowed = RFH1_COMMANDS if rfh1 else RFH2_COMMANDS
    if verb not in allowed:
        raise MQError(RC.RFH_COMMAND_ERROR, f"unknown command {verb!r}", parm=command_tag)
    table = (RFH1_PROPERTIES if rfh1 else PSC_PROPERTIES)[verb]
    values: dict[str, Any] = {}
    options: dict[str, list[str]] = {}
    extra: list[tuple[str, str]] = []
    for tag, text in pairs[1:]:
        prop = table.get(tag)
        if prop is None:
            if tag == command_tag:
                raise MQError(RC.RFH_DUPLICATE_PARM, "Command repeated", parm=tag)
            if rfh1 and verb == "Publish" and (tag in RFH1_INLINE_DATA or not tag.startswith("MQ")):
                extra.append((tag, text))
                continue
            raise MQError(RC.RFH_PARM_ERROR, f"{tag} is not a property of {verb}", parm=tag)
        if prop.field in ("options", "reg_options"):
            options.setdefault(prop.field, []).append(text)
            if not prop.repeatable and len(options[prop.field]) > 1:
                raise MQError(RC.RFH_DUPLICATE_PARM, f"{tag} repeated", parm=tag)
        elif prop.repeatable:
            values.setdefault(prop.field, []).append(text)
        elif prop.field in values:
            raise MQError(RC.RFH_DUPLICATE_PARM, f"{tag} may occur only once", parm=tag)
        else:
            values[prop.field] = text
    cls = _CLASSES[verb]
    kwargs = _normalise(values, options, verb, interface, md, local_qmgr)
    kwargs["interface"] = interface
    kwargs["source"] = tuple(pairs)
    if queue is not None:
        kwargs["queue"] = queue
    if verb == "Publish":
        if extra:
            content = PublicationContent(
                body=content.body,
                folders=content.folders,
                name_values=(*content.name_values, *extra),
                encoding=content.encoding,
                ccsid=content.ccsid,
                format=content.format,
                name_value_ccsid=content.name_value_ccsid,
            )
        kwargs["content"] = content
    return cls(**kwargs)


def _normalise(
    values: dict[str, Any],
    options: dict[str, list[str]],
    verb: str,
    interface: Interface,
    md: MQMD,
    local_qmgr: str,
) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    for name, raw in values.items():
        if name == "topics":
            kwargs[name] = tuple(dict.fromkeys(raw))  # a topic named twice is one subscription
        elif name in ("q_name", "q_mgr_name"):
            kwargs[name] = raw.strip()
        elif name == "filter":
            kwargs[name] = raw if raw.strip() else None  # an empty Filter is no Filter
        else:
            kwargs[name] = raw
    for name, texts in options.items():
        if name == "options" and verb == "Publish":
            kwargs[name] = parse_options(PubOpt, texts, interface)
        elif name == "options" and verb == "DeletePub":
            kwargs[name] = parse_options(DelOpt, texts, interface)
        else:
            kwargs[name] = parse_options(RegOpt, texts, interface)
    kwargs["md"] = md
    # Identity defaults (§2.6): QName <- ReplyToQ; QMgrName <- ReplyToQMgr, then the local QM.
    if verb != "DeletePub":
        if not kwargs.get("q_name"):
            kwargs["q_name"] = md.ReplyToQ
        if not kwargs.get("q_mgr_name"):
            kwargs["q_mgr_name"] = md.ReplyToQMgr or local_qmgr
    return kwargs


__all__ = ["CONNECTION_ID_TAG", "command_from_psc", "command_from_rfh1"]
