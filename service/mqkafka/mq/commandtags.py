"""Which property tags each command accepts, in ``<psc>`` (RFH2) and in RFH1 name/value
strings: the field each fills and whether it may repeat. The parser reads messages with
these tables, the renderer writes commands back with them.

"Unless a command's description says otherwise, a property is optional and may occur at most
once" (§2.1.3); Topic and the option tags repeat, except ReqUpdate's single Topic (seed 000).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CommandProperty:
    """A property tag of a command: the field of the command value it fills, whether it may
    occur more than once."""

    field: str
    repeatable: bool = False


_T_MANY = CommandProperty("topics", True)
_IDENT = {"QMgrName": CommandProperty("q_mgr_name"), "QName": CommandProperty("q_name")}
_SUBSCRIBER = {"SubPoint": CommandProperty("sub_point"), "Filter": CommandProperty("filter")}

PSC_PROPERTIES: dict[str, dict[str, CommandProperty]] = {
    "RegSub": {
        "Topic": _T_MANY,
        "RegOpt": CommandProperty("options", True),
        **_SUBSCRIBER,
        **_IDENT,
        "SubName": CommandProperty("sub_name"),
        "SubIdentity": CommandProperty("sub_identity"),
        "SubUserData": CommandProperty("sub_user_data"),
    },
    "DeregSub": {
        "Topic": _T_MANY,
        "RegOpt": CommandProperty("options", True),
        **_SUBSCRIBER,
        **_IDENT,
        "SubName": CommandProperty("sub_name"),
        "SubIdentity": CommandProperty("sub_identity"),
    },
    "ReqUpdate": {
        "Topic": CommandProperty("topic"),
        "RegOpt": CommandProperty("options", True),
        **_SUBSCRIBER,
        **_IDENT,
        "SubName": CommandProperty("sub_name"),
    },
    "Publish": {
        "Topic": _T_MANY,
        "PubOpt": CommandProperty("options", True),
        "RegOpt": CommandProperty("reg_options", True),
        "SubPoint": CommandProperty("sub_point"),
        "PubTime": CommandProperty("pub_time"),
        "SeqNum": CommandProperty("seq_num"),
        **_IDENT,
    },
    "DeletePub": {
        "Topic": _T_MANY,
        "DelOpt": CommandProperty("options"),  # repeatable: "no (UNCERTAIN)" (§2.11) - taken as no
        "SubPoint": CommandProperty("sub_point"),
    },
}

# RFH1 tags are the RFH2 ones with an MQPS prefix, option tags plural, and MQPSStreamName in
# place of SubPoint/Filter ("RFH1 clients cannot specify a content filter", §2.7).
_RFH1_RENAME = {"RegOpt": "MQPSRegOpts", "PubOpt": "MQPSPubOpts", "DelOpt": "MQPSDelOpts"}
_STREAM = {"MQPSStreamName": CommandProperty("stream")}


def _rfh1_table(psc: dict[str, CommandProperty]) -> dict[str, CommandProperty]:
    table = {
        _RFH1_RENAME.get(tag, "MQPS" + tag): prop
        for tag, prop in psc.items()
        if tag not in ("SubPoint", "Filter")
    }
    return {**table, **_STREAM}


RFH1_PROPERTIES: dict[str, dict[str, CommandProperty]] = {
    name: _rfh1_table(table) for name, table in PSC_PROPERTIES.items()
}
RFH1_PROPERTIES["RegPub"] = {
    "MQPSTopic": _T_MANY,
    "MQPSRegOpts": CommandProperty("options", True),
    "MQPSQMgrName": CommandProperty("q_mgr_name"),
    "MQPSQName": CommandProperty("q_name"),
    **_STREAM,
}
RFH1_PROPERTIES["DeregPub"] = dict(RFH1_PROPERTIES["RegPub"])
# Inline publication data of an RFH1 Publish: repeatable and kept, in order, with the content.
RFH1_INLINE_DATA = ("MQPSStringData", "MQPSIntData")
# "In the RFH2 (<psc>) interface of MQ v7+ only five command values are valid" (§1.2, §10.2).
RFH2_COMMANDS = frozenset({"RegSub", "DeregSub", "Publish", "DeletePub", "ReqUpdate"})
RFH1_COMMANDS = frozenset({*RFH2_COMMANDS, "RegPub", "DeregPub"})


__all__ = [
    "PSC_PROPERTIES",
    "RFH1_COMMANDS",
    "RFH1_INLINE_DATA",
    "RFH1_PROPERTIES",
    "RFH2_COMMANDS",
    "CommandProperty",
]
