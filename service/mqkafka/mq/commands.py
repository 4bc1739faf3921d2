"""The queued pub/sub commands (reference §2) as typed values: what each command holds.

A command is a frozen value that has already passed every check that needs only the command
message itself (reference §2.1, §2.5, §2.6). Building one checks its mandatory properties
(2339), option values and combinations (3083 / 3084 / 3087) and a non-zero CorrelId with
``CorrelAsId`` (3080); reading the message (``mqkafka.mq.commandparse``) checks the first-tag
``Command`` (2336; none at all, 2339), known properties (2337) and repetition (2338). Checks
that need the broker's state (identities, names, retained publications) belong to the engine.

Each command keeps the interface it came from (RFH2 ``<psc>`` or RFH1 name/value string): that
chooses the wildcard scheme (reference §10.16) and the format of replies and deliveries.
``mqkafka.mq.commandrender`` writes a command back as pairs. The options are
``mqkafka.mq.commandoptions``' flags, exported here too as the types of the commands' fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from mqkafka.mq.commandoptions import (
    DelOpt,
    Interface,
    PubOpt,
    RegOpt,
    check_del_options,
    check_pub_options,
    check_reg_options,
)
from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import MQMD, MQMD_DEFAULT
from mqkafka.mq.reasons import RC

CONTROL_QUEUE = "SYSTEM.BROKER.CONTROL.QUEUE"
DEFAULT_STREAM = "SYSTEM.BROKER.DEFAULT.STREAM"
ZERO_ID = bytes(24)
_CORREL_BIT = int(RegOpt.CORREL_ID_AS_IDENTITY)  # same bit for MQPUBO_CORREL_ID_AS_IDENTITY


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


__all__ = [
    "CONTROL_QUEUE",
    "DEFAULT_STREAM",
    "EMPTY_CONTENT",
    "ZERO_ID",
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
]
