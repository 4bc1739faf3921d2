"""Commands written back as message pairs, the inverse of ``mqkafka.mq.commandparse``: one
option value per element (§2.1.4, §10.14), identity fields as resolved. Replies echo them and
clients build their command messages with them.
"""

from __future__ import annotations

from mqkafka.mq.commandoptions import DelOpt, PubOpt, RegOpt, option_names
from mqkafka.mq.commands import Command, Publish
from mqkafka.mq.commandtags import PSC_PROPERTIES, RFH1_PROPERTIES, CommandProperty


def command_to_psc(cmd: Command) -> list[tuple[str, str]]:
    """The ``<psc>`` pairs of a command (RFH2 tag names), Command first."""
    return _to_pairs(cmd, PSC_PROPERTIES.get(cmd.name, {}), "Command")


def command_to_rfh1(cmd: Command) -> list[tuple[str, str]]:
    """The RFH1 name/value pairs of a command, MQPSCommand first, user pairs last."""
    pairs = _to_pairs(cmd, RFH1_PROPERTIES[cmd.name], "MQPSCommand")
    if isinstance(cmd, Publish):
        pairs.extend(cmd.content.name_values)
    return pairs


def _to_pairs(
    cmd: Command, table: dict[str, CommandProperty], command_tag: str
) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = [(command_tag, cmd.name)]
    for tag, prop in table.items():
        value = getattr(cmd, prop.field)
        if value is None or value == "":
            continue
        if isinstance(value, RegOpt | PubOpt | DelOpt):
            pairs.extend((tag, name) for name in option_names(value))
        elif isinstance(value, tuple):
            pairs.extend((tag, item) for item in value)
        else:
            pairs.append((tag, str(value)))
    return pairs


__all__ = ["command_to_psc", "command_to_rfh1"]
