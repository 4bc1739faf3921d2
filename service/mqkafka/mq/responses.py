"""Broker responses to commands: the ``<pscr>`` folder (reference §3.3) and the RFH1
NameValueString form (reference §3.4), from one value.

Layout rules (§3.3), enforced when a ``Response`` is built:

| completion | Response groups                          | MQI completion code |
|------------|------------------------------------------|---------------------|
| ok         | none (FullResp attributes may follow)    | MQCC_OK 0           |
| warning    | one per warning                          | MQCC_WARNING 1      |
| error      | exactly one: the first error found       | MQCC_FAILED 2       |

``Completion`` is always the first element. The original command is appended after the
response on warning/error by the codec, as a separate NameValueData; it is not part of this
value.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from mqkafka.mq.errors import MQError
from mqkafka.mq.folders import Element, Folder, render_folder
from mqkafka.mq.reasons import CC, RC, name_of


class Completion(Enum):
    """``MQPSCR_OK`` / ``MQPSCR_WARNING`` / ``MQPSCR_ERROR`` and their MQI completion codes."""

    OK = "ok"
    WARNING = "warning"
    ERROR = "error"

    @property
    def cc(self) -> CC:
        return _CC[self]


_CC = {Completion.OK: CC.OK, Completion.WARNING: CC.WARNING, Completion.ERROR: CC.FAILED}


@dataclass(frozen=True, slots=True)
class ResponseItem:
    """One ``<Response>``: a reason, and optionally the property it is about.

    ``parm`` names the property (``Topic``, ``RegOpt``, ``UserId``...); ``value`` is its text
    when it is worth repeating (the topic left out, the owning userid); ``position`` is the
    RFH1 MQPSErrorPos.
    """

    reason: int
    parm: str | None = None
    value: str | None = None
    position: int | None = None

    @classmethod
    def of(cls, error: MQError, value: str | None = None) -> ResponseItem:
        return cls(error.reason, error.parm, value, error.position)


@dataclass(frozen=True, slots=True)
class Response:
    completion: Completion
    reasons: tuple[ResponseItem, ...] = ()
    full: tuple[tuple[str, str], ...] = ()  # FullResp: the subscription's attributes

    def __post_init__(self) -> None:
        count = len(self.reasons)
        valid = {
            Completion.OK: count == 0,
            Completion.WARNING: count >= 1,
            Completion.ERROR: count == 1,
        }[self.completion]
        if not valid:
            raise ValueError(f"a {self.completion.value} response cannot have {count} reasons")

    @classmethod
    def ok(cls, full: Iterable[tuple[str, str]] = ()) -> Response:
        return cls(Completion.OK, (), tuple(full))

    @classmethod
    def warning(cls, items: Iterable[ResponseItem]) -> Response:
        return cls(Completion.WARNING, tuple(items))

    @classmethod
    def error(cls, item: ResponseItem) -> Response:
        return cls(Completion.ERROR, (item,))

    @classmethod
    def of_error(cls, error: MQError) -> Response:
        """An ``MQError`` as a response: a warning if it was raised as one, else an error."""
        item = ResponseItem.of(error)
        if error.comp is CC.WARNING:
            return cls.warning((item,))
        return cls.error(item)

    @property
    def reason(self) -> int:
        """The first reason, or MQRC_NONE for ok (what an MQI client reports)."""
        return self.reasons[0].reason if self.reasons else RC.NONE

    # ---- RFH2 ----

    def to_pscr(self) -> Folder:
        """The ``<pscr>`` folder: Completion first, then FullResp attributes or Responses."""
        elements = [Element("Completion", self.completion.value)]
        elements.extend(Element(name, value) for name, value in self.full)
        for item in self.reasons:
            children = [Element("Reason", str(int(item.reason)))]
            if item.parm is not None and item.value is not None:
                children.append(Element(item.parm, item.value))
            elements.append(Element("Response", children=tuple(children)))
        return Folder("pscr", tuple(elements))

    def pscr_text(self) -> str:
        return render_folder(self.to_pscr())

    # ---- RFH1 ----

    def to_rfh1_pairs(self) -> list[tuple[str, str]]:
        """``MQPSCompCode n MQPSReason n MQPSReasonText text`` then, per reason, its optional
        tags (§3.4); the Reason/ReasonText group repeats for each further warning."""
        pairs = [("MQPSCompCode", str(int(self.completion.cc)))]
        if not self.reasons:
            pairs += [("MQPSReason", "0"), ("MQPSReasonText", name_of(RC.NONE))]
            pairs.extend((rfh1_tag(name), value) for name, value in self.full)
            return pairs
        for item in self.reasons:
            pairs += [
                ("MQPSReason", str(int(item.reason))),
                ("MQPSReasonText", name_of(item.reason)),
            ]
            pairs.extend(_rfh1_extras(item))
        return pairs


# Option tags are plural in RFH1 (§2.3); everything else takes the MQPS prefix.
_RFH1_NAMES = {
    "RegOpt": "MQPSRegOpts",
    "PubOpt": "MQPSPubOpts",
    "DelOpt": "MQPSDelOpts",
    "Command": "MQPSCommand",
}
# Which optional tag names the culprit, by reason (§3.4 "Optional tag / Present when").
_PARM_ID_REASONS = frozenset({RC.RFH_PARM_ERROR, RC.RFH_DUPLICATE_PARM, RC.RFH_PARM_MISSING})
_OPTION_TAG: dict[int, str] = {
    RC.CF_REG_OPTIONS_ERROR: "MQPSRegOpts",
    RC.CF_PUB_OPTIONS_ERROR: "MQPSPubOpts",
    RC.CF_DEL_OPTIONS_ERROR: "MQPSDelOpts",
}


def rfh1_tag(name: str) -> str:
    """The RFH1 spelling of a ``<psc>``/``<pscr>`` tag (``Topic`` -> ``MQPSTopic``)."""
    if name.startswith("MQPS"):
        return name
    return _RFH1_NAMES.get(name, "MQPS" + name)


def _rfh1_extras(item: ResponseItem) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if item.reason == RC.RFH_COMMAND_ERROR and item.value is not None:
        out.append(("MQPSCommand", item.value))
    elif item.reason in _PARM_ID_REASONS and item.parm is not None:
        out.append(("MQPSParmId", item.parm))
    elif item.reason in _OPTION_TAG and item.value is not None:
        out.append((_OPTION_TAG[item.reason], item.value))
    elif item.parm is not None and item.value is not None:
        out.append((rfh1_tag(item.parm), item.value))
    if item.position is not None:
        out.append(("MQPSErrorPos", str(item.position)))
    return out


__all__ = ["Completion", "Response", "ResponseItem", "rfh1_tag"]
