"""The options of the queued pub/sub command interface (reference §2.5): ``RegOpt``,
``PubOpt``, ``DelOpt`` as flags, their string values and the interface generation that
defines each, which options each command accepts and which clash (3083 / 3084 / 3087).

A command's ``__post_init__`` runs the checks here; the parser reads option strings with
``parse_options`` and the renderer names them with ``option_names``.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum, IntFlag
from typing import Any, TypeVar

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC


class Interface(Enum):
    """Which generation of the command interface a message used (reference §1.1)."""

    RFH2 = "RFH2"
    RFH1 = "RFH1"


# --------------------------------------------------------------------------------------------
# Options (reference §2.5): integer values from CMQCFC, strings from cmqpsc.h.


class RegOpt(IntFlag):
    """Registration options (``MQREGO_*``)."""

    NONE = 0
    CORREL_ID_AS_IDENTITY = 0x1
    ANONYMOUS = 0x2
    LOCAL = 0x4
    DIRECT_REQUESTS = 0x8
    NEW_PUBLICATIONS_ONLY = 0x10
    PUBLISH_ON_REQUEST_ONLY = 0x20
    DEREGISTER_ALL = 0x40
    INCLUDE_STREAM_NAME = 0x80
    INFORM_IF_RETAINED = 0x100
    DUPLICATES_OK = 0x200
    NON_PERSISTENT = 0x400
    PERSISTENT = 0x800
    PERSISTENT_AS_PUBLISH = 0x1000
    PERSISTENT_AS_Q = 0x2000
    ADD_NAME = 0x4000
    NO_ALTERATION = 0x8000
    FULL_RESPONSE = 0x10000
    JOIN_SHARED = 0x20000
    JOIN_EXCLUSIVE = 0x40000
    LEAVE_ONLY = 0x80000
    VARIABLE_USER_ID = 0x100000
    LOCKED = 0x200000


class PubOpt(IntFlag):
    """Publication options (``MQPUBO_*``)."""

    NONE = 0
    CORREL_ID_AS_IDENTITY = 0x1
    RETAIN_PUBLICATION = 0x2
    OTHER_SUBSCRIBERS_ONLY = 0x4
    NO_REGISTRATION = 0x8
    IS_RETAINED_PUBLICATION = 0x10
    # The <psc> value "Local" (MQPSC_LOCAL) has no MQPUBO_ integer; an emulator-private bit.
    LOCAL = 0x40000000


class DelOpt(IntFlag):
    """Delete options (``MQDELO_*``)."""

    NONE = 0
    LOCAL = 0x4


_BOTH = frozenset({"RFH2", "RFH1"})
_RFH1 = frozenset({"RFH1"})

# String value -> (flag, interfaces that define it). "A dash in the MQPSC_ column means the value
# exists only in the RFH1 interface" (§2.5): Anon, DirectReq, InclStreamName, NoReg.
REG_OPTION_VALUES: dict[str, tuple[RegOpt, frozenset[str]]] = {
    "None": (RegOpt.NONE, _BOTH),
    "CorrelAsId": (RegOpt.CORREL_ID_AS_IDENTITY, _BOTH),
    "Anon": (RegOpt.ANONYMOUS, _RFH1),
    "Local": (RegOpt.LOCAL, _BOTH),
    "DirectReq": (RegOpt.DIRECT_REQUESTS, _RFH1),
    "NewPubsOnly": (RegOpt.NEW_PUBLICATIONS_ONLY, _BOTH),
    "PubOnReqOnly": (RegOpt.PUBLISH_ON_REQUEST_ONLY, _BOTH),
    "DeregAll": (RegOpt.DEREGISTER_ALL, _BOTH),
    "InclStreamName": (RegOpt.INCLUDE_STREAM_NAME, _RFH1),
    "InformIfRet": (RegOpt.INFORM_IF_RETAINED, _BOTH),
    "DupsOK": (RegOpt.DUPLICATES_OK, _BOTH),
    "NonPers": (RegOpt.NON_PERSISTENT, _BOTH),
    "Pers": (RegOpt.PERSISTENT, _BOTH),
    "PersAsPub": (RegOpt.PERSISTENT_AS_PUBLISH, _BOTH),
    "PersAsQueue": (RegOpt.PERSISTENT_AS_Q, _BOTH),
    "AddName": (RegOpt.ADD_NAME, _BOTH),
    "NoAlter": (RegOpt.NO_ALTERATION, _BOTH),
    "FullResp": (RegOpt.FULL_RESPONSE, _BOTH),
    "JoinShared": (RegOpt.JOIN_SHARED, _BOTH),
    "JoinExcl": (RegOpt.JOIN_EXCLUSIVE, _BOTH),
    "LeaveOnly": (RegOpt.LEAVE_ONLY, _BOTH),
    "VariableUserId": (RegOpt.VARIABLE_USER_ID, _BOTH),
    "Locked": (RegOpt.LOCKED, _BOTH),
}
PUB_OPTION_VALUES: dict[str, tuple[PubOpt, frozenset[str]]] = {
    "None": (PubOpt.NONE, _BOTH),
    "CorrelAsId": (PubOpt.CORREL_ID_AS_IDENTITY, _BOTH),
    "RetainPub": (PubOpt.RETAIN_PUBLICATION, _BOTH),
    "OtherSubsOnly": (PubOpt.OTHER_SUBSCRIBERS_ONLY, _BOTH),
    "NoReg": (PubOpt.NO_REGISTRATION, _RFH1),
    "IsRetainedPub": (PubOpt.IS_RETAINED_PUBLICATION, _BOTH),
    "Local": (PubOpt.LOCAL, _BOTH),
}
DEL_OPTION_VALUES: dict[str, tuple[DelOpt, frozenset[str]]] = {
    "None": (DelOpt.NONE, _BOTH),
    "Local": (DelOpt.LOCAL, _BOTH),
}
_R = RegOpt
# Which registration options each command accepts (anything else: MQRCCF_REG_OPTIONS_ERROR).
REG_OPTIONS_ALLOWED: dict[str, RegOpt] = {
    # §2.7 RegOpt table: every value except the deregistration and publisher-only ones.
    "RegSub": RegOpt(~(_R.DEREGISTER_ALL | _R.LEAVE_ONLY | _R.DIRECT_REQUESTS) & 0x3FFFFF),
    # §2.8: "CorrelAsId, DeregAll, FullResp, LeaveOnly, VariableUserId, None".
    "DeregSub": _R.CORREL_ID_AS_IDENTITY
    | _R.DEREGISTER_ALL
    | _R.FULL_RESPONSE
    | _R.LEAVE_ONLY
    | _R.VARIABLE_USER_ID,
    # §2.9: "CorrelAsId, VariableUserId, None".
    "ReqUpdate": _R.CORREL_ID_AS_IDENTITY | _R.VARIABLE_USER_ID,
    # §2.10: implicit-registration options "(Anon, CorrelAsId, DirectReq, Local)".
    "Publish": _R.ANONYMOUS | _R.CORREL_ID_AS_IDENTITY | _R.DIRECT_REQUESTS | _R.LOCAL,
    # §2.12: RegPub "Anon, CorrelAsId, DirectReq - not with Anon, Local"; DeregPub "CorrelAsId,
    # DeregAll".
    "RegPub": _R.ANONYMOUS | _R.CORREL_ID_AS_IDENTITY | _R.DIRECT_REQUESTS | _R.LOCAL,
    "DeregPub": _R.CORREL_ID_AS_IDENTITY | _R.DEREGISTER_ALL,
}
_RFH1_ONLY_REG = RegOpt.ANONYMOUS | RegOpt.DIRECT_REQUESTS | RegOpt.INCLUDE_STREAM_NAME
_PERSISTENCE = (
    RegOpt.NON_PERSISTENT,
    RegOpt.PERSISTENT,
    RegOpt.PERSISTENT_AS_PUBLISH,
    RegOpt.PERSISTENT_AS_Q,
)
# Pairs that may not be combined (both present -> MQRCCF_REG_OPTIONS_ERROR), rule beside each.
REG_OPTION_CONFLICTS: tuple[tuple[RegOpt, RegOpt, str], ...] = (
    (_R.JOIN_SHARED, _R.JOIN_EXCLUSIVE, "a subscriber joins shared or exclusive, not both"),
    (_R.DIRECT_REQUESTS, _R.ANONYMOUS, "DirectReq - not with Anon (§2.12)"),
    *(
        (a, b, "one persistence option at most (§2.7)")
        for i, a in enumerate(_PERSISTENCE)
        for b in _PERSISTENCE[i + 1 :]
    ),
)


_F = TypeVar("_F", RegOpt, PubOpt, DelOpt)


def parse_options(kind: type[_F], texts: Iterable[str], interface: Interface) -> _F:
    """Combine option elements; one element may hold several blank-separated values (§10.14)."""
    table: dict[str, tuple[Any, frozenset[str]]]
    if kind is RegOpt:
        table, reason, tag = REG_OPTION_VALUES, RC.CF_REG_OPTIONS_ERROR, "RegOpt"
    elif kind is PubOpt:
        table, reason, tag = PUB_OPTION_VALUES, RC.CF_PUB_OPTIONS_ERROR, "PubOpt"
    else:
        table, reason, tag = DEL_OPTION_VALUES, RC.CF_DEL_OPTIONS_ERROR, "DelOpt"
    bits = 0  # plain int: IntFlag arithmetic costs ~0.7 us per operation
    for text in texts:
        for word in text.split():
            entry = table.get(word)
            if entry is None:
                if word.isascii() and word.isdigit():
                    bits |= _integer_option(word, interface, reason, tag)
                    continue
                raise MQError(reason, f"{word!r} is not a {tag} value", parm=tag)
            if interface.value not in entry[1]:
                raise MQError(reason, f"{word!r} is not a {tag} value", parm=tag)
            bits |= entry[0]
    return kind(bits)


def _integer_bits(table: dict[str, tuple[Any, frozenset[str]]], interface: str) -> int:
    """Every MQREGO_/MQPUBO_/MQDELO_ bit the interface defines (PubOpt.LOCAL has none)."""
    bits = 0
    for flag, interfaces in table.values():
        if interface in interfaces and flag is not PubOpt.LOCAL:
            bits |= int(flag)
    return bits


# The integer form (decimal, as PCF and AMQSPR2A write options, §2.5): IBM's JMS client sends
# it (`MQPSRegOpts 66561`, `<RegOpt>66561</RegOpt>`), so a broker reads it.
_INTEGER_BITS: dict[tuple[str, str], int] = {
    (tag, face.value): _integer_bits(table, face.value)
    for tag, table in (
        ("RegOpt", REG_OPTION_VALUES),
        ("PubOpt", PUB_OPTION_VALUES),
        ("DelOpt", DEL_OPTION_VALUES),
    )
    for face in Interface
}


def _integer_option(word: str, interface: Interface, reason: RC, tag: str) -> int:
    """A decimal option value; a bit the interface does not define is an options error."""
    value = int(word)
    unknown = value & ~_INTEGER_BITS[tag, interface.value]
    if unknown:
        raise MQError(
            reason,
            f"{word!r} sets {tag} bits {unknown:#x} {interface.value} does not define",
            parm=tag,
        )
    return value


def option_names(flags: RegOpt | PubOpt | DelOpt) -> list[str]:
    """The string value of each option set in ``flags``, in table order."""
    table: dict[str, tuple[Any, frozenset[str]]]
    if isinstance(flags, RegOpt):
        table = REG_OPTION_VALUES
    elif isinstance(flags, PubOpt):
        table = PUB_OPTION_VALUES
    else:
        table = DEL_OPTION_VALUES
    return [name for name, (flag, _) in table.items() if flag and flag & flags == flag]


# The same tables as plain ints, for the checks every command pays for.
_REG_ALLOWED_BITS = {name: int(mask) for name, mask in REG_OPTIONS_ALLOWED.items()}
_RFH1_ONLY_REG_BITS = int(_RFH1_ONLY_REG)
_CONFLICT_BITS = tuple((int(a), int(b), rule) for a, b, rule in REG_OPTION_CONFLICTS)
_BROKER_ONLY_PUB_BITS = int(PubOpt.IS_RETAINED_PUBLICATION)
_RFH1_ONLY_PUB_BITS = int(PubOpt.NO_REGISTRATION)


def check_reg_options(command: str, options: RegOpt, interface: Interface) -> None:
    """Raise MQRCCF_REG_OPTIONS_ERROR for options the command does not accept or that clash."""
    bits = int(options)
    if not bits:
        return
    bad = bits & ~_REG_ALLOWED_BITS[command]
    if interface is Interface.RFH2:
        bad |= bits & _RFH1_ONLY_REG_BITS
    if bad:
        names = option_names(RegOpt(bad))
        raise MQError(RC.CF_REG_OPTIONS_ERROR, f"{command} does not accept {names}", parm="RegOpt")
    for a, b, rule in _CONFLICT_BITS:
        if bits & a and bits & b:
            raise MQError(RC.CF_REG_OPTIONS_ERROR, rule, parm="RegOpt")


def check_pub_options(options: PubOpt, interface: Interface) -> None:
    """Raise MQRCCF_PUB_OPTIONS_ERROR for publication options a publisher may not send."""
    bits = int(options)
    if not bits:
        return
    # "IsRetainedPub only set by the broker" (§2.10); NoReg exists only in RFH1 (§2.5).
    bad = bits & _BROKER_ONLY_PUB_BITS
    if interface is Interface.RFH2:
        bad |= bits & _RFH1_ONLY_PUB_BITS
    if bad:
        raise MQError(RC.CF_PUB_OPTIONS_ERROR, f"PubOpt {option_names(PubOpt(bad))}", parm="PubOpt")


def check_del_options(options: DelOpt) -> None:
    if options & ~DelOpt.LOCAL:
        raise MQError(RC.CF_DEL_OPTIONS_ERROR, "unknown delete options", parm="DelOpt")


__all__ = [
    "DEL_OPTION_VALUES",
    "PUB_OPTION_VALUES",
    "REG_OPTIONS_ALLOWED",
    "REG_OPTION_CONFLICTS",
    "REG_OPTION_VALUES",
    "DelOpt",
    "Interface",
    "PubOpt",
    "RegOpt",
    "check_del_options",
    "check_pub_options",
    "check_reg_options",
    "option_names",
    "parse_options",
]
