"""The MQI structures (MD, OD, PMO, GMO, SD, CNO), shaped like pymqi's.

Mutable, as in pymqi: build with keywords (``GMO(Options=...)``), then read and write
fields as attributes (``md.Format = CMQC.MQFMT_STRING``) or items (``md["Format"]``).
Field names and initial values are MQ's (pymqi's lists, which follow the MQI's
``MQxx_DEFAULT`` initialisers); the C-only members (pointers, offsets, reserved padding
and distribution-list counters) are left out because there is no C layer underneath.

Unlike pymqi, every assignment is checked, so bad input fails at the line that caused it
with the structure's own reason code rather than later inside the queue manager:

- an unknown field name raises :class:`StructFieldError` (also an ``AttributeError``, which
  is what pymqi raises);
- a character field takes ``bytes`` or ``str`` (stored as UTF-8 bytes, pymqi's Python 3
  convention) no longer than MQ's fixed length;
- a numeric field takes an ``int`` (a ``bool`` is refused: it is always a mistake here).

Character fields keep what the caller stored (pymqi pads only when packing for C);
:func:`mqchars` gives the significant part (up to the first NUL, trailing blanks removed).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import FIELD_NAMES, ID_FIELDS, MQMD, TEXT_FIELDS
from mqkafka.mq.reasons import RC
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.errors import MQMIError, StructFieldError

_LENGTH = "length"
# MQCHARV fields (ObjectString, SubName ...) are variable length; these caps are MQ's.
_VS_CAP = C.MQ_TOPIC_STR_LENGTH


def _chars(length: int, default: bytes = b"") -> bytes:
    """A fixed-length MQCHAR field (``MQCHAR48`` ...), or a capped MQCHARV field."""
    value: bytes = field(default=default, metadata={_LENGTH: length})
    return value


def mqchars(value: bytes | str) -> str:
    """The significant part of an MQ character field: up to the first NUL, blanks trimmed."""
    raw = value.encode() if isinstance(value, str) else value
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace").rstrip(" ")


_DEFAULTS: dict[type, dict[str, object]] = {}
_LIMITS: dict[type, dict[str, int | None]] = {}


def _defaults(struct: type[MQStruct]) -> dict[str, object]:
    if struct not in _DEFAULTS:  # once per class: fields() is slow
        _DEFAULTS[struct] = {spec.name: spec.default for spec in fields(struct)}
    return _DEFAULTS[struct]


def _limits(struct: type[MQStruct]) -> dict[str, int | None]:
    """Field name -> maximum length in bytes, or None for a numeric field."""
    if struct not in _LIMITS:
        _LIMITS[struct] = {
            spec.name: None if isinstance(spec.default, int) else spec.metadata[_LENGTH]
            for spec in fields(struct)
        }
    return _LIMITS[struct]


@dataclass(init=False)
class MQStruct:
    """Common behaviour: keyword construction, checked assignment, pymqi's helpers."""

    # Reason code for a bad member of this structure (MQRC_MD_ERROR, MQRC_OD_ERROR ...).
    _reason: ClassVar[int] = RC.OPTIONS_ERROR

    def __init__(self, **kw: Any) -> None:
        self.__dict__.update(_defaults(type(self)))  # known-good values: no checks needed
        self.set(**kw)

    def __setattr__(self, name: str, value: object) -> None:
        object.__setattr__(self, name, self._checked(name, value))

    def _checked(self, name: str, value: object) -> object:
        struct = type(self).__name__
        try:
            limit = _limits(type(self))[name]
        except KeyError:
            raise StructFieldError(2, self._reason, f"{struct} has no field {name!r}") from None
        if limit is None:  # a numeric field
            if isinstance(value, bool) or not isinstance(value, int):
                raise StructFieldError(2, self._reason, f"{struct}.{name} must be an int")
            return int(value)
        if isinstance(value, str):
            value = value.encode()
        if not isinstance(value, bytes | bytearray):
            raise StructFieldError(2, self._reason, f"{struct}.{name} must be bytes or str")
        if len(value) > limit:
            raise StructFieldError(
                2, self._reason, f"{struct}.{name} is {len(value)} bytes, at most {limit}"
            )
        return bytes(value)

    def set(self, **kw: Any) -> None:
        """Set several fields at once, as pymqi's ``set(**kw)``."""
        for name, value in kw.items():
            setattr(self, name, value)

    def get(self) -> dict[str, Any]:
        """All fields as a dict keyed by MQ field name, as pymqi's ``get()``."""
        return {name: getattr(self, name) for name in _defaults(type(self))}

    def __getitem__(self, name: str) -> Any:
        if name not in _limits(type(self)):
            raise StructFieldError(2, self._reason, f"{type(self).__name__} has no {name!r}")
        return getattr(self, name)

    def __setitem__(self, name: str, value: object) -> None:
        setattr(self, name, value)

    def set_vs(self, name: str, value: bytes | str, *_ignored: int) -> None:
        """pymqi's way to set an MQCHARV field (``sd.set_vs("ObjectString", b"a/b")``).

        The offset/buffer/CCSID arguments of pymqi's signature only matter in C; ignored.
        """
        setattr(self, name.removesuffix("VSPtr"), value)

    def get_vs(self, name: str) -> bytes:
        """pymqi's way to read an MQCHARV field."""
        value: bytes = self[name.removesuffix("VSPtr")]
        return value

    def __str__(self) -> str:
        return "\n".join(f"{name}: {value!r}" for name, value in self.get().items())


@dataclass(init=False)
class MD(MQStruct):
    """MQMD, the message descriptor (reference §6); pymqi's initial values."""

    _reason: ClassVar[int] = RC.MD_ERROR

    StrucId: bytes = _chars(4, C.MQMD_STRUC_ID)
    Version: int = C.MQMD_VERSION_1
    Report: int = C.MQRO_NONE
    MsgType: int = C.MQMT_DATAGRAM
    Expiry: int = C.MQEI_UNLIMITED
    Feedback: int = C.MQFB_NONE
    Encoding: int = C.MQENC_NATIVE
    CodedCharSetId: int = C.MQCCSI_Q_MGR
    Format: bytes = _chars(C.MQ_FORMAT_LENGTH)
    Priority: int = C.MQPRI_PRIORITY_AS_Q_DEF
    Persistence: int = C.MQPER_PERSISTENCE_AS_Q_DEF
    MsgId: bytes = _chars(C.MQ_MSG_ID_LENGTH)
    CorrelId: bytes = _chars(C.MQ_CORREL_ID_LENGTH)
    BackoutCount: int = 0
    ReplyToQ: bytes = _chars(C.MQ_Q_NAME_LENGTH)
    ReplyToQMgr: bytes = _chars(C.MQ_Q_MGR_NAME_LENGTH)
    UserIdentifier: bytes = _chars(C.MQ_USER_ID_LENGTH)
    AccountingToken: bytes = _chars(C.MQ_ACCOUNTING_TOKEN_LENGTH)
    ApplIdentityData: bytes = _chars(C.MQ_APPL_IDENTITY_DATA_LENGTH)
    PutApplType: int = C.MQAT_NO_CONTEXT
    PutApplName: bytes = _chars(C.MQ_PUT_APPL_NAME_LENGTH)
    PutDate: bytes = _chars(C.MQ_PUT_DATE_LENGTH)
    PutTime: bytes = _chars(C.MQ_PUT_TIME_LENGTH)
    ApplOriginData: bytes = _chars(C.MQ_APPL_ORIGIN_DATA_LENGTH)
    GroupId: bytes = _chars(C.MQ_GROUP_ID_LENGTH)
    MsgSeqNumber: int = 1
    Offset: int = 0
    MsgFlags: int = C.MQMF_NONE
    OriginalLength: int = C.MQOL_UNDEFINED

    def to_mqmd(self) -> MQMD:
        """The product's frozen descriptor: ids NUL-padded to their length (as C packs
        them), text cut at a NUL with padding blanks removed; ``MQRC_MD_ERROR`` if invalid.
        """
        values: dict[str, object] = {}
        for name in FIELD_NAMES:
            value = getattr(self, name)
            if name in ID_FIELDS:
                value = value.ljust(ID_FIELDS[name], b"\0")
            elif name in TEXT_FIELDS:
                try:
                    value = value.split(b"\0", 1)[0].decode("utf-8")
                except UnicodeDecodeError:
                    raise MQMIError(2, RC.MD_ERROR, f"MD.{name} is not UTF-8") from None
            values[name] = value
        try:
            return MQMD(**values)  # type: ignore[arg-type]
        except MQError as error:
            raise MQMIError(2, error.reason, error.detail) from error

    @classmethod
    def from_mqmd(cls, mqmd: MQMD) -> MD:
        """An MD holding ``mqmd`` (Version 2: the descriptor carries the version-2 fields)."""
        values = {
            name: value.encode() if isinstance(value, str) else value
            for name, value in mqmd.as_dict().items()
        }
        return cls(Version=C.MQMD_VERSION_2, **values)


@dataclass(init=False)
class OD(MQStruct):
    """MQOD, the object descriptor. ``DynamicQName`` starts as ``AMQ.*`` (reference §9.5)."""

    _reason: ClassVar[int] = RC.OD_ERROR

    StrucId: bytes = _chars(4, C.MQOD_STRUC_ID)
    Version: int = C.MQOD_VERSION_1
    ObjectType: int = C.MQOT_Q
    ObjectName: bytes = _chars(C.MQ_OBJECT_NAME_LENGTH)
    ObjectQMgrName: bytes = _chars(C.MQ_Q_MGR_NAME_LENGTH)
    DynamicQName: bytes = _chars(C.MQ_Q_NAME_LENGTH, b"AMQ.*")
    AlternateUserId: bytes = _chars(C.MQ_USER_ID_LENGTH)
    AlternateSecurityId: bytes = _chars(C.MQ_SECURITY_ID_LENGTH)
    ResolvedQName: bytes = _chars(C.MQ_Q_NAME_LENGTH)
    ResolvedQMgrName: bytes = _chars(C.MQ_Q_MGR_NAME_LENGTH)
    ObjectString: bytes = _chars(_VS_CAP)
    SelectionString: bytes = _chars(C.MQ_SELECTOR_LENGTH)
    ResObjectString: bytes = _chars(_VS_CAP)


@dataclass(init=False)
class PMO(MQStruct):
    """MQPMO, the put-message options."""

    _reason: ClassVar[int] = RC.PMO_ERROR

    StrucId: bytes = _chars(4, C.MQPMO_STRUC_ID)
    Version: int = C.MQPMO_VERSION_1
    Options: int = C.MQPMO_NONE
    Timeout: int = -1
    Context: int = 0
    KnownDestCount: int = 0
    UnknownDestCount: int = 0
    InvalidDestCount: int = 0
    ResolvedQName: bytes = _chars(C.MQ_Q_NAME_LENGTH)
    ResolvedQMgrName: bytes = _chars(C.MQ_Q_MGR_NAME_LENGTH)
    OriginalMsgHandle: int = 0
    NewMsgHandle: int = 0
    Action: int = 0  # MQACTP_NEW
    # MQPMO_DEFAULT's PubLevel is 9 (the highest); pymqi 1.x writes 0, which would make a
    # publication invisible to every subscription with SubLevel >= 1. MQ's value is kept.
    PubLevel: int = 9


@dataclass(init=False)
class GMO(MQStruct):
    """MQGMO, the get-message options. MatchOptions defaults to MSG_ID|CORREL_ID (§9.2)."""

    _reason: ClassVar[int] = RC.GMO_ERROR

    StrucId: bytes = _chars(4, C.MQGMO_STRUC_ID)
    Version: int = C.MQGMO_VERSION_1
    Options: int = C.MQGMO_NO_WAIT
    WaitInterval: int = 0
    Signal1: int = 0
    Signal2: int = 0
    ResolvedQName: bytes = _chars(C.MQ_Q_NAME_LENGTH)
    MatchOptions: int = C.MQMO_MATCH_MSG_ID | C.MQMO_MATCH_CORREL_ID
    GroupStatus: int = C.MQGS_NOT_IN_GROUP
    SegmentStatus: int = C.MQSS_NOT_A_SEGMENT
    Segmentation: int = C.MQSEG_INHIBITED
    Reserved1: bytes = _chars(1, b" ")
    MsgToken: bytes = _chars(C.MQ_MSG_TOKEN_LENGTH)
    ReturnedLength: int = C.MQRL_UNDEFINED
    Reserved2: int = 0
    MsgHandle: int = 0


@dataclass(init=False)
class SD(MQStruct):
    """MQSD, the subscription descriptor."""

    _reason: ClassVar[int] = RC.SD_ERROR

    StrucId: bytes = _chars(4, C.MQSD_STRUC_ID)
    Version: int = C.MQSD_VERSION_1
    Options: int = C.MQSO_NON_DURABLE
    ObjectName: bytes = _chars(C.MQ_TOPIC_NAME_LENGTH)
    AlternateUserId: bytes = _chars(C.MQ_USER_ID_LENGTH)
    AlternateSecurityId: bytes = _chars(C.MQ_SECURITY_ID_LENGTH, C.MQSID_NONE)
    SubExpiry: int = C.MQEI_UNLIMITED
    ObjectString: bytes = _chars(_VS_CAP)
    SubName: bytes = _chars(_VS_CAP)
    SubUserData: bytes = _chars(_VS_CAP)
    SubCorrelId: bytes = _chars(C.MQ_CORREL_ID_LENGTH, C.MQCI_NONE)
    PubPriority: int = C.MQPRI_PRIORITY_AS_Q_DEF
    PubAccountingToken: bytes = _chars(C.MQ_ACCOUNTING_TOKEN_LENGTH, C.MQACT_NONE)
    PubApplIdentityData: bytes = _chars(C.MQ_APPL_IDENTITY_DATA_LENGTH)
    SelectionString: bytes = _chars(C.MQ_SELECTOR_LENGTH)
    # MQSD_DEFAULT's SubLevel is 1; pymqi 1.x writes 0, a level no publication is put at.
    SubLevel: int = 1
    ResObjectString: bytes = _chars(_VS_CAP)


@dataclass(init=False)
class CNO(MQStruct):
    """MQCNO, the connect options (MQCONNX)."""

    _reason: ClassVar[int] = C.MQRC_CNO_ERROR

    StrucId: bytes = _chars(4, C.MQCNO_STRUC_ID)
    Version: int = C.MQCNO_VERSION_1
    Options: int = C.MQCNO_NONE
    ConnTag: bytes = _chars(C.MQ_CONN_TAG_LENGTH)
    ConnectionId: bytes = _chars(C.MQ_CONNECTION_ID_LENGTH)
    ApplName: bytes = _chars(C.MQ_APPL_NAME_LENGTH)


@dataclass(init=False)
class SRO(MQStruct):
    """MQSRO, the subscription request options (MQSUBRQ)."""

    _reason: ClassVar[int] = 2438  # MQRC_SRO_ERROR

    StrucId: bytes = _chars(4, b"SRO ")
    Version: int = 1
    Options: int = C.MQSRO_FAIL_IF_QUIESCING
    NumPubs: int = 0


# pymqi's lower-case aliases, kept for code written against old pymqi.
md, od, pmo, gmo = MD, OD, PMO, GMO

__all__ = ["CNO", "GMO", "MD", "OD", "PMO", "SD", "SRO", "MQStruct", "mqchars"]
