"""Typed queued pub/sub commands (reference §2), built from ``<psc>`` or RFH1 ``MQPS*`` pairs.

A command is a frozen value that has already passed every check that needs only the command
message itself (reference §2.1, §2.5, §2.6): first-tag ``Command`` (2336; none at all,
2339), known properties (2337), repetition (2338), mandatory properties (2339), option values
and combinations (3083 / 3084 / 3087), a non-zero CorrelId with ``CorrelAsId`` (3080). Checks
that need the broker's state (identities, names, retained publications) belong to the engine.

Each command keeps the interface it came from (RFH2 ``<psc>`` or RFH1 name/value string): that
chooses the wildcard scheme (reference §10.16) and the format of replies and deliveries.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum, IntFlag
from typing import Any, ClassVar, TypeVar

from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import MQMD, MQMD_DEFAULT
from mqkafka.mq.reasons import RC

CONTROL_QUEUE = "SYSTEM.BROKER.CONTROL.QUEUE"
DEFAULT_STREAM = "SYSTEM.BROKER.DEFAULT.STREAM"
ZERO_ID = bytes(24)


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
            if entry is None or interface.value not in entry[1]:
                raise MQError(reason, f"{word!r} is not a {tag} value", parm=tag)
            bits |= entry[0]
    return kind(bits)


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
_CORREL_BIT = int(RegOpt.CORREL_ID_AS_IDENTITY)  # same bit for MQPUBO_CORREL_ID_AS_IDENTITY
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


@dataclass(frozen=True, slots=True)
class PublicationContent:
    """What a Publish carries besides its ``<psc>``: passed through to subscribers unchanged.

    ``folders`` are the RFH2 NameValueData strings other than psc/pscr (``mcd``, ``usr``...);
    ``name_values`` the RFH1 pairs that are not pub/sub tags (user pairs, MQPSStringData...).
    ``encoding``/``ccsid``/``format`` describe the body, as in the publisher's header.
    """

    body: bytes = b""
    folders: tuple[str, ...] = ()
    name_values: tuple[tuple[str, str], ...] = ()
    encoding: int = 546
    ccsid: int = 1208
    format: str = ""
    name_value_ccsid: int = 1208


EMPTY_CONTENT = PublicationContent()


@dataclass(frozen=True, slots=True, kw_only=True)
class _Command:
    """Fields every command has: where it came from and who sent it."""

    interface: Interface = Interface.RFH2
    queue: str = CONTROL_QUEUE  # the queue the command message was put to
    md: MQMD = field(default=MQMD_DEFAULT, repr=False)  # for identities, replies, deliveries
    # The pairs it was built from, echoed after a warning or error response (§3.3).
    source: tuple[tuple[str, str], ...] = field(default=(), repr=False, compare=False)

    name: ClassVar[str] = ""

    @property
    def user_id(self) -> str:
        """MQMD.UserIdentifier: owns the identities it creates (reference §2.6)."""
        return self.md.UserIdentifier

    @property
    def correl_id(self) -> bytes:
        """MQMD.CorrelId: part of the identity when CorrelAsId is set (seed 001)."""
        return self.md.CorrelId


@dataclass(frozen=True, slots=True, kw_only=True)
class RegSub(_Command):
    """Register Subscriber (reference §2.7)."""

    topics: tuple[str, ...] = ()
    options: RegOpt = RegOpt.NONE
    sub_point: str | None = None
    filter: str | None = None
    q_name: str = ""
    q_mgr_name: str = ""
    sub_name: str | None = None
    sub_identity: str | None = None
    sub_user_data: str | None = None
    stream: str | None = None  # RFH1 MQPSStreamName
    name: ClassVar[str] = "RegSub"

    def __post_init__(self) -> None:
        check_reg_options(self.name, self.options, self.interface)
        _need_topic_unless(self.topics, self.sub_name is not None)
        # AddName: "SubName becomes mandatory (else MQRCCF_REG_OPTIONS_ERROR)" (§2.7).
        if RegOpt.ADD_NAME in self.options and self.sub_name is None:
            raise MQError(RC.CF_REG_OPTIONS_ERROR, "AddName needs a SubName", parm="RegOpt")
        # FullResp "not allowed with multiple topics" (§2.7).
        if RegOpt.FULL_RESPONSE in self.options and len(self.topics) > 1:
            raise MQError(RC.CF_REG_OPTIONS_ERROR, "FullResp with several topics", parm="RegOpt")
        if self.options & (RegOpt.JOIN_SHARED | RegOpt.JOIN_EXCLUSIVE) and not self.sub_identity:
            raise MQError(
                RC.CF_REG_OPTIONS_ERROR, "a Join option needs a SubIdentity", parm="RegOpt"
            )
        _check_correl(self.options, self.correl_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeregSub(_Command):
    """Deregister Subscriber (reference §2.8)."""

    topics: tuple[str, ...] = ()
    options: RegOpt = RegOpt.NONE
    sub_point: str | None = None
    filter: str | None = None
    q_name: str = ""
    q_mgr_name: str = ""
    sub_name: str | None = None
    sub_identity: str | None = None
    stream: str | None = None
    name: ClassVar[str] = "DeregSub"

    def __post_init__(self) -> None:
        check_reg_options(self.name, self.options, self.interface)
        _need_topic_unless(
            self.topics, RegOpt.DEREGISTER_ALL in self.options or self.sub_name is not None
        )
        if RegOpt.FULL_RESPONSE in self.options and (
            len(self.topics) > 1 or RegOpt.DEREGISTER_ALL in self.options
        ):
            raise MQError(
                RC.CF_REG_OPTIONS_ERROR, "FullResp with several topics or DeregAll", parm="RegOpt"
            )
        if RegOpt.LEAVE_ONLY in self.options and not self.sub_identity:
            raise MQError(RC.CF_REG_OPTIONS_ERROR, "LeaveOnly needs a SubIdentity", parm="RegOpt")
        _check_correl(self.options, self.correl_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReqUpdate(_Command):
    """Request Update (seed 000, reference §2.9): exactly one Topic."""

    topic: str = ""
    options: RegOpt = RegOpt.NONE
    sub_point: str | None = None
    filter: str | None = None
    q_name: str = ""
    q_mgr_name: str = ""
    sub_name: str | None = None
    stream: str | None = None
    name: ClassVar[str] = "ReqUpdate"

    def __post_init__(self) -> None:
        check_reg_options(self.name, self.options, self.interface)
        # "This property must be specified, but only one occurrence is allowed" (seed 000).
        if not self.topic:
            raise MQError(RC.RFH_PARM_MISSING, "ReqUpdate needs a Topic", parm="Topic")
        _check_correl(self.options, self.correl_id)

    @property
    def topics(self) -> tuple[str, ...]:
        return (self.topic,)


@dataclass(frozen=True, slots=True, kw_only=True)
class Publish(_Command):
    """Publish (reference §2.10); ``content`` is the rest of the message, passed through."""

    topics: tuple[str, ...] = ()
    options: PubOpt = PubOpt.NONE
    reg_options: RegOpt = RegOpt.NONE
    sub_point: str | None = None
    pub_time: str | None = None
    seq_num: str | None = None
    q_name: str = ""
    q_mgr_name: str = ""
    stream: str | None = None
    content: PublicationContent = EMPTY_CONTENT
    queue: str = DEFAULT_STREAM
    name: ClassVar[str] = "Publish"

    def __post_init__(self) -> None:
        check_pub_options(self.options, self.interface)
        check_reg_options(self.name, self.reg_options, self.interface)
        _need_topic_unless(self.topics, False)
        _check_correl(self.reg_options, self.correl_id, self.options)

    @property
    def correl_as_id(self) -> bool:
        """The publisher's identity includes its CorrelId (RegOpt or RFH1 PubOpt CorrelAsId)."""
        return bool((int(self.reg_options) | int(self.options)) & _CORREL_BIT)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeletePub(_Command):
    """Delete Publication (reference §2.11)."""

    topics: tuple[str, ...] = ()
    options: DelOpt = DelOpt.NONE
    sub_point: str | None = None
    stream: str | None = None
    queue: str = DEFAULT_STREAM
    name: ClassVar[str] = "DeletePub"

    def __post_init__(self) -> None:
        check_del_options(self.options)
        _need_topic_unless(self.topics, False)


@dataclass(frozen=True, slots=True, kw_only=True)
class RegPub(_Command):
    """Register Publisher (RFH1 only, reference §2.12)."""

    topics: tuple[str, ...] = ()
    options: RegOpt = RegOpt.NONE
    q_name: str = ""
    q_mgr_name: str = ""
    stream: str | None = None
    interface: Interface = Interface.RFH1
    name: ClassVar[str] = "RegPub"

    def __post_init__(self) -> None:
        check_reg_options(self.name, self.options, self.interface)
        _need_topic_unless(self.topics, False)
        _check_correl(self.options, self.correl_id)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeregPub(_Command):
    """Deregister Publisher (RFH1 only, reference §2.12)."""

    topics: tuple[str, ...] = ()
    options: RegOpt = RegOpt.NONE
    q_name: str = ""
    q_mgr_name: str = ""
    stream: str | None = None
    interface: Interface = Interface.RFH1
    name: ClassVar[str] = "DeregPub"

    def __post_init__(self) -> None:
        check_reg_options(self.name, self.options, self.interface)
        _need_topic_unless(self.topics, RegOpt.DEREGISTER_ALL in self.options)
        _check_correl(self.options, self.correl_id)


Command = RegSub | DeregSub | ReqUpdate | Publish | DeletePub | RegPub | DeregPub


def _need_topic_unless(topics: tuple[str, ...], excused: bool) -> None:
    if not topics and not excused:
        raise MQError(RC.RFH_PARM_MISSING, "Topic is mandatory", parm="Topic")


def _check_correl(options: RegOpt, correl_id: bytes, pub: PubOpt = PubOpt.NONE) -> None:
    # "The correlation identifier to be used as part of the identity must not be zero" (seed 001).
    wants = (int(options) | int(pub)) & _CORREL_BIT
    if wants and correl_id == ZERO_ID:
        raise MQError(RC.CF_CORREL_ID_ERROR, "CorrelAsId with a zero MQMD.CorrelId")


# --------------------------------------------------------------------------------------------
# Property tables: which tag each command accepts, whether it repeats, and the field it fills.
# "Unless a command's description says otherwise, a property is optional and may occur at most
# once" (§2.1.3); Topic and the option tags repeat, except ReqUpdate's single Topic (seed 000).


@dataclass(frozen=True, slots=True)
class _Prop:
    field: str
    repeatable: bool = False


_T_MANY = _Prop("topics", True)
_IDENT = {"QMgrName": _Prop("q_mgr_name"), "QName": _Prop("q_name")}
_SUBSCRIBER = {"SubPoint": _Prop("sub_point"), "Filter": _Prop("filter")}

PSC_PROPERTIES: dict[str, dict[str, _Prop]] = {
    "RegSub": {
        "Topic": _T_MANY,
        "RegOpt": _Prop("options", True),
        **_SUBSCRIBER,
        **_IDENT,
        "SubName": _Prop("sub_name"),
        "SubIdentity": _Prop("sub_identity"),
        "SubUserData": _Prop("sub_user_data"),
    },
    "DeregSub": {
        "Topic": _T_MANY,
        "RegOpt": _Prop("options", True),
        **_SUBSCRIBER,
        **_IDENT,
        "SubName": _Prop("sub_name"),
        "SubIdentity": _Prop("sub_identity"),
    },
    "ReqUpdate": {
        "Topic": _Prop("topic"),
        "RegOpt": _Prop("options", True),
        **_SUBSCRIBER,
        **_IDENT,
        "SubName": _Prop("sub_name"),
    },
    "Publish": {
        "Topic": _T_MANY,
        "PubOpt": _Prop("options", True),
        "RegOpt": _Prop("reg_options", True),
        "SubPoint": _Prop("sub_point"),
        "PubTime": _Prop("pub_time"),
        "SeqNum": _Prop("seq_num"),
        **_IDENT,
    },
    "DeletePub": {
        "Topic": _T_MANY,
        "DelOpt": _Prop("options"),  # repeatable: "no (UNCERTAIN)" (§2.11) - taken as no
        "SubPoint": _Prop("sub_point"),
    },
}

# RFH1 tags are the RFH2 ones with an MQPS prefix, option tags plural, and MQPSStreamName in
# place of SubPoint/Filter ("RFH1 clients cannot specify a content filter", §2.7).
_RFH1_RENAME = {"RegOpt": "MQPSRegOpts", "PubOpt": "MQPSPubOpts", "DelOpt": "MQPSDelOpts"}
_STREAM = {"MQPSStreamName": _Prop("stream")}


def _rfh1_table(psc: dict[str, _Prop]) -> dict[str, _Prop]:
    table = {
        _RFH1_RENAME.get(tag, "MQPS" + tag): prop
        for tag, prop in psc.items()
        if tag not in ("SubPoint", "Filter")
    }
    return {**table, **_STREAM}


RFH1_PROPERTIES: dict[str, dict[str, _Prop]] = {
    name: _rfh1_table(table) for name, table in PSC_PROPERTIES.items()
}
RFH1_PROPERTIES["RegPub"] = {
    "MQPSTopic": _T_MANY,
    "MQPSRegOpts": _Prop("options", True),
    "MQPSQMgrName": _Prop("q_mgr_name"),
    "MQPSQName": _Prop("q_name"),
    **_STREAM,
}
RFH1_PROPERTIES["DeregPub"] = dict(RFH1_PROPERTIES["RegPub"])
# Inline publication data of an RFH1 Publish: repeatable and kept, in order, with the content.
RFH1_INLINE_DATA = ("MQPSStringData", "MQPSIntData")

_CLASSES: dict[str, type[_Command]] = {
    c.name: c for c in (RegSub, DeregSub, ReqUpdate, Publish, DeletePub, RegPub, DeregPub)
}
# "In the RFH2 (<psc>) interface of MQ v7+ only five command values are valid" (§1.2, §10.2).
RFH2_COMMANDS = frozenset({"RegSub", "DeregSub", "Publish", "DeletePub", "ReqUpdate"})
RFH1_COMMANDS = frozenset(_CLASSES)


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
    return cls(**kwargs)  # type: ignore[return-value]


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


# --------------------------------------------------------------------------------------------
# Back to pairs: one option value per element (§2.1.4, §10.14), identity fields as resolved.


def command_to_psc(cmd: Command) -> list[tuple[str, str]]:
    """The ``<psc>`` pairs of a command (RFH2 tag names), Command first."""
    return _to_pairs(cmd, PSC_PROPERTIES.get(cmd.name, {}), "Command")


def command_to_rfh1(cmd: Command) -> list[tuple[str, str]]:
    """The RFH1 name/value pairs of a command, MQPSCommand first, user pairs last."""
    pairs = _to_pairs(cmd, RFH1_PROPERTIES[cmd.name], "MQPSCommand")
    if isinstance(cmd, Publish):
        pairs.extend(cmd.content.name_values)
    return pairs


def _to_pairs(cmd: Command, table: dict[str, _Prop], command_tag: str) -> list[tuple[str, str]]:
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


__all__ = [
    "CONTROL_QUEUE",
    "DEFAULT_STREAM",
    "EMPTY_CONTENT",
    "Command",
    "DelOpt",
    "DeletePub",
    "DeregPub",
    "DeregSub",
    "Interface",
    "PubOpt",
    "PublicationContent",
    "Publish",
    "RegOpt",
    "RegPub",
    "RegSub",
    "ReqUpdate",
    "command_from_psc",
    "command_from_rfh1",
    "command_to_psc",
    "command_to_rfh1",
]
