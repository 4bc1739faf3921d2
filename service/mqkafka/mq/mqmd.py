"""The MQ message descriptor (MQMD) as a validated value, its constants and its binary form.

Reference §6 gives the fields, lengths and MQMD_DEFAULT; the wire contract (§2) overrides two
defaults for this product: ``Encoding`` 546 and ``CodedCharSetId`` 1208, because every
emulated queue manager runs UTF-8 on little-endian hosts.

Canonical form (so that equal descriptors compare equal whatever path built them):

* text fields are stored with trailing blanks removed (the blank padding of the C structure is
  not part of the value) — except ``Format``, which is an 8-character code and is stored
  blank-padded to 8 so that ``md.Format == MQFMT_RF_HEADER_2`` holds;
* ids are exactly 24 bytes (``AccountingToken`` 32);
* integers are MQLONGs (signed 32-bit).

``StrucId`` and ``Version`` are properties of the binary encoding, not of the message: they are
not fields here; ``to_bytes`` always writes version 2 and ``from_bytes`` reads 1 or 2.
"""

from __future__ import annotations

import dataclasses
import struct
from dataclasses import dataclass
from enum import IntEnum, IntFlag
from typing import Any, Final

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC

# --------------------------------------------------------------------------------------------
# Constants (values from reference §6 / pymqi-C)
# --------------------------------------------------------------------------------------------


class MQMT(IntEnum):
    """MsgType."""

    REQUEST = 1
    REPLY = 2
    REPORT = 4
    DATAGRAM = 8
    SYSTEM_FIRST = 1
    SYSTEM_LAST = 65535
    APPL_FIRST = 65536
    APPL_LAST = 999999999


class MQRO(IntFlag):
    """Report options (hex values of reference §6)."""

    NONE = 0
    PAN = 0x1
    NAN = 0x2
    ACTIVITY = 0x4
    PASS_CORREL_ID = 0x40
    PASS_MSG_ID = 0x80
    COA = 0x100
    COA_WITH_DATA = 0x300
    COA_WITH_FULL_DATA = 0x700
    COD = 0x800
    COD_WITH_DATA = 0x1800
    COD_WITH_FULL_DATA = 0x3800
    PASS_DISCARD_AND_EXPIRY = 0x4000
    EXPIRATION = 0x200000
    EXPIRATION_WITH_DATA = 0x600000
    EXPIRATION_WITH_FULL_DATA = 0xE00000
    EXCEPTION = 0x1000000
    EXCEPTION_WITH_DATA = 0x3000000
    EXCEPTION_WITH_FULL_DATA = 0x7000000
    DISCARD_MSG = 0x8000000
    # Zero-valued documentation aliases: the behaviour you get when the other bit is absent.
    COPY_MSG_ID_TO_CORREL_ID = 0
    NEW_MSG_ID = 0
    DEAD_LETTER_Q = 0


MQRO_REJECT_UNSUP_MASK: Final = 0x101C0000
MQRO_ACCEPT_UNSUP_MASK: Final = 0xEFE000FF
MQRO_ACCEPT_UNSUP_IF_XMIT_MASK: Final = 0x0003FF00


class MQPER(IntEnum):
    """Persistence."""

    NOT_PERSISTENT = 0
    PERSISTENT = 1
    PERSISTENCE_AS_Q_DEF = 2


class MQENC(IntEnum):
    """Encoding: an integer part (mask 0xF), a packed-decimal part (0xF0), a float part (0xF00)."""

    INTEGER_UNDEFINED = 0x0
    INTEGER_NORMAL = 0x1  # big-endian
    INTEGER_REVERSED = 0x2  # little-endian
    DECIMAL_NORMAL = 0x10
    DECIMAL_REVERSED = 0x20
    FLOAT_IEEE_NORMAL = 0x100
    FLOAT_IEEE_REVERSED = 0x200
    FLOAT_S390 = 0x300
    INTEGER_MASK = 0xF
    DECIMAL_MASK = 0xF0
    FLOAT_MASK = 0xF00
    NORMAL = 0x111  # 273
    REVERSED = 0x222  # 546
    S390 = 0x311  # 785
    # Platform-specific in MQ; reference §10.17: this emulator emits 546 (x86) and reads any.
    NATIVE = 0x222


class MQFB(IntEnum):
    """Feedback."""

    NONE = 0
    SYSTEM_FIRST = 1
    QUIT = 256
    EXPIRATION = 258
    COA = 259
    COD = 260
    PAN = 275
    NAN = 276
    SYSTEM_LAST = 65535
    APPL_FIRST = 65536
    APPL_LAST = 999999999


class MQAT(IntEnum):
    """PutApplType (only the values this product writes or reads)."""

    UNKNOWN = -1
    NO_CONTEXT = 0
    UNIX = 6
    QMGR = 7
    WINDOWS_NT = 11
    BROKER = 26
    QMGR_PUBLISH = 26
    JAVA = 28


MQFMT_NONE: Final = "        "
MQFMT_STRING: Final = "MQSTR   "
MQFMT_RF_HEADER: Final = "MQHRF   "
MQFMT_RF_HEADER_1: Final = "MQHRF   "
MQFMT_RF_HEADER_2: Final = "MQHRF2  "
MQFMT_ADMIN: Final = "MQADMIN "
MQFMT_PCF: Final = "MQPCF   "
MQFMT_DEAD_LETTER_HEADER: Final = "MQDEAD  "

MQMI_NONE: Final = bytes(24)
MQCI_NONE: Final = bytes(24)
MQGI_NONE: Final = bytes(24)
MQACT_NONE: Final = bytes(32)
MQCI_NEW_SESSION: Final = b"AMQ!NEW_SESSION_CORRELID"

MQEI_UNLIMITED: Final = -1
MQPRI_PRIORITY_AS_Q_DEF: Final = -1
MQOL_UNDEFINED: Final = -1
MQMF_NONE: Final = 0

MQCCSI_UNDEFINED: Final = 0
MQCCSI_Q_MGR: Final = 0
MQCCSI_EMBEDDED: Final = -1
MQCCSI_INHERIT: Final = -2
CCSID_UTF8: Final = 1208
CCSID_UTF16: Final = (1200, 13488, 17584)

MQ_MSG_ID_LENGTH: Final = 24
MQ_ACCOUNTING_TOKEN_LENGTH: Final = 32
MQ_FORMAT_LENGTH: Final = 8
MQMD_LENGTH_1: Final = 324
MQMD_LENGTH_2: Final = 364
MQMD_STRUC_ID: Final = b"MD  "


def is_big_endian(encoding: int) -> bool:
    """Byte order of MQLONGs written in ``encoding`` (reference §5.1).

    Integer part 1 (NORMAL) is big-endian and 2 (REVERSED) little-endian. For any other
    integer part we follow pymqi, whose list of big-endian encodings (1, 16, 256, 768, 17,
    257, 272, 273) includes every value with an undefined integer part: so undefined or
    unknown means big-endian (network order). Decoders that have a structure in hand use
    ``byte_order_of`` instead, which can probe the Version field as pymqi does.
    """
    return (encoding & MQENC.INTEGER_MASK) != MQENC.INTEGER_REVERSED


def byte_order_of(encoding: int, version_field: bytes | None = None) -> str:
    """``">"`` or ``"<"`` for ``struct``: from the integer part when it is defined, otherwise
    (as pymqi) guessed from a structure's 4-byte Version field — small versions have their
    non-zero byte last in big-endian."""
    integer = encoding & MQENC.INTEGER_MASK
    if integer == MQENC.INTEGER_NORMAL:
        return ">"
    if integer == MQENC.INTEGER_REVERSED:
        return "<"
    if version_field is not None and len(version_field) == 4 and version_field[0] != 0:
        return "<"
    return ">"


def codec_for_ccsid(ccsid: int, big_endian: bool) -> str | None:
    """Python codec for a character set id, or None when this product cannot read it.

    0 (``MQCCSI_Q_MGR``) is the emulated queue manager's own CCSID, 1208.
    """
    if ccsid in CCSID_UTF16:
        return "utf-16-be" if big_endian else "utf-16-le"
    return _SINGLE_BYTE_CODECS.get(ccsid)


_SINGLE_BYTE_CODECS: Final = {
    MQCCSI_Q_MGR: "utf-8",
    CCSID_UTF8: "utf-8",
    367: "ascii",
    437: "cp437",
    819: "latin-1",
    850: "cp850",
    1252: "cp1252",
}

# --------------------------------------------------------------------------------------------
# The descriptor
# --------------------------------------------------------------------------------------------

_INT32_MIN: Final = -(2**31)
_INT32_MAX: Final = 2**31 - 1

# Byte-string fields and their exact lengths.
ID_FIELDS: Final = {"MsgId": 24, "CorrelId": 24, "AccountingToken": 32, "GroupId": 24}
# Text fields and their maximum lengths in bytes (UTF-8), from reference §6.
TEXT_FIELDS: Final = {
    "Format": 8,
    "ReplyToQ": 48,
    "ReplyToQMgr": 48,
    "UserIdentifier": 12,
    "ApplIdentityData": 32,
    "PutApplName": 28,
    "PutDate": 8,
    "PutTime": 8,
    "ApplOriginData": 4,
}
INT_FIELDS: Final = (
    "Report",
    "MsgType",
    "Expiry",
    "Feedback",
    "Encoding",
    "CodedCharSetId",
    "Priority",
    "Persistence",
    "BackoutCount",
    "PutApplType",
    "MsgSeqNumber",
    "Offset",
    "MsgFlags",
    "OriginalLength",
)


@dataclass(frozen=True, slots=True)
class MQMD:
    """One message descriptor. Building it validates it; bad values raise MQRC_MD_ERROR with
    ``parm`` naming the field."""

    Report: int = MQRO.NONE
    MsgType: int = MQMT.DATAGRAM
    Expiry: int = MQEI_UNLIMITED
    Feedback: int = MQFB.NONE
    Encoding: int = MQENC.NATIVE
    CodedCharSetId: int = CCSID_UTF8  # wire contract: 1208, not MQCCSI_Q_MGR
    Format: str = MQFMT_NONE
    Priority: int = MQPRI_PRIORITY_AS_Q_DEF
    Persistence: int = MQPER.PERSISTENCE_AS_Q_DEF
    MsgId: bytes = MQMI_NONE
    CorrelId: bytes = MQCI_NONE
    BackoutCount: int = 0
    ReplyToQ: str = ""
    ReplyToQMgr: str = ""
    UserIdentifier: str = ""
    AccountingToken: bytes = MQACT_NONE
    ApplIdentityData: str = ""
    PutApplType: int = MQAT.NO_CONTEXT
    PutApplName: str = ""
    PutDate: str = ""
    PutTime: str = ""
    ApplOriginData: str = ""
    GroupId: bytes = MQGI_NONE
    MsgSeqNumber: int = 1
    Offset: int = 0
    MsgFlags: int = MQMF_NONE
    OriginalLength: int = MQOL_UNDEFINED

    def __post_init__(self) -> None:
        for name in INT_FIELDS:
            value = getattr(self, name)
            if type(value) is not int:
                # IntEnum members are accepted and stored as plain ints (stable repr/eq).
                if not isinstance(value, int) or isinstance(value, bool):
                    raise _md_error(name, f"must be an integer, not {type(value).__name__}")
                object.__setattr__(self, name, int(value))
                value = int(value)
            if not _INT32_MIN <= value <= _INT32_MAX:
                raise _md_error(name, f"{value} does not fit an MQLONG")
        for name, length in ID_FIELDS.items():
            value = getattr(self, name)
            if not isinstance(value, bytes):
                if not isinstance(value, bytearray | memoryview):
                    raise _md_error(name, f"must be bytes, not {type(value).__name__}")
                value = bytes(value)
                object.__setattr__(self, name, value)
            if len(value) != length:
                raise _md_error(name, f"must be {length} bytes, not {len(value)}")
        for name, limit in TEXT_FIELDS.items():
            value = getattr(self, name)
            if not isinstance(value, str):
                raise _md_error(name, f"must be text, not {type(value).__name__}")
            text = value.rstrip(" ")
            if "\x00" in text:
                raise _md_error(name, "contains NUL")
            if text.isascii():
                size = len(text)
            else:
                try:
                    size = len(text.encode("utf-8"))
                except UnicodeEncodeError:
                    raise _md_error(name, "is not encodable as UTF-8") from None
            if size > limit:
                raise _md_error(name, f"is {size} bytes, at most {limit} allowed")
            if name == "Format":
                if not text.isascii():
                    raise _md_error(name, "must be ASCII")
                text = text.ljust(MQ_FORMAT_LENGTH)
            if text is not value:
                object.__setattr__(self, name, text)

    def replace(self, **changes: Any) -> MQMD:
        """A copy with ``changes`` applied (and validated)."""
        return dataclasses.replace(self, **changes)

    @property
    def format_name(self) -> str:
        """``Format`` without its blank padding (``MQHRF2``, ``MQSTR``, ``""``)."""
        return self.Format.rstrip(" ")

    def as_dict(self) -> dict[str, object]:
        """Every field by its MQ name."""
        return {name: getattr(self, name) for name in FIELD_NAMES}

    # ---- binary MQMD version 2 (reference §6 offsets) ----

    def to_bytes(self, encoding: int = MQENC.NATIVE) -> bytes:
        """The 364-byte MQMD v2, integers in the byte order of ``encoding``."""
        order = ">" if is_big_endian(encoding) else "<"
        values: list[object] = [MQMD_STRUC_ID, 2]
        for name, code in _V1_LAYOUT + _V2_TAIL_LAYOUT:
            value = getattr(self, name)
            if name in TEXT_FIELDS:
                value = value.encode("utf-8").ljust(int(code[:-1]), b" ")
            values.append(value)
        return _STRUCTS[order, "v2"].pack(*values)

    @classmethod
    def from_bytes(cls, buf: bytes, encoding: int | None = None) -> MQMD:
        """Read an MQMD version 1 (324 bytes) or 2 (364) from the start of ``buf``.

        Byte order comes from ``encoding`` if given, else it is recognised from the Version
        field (1 or 2 is unambiguous in either order). Bytes after the structure are ignored
        (a dead-letter header or the message data follow it). Anything wrong: MQRC_MD_ERROR.
        """
        data = bytes(buf)
        if len(data) < MQMD_LENGTH_1:
            raise MQError(RC.MD_ERROR, f"MQMD needs {MQMD_LENGTH_1} bytes, got {len(data)}")
        if data[:4] != MQMD_STRUC_ID:
            raise MQError(RC.MD_ERROR, f"MQMD StrucId is {data[:4]!r}, not b'MD  '")
        order = byte_order_of(encoding if encoding is not None else 0, data[4:8])
        (version,) = struct.unpack_from(order + "i", data, 4)
        if version not in (1, 2):
            raise MQError(RC.MD_ERROR, f"MQMD Version {version} is not 1 or 2")
        if version == 2 and len(data) < MQMD_LENGTH_2:
            raise MQError(RC.MD_ERROR, f"MQMD v2 needs {MQMD_LENGTH_2} bytes, got {len(data)}")
        fields = _STRUCTS[order, "v1"].unpack_from(data)
        values: dict[str, Any] = {}
        for name, raw in zip(_V1_NAMES, fields[2:], strict=True):
            values[name] = _text(name, raw) if name in TEXT_FIELDS else raw
        if version == 2:
            tail = _STRUCTS[order, "tail"].unpack_from(data, MQMD_LENGTH_1)
            values.update(zip(_V2_TAIL_NAMES, tail, strict=True))
        return cls(**values)


FIELD_NAMES: Final = tuple(f.name for f in dataclasses.fields(MQMD))
MQMD_DEFAULT: Final = MQMD()

# struct layouts: names after StrucId/Version, in offset order.
_V1_LAYOUT: Final = (
    ("Report", "i"),
    ("MsgType", "i"),
    ("Expiry", "i"),
    ("Feedback", "i"),
    ("Encoding", "i"),
    ("CodedCharSetId", "i"),
    ("Format", "8s"),
    ("Priority", "i"),
    ("Persistence", "i"),
    ("MsgId", "24s"),
    ("CorrelId", "24s"),
    ("BackoutCount", "i"),
    ("ReplyToQ", "48s"),
    ("ReplyToQMgr", "48s"),
    ("UserIdentifier", "12s"),
    ("AccountingToken", "32s"),
    ("ApplIdentityData", "32s"),
    ("PutApplType", "i"),
    ("PutApplName", "28s"),
    ("PutDate", "8s"),
    ("PutTime", "8s"),
    ("ApplOriginData", "4s"),
)
_V2_TAIL_LAYOUT: Final = (
    ("GroupId", "24s"),
    ("MsgSeqNumber", "i"),
    ("Offset", "i"),
    ("MsgFlags", "i"),
    ("OriginalLength", "i"),
)
_V1_NAMES: Final = tuple(name for name, _ in _V1_LAYOUT)
_V2_TAIL_NAMES: Final = tuple(name for name, _ in _V2_TAIL_LAYOUT)
_V1_CODES: Final = "4si" + "".join(code for _, code in _V1_LAYOUT)
_V2_TAIL_CODES: Final = "".join(code for _, code in _V2_TAIL_LAYOUT)
_STRUCTS: Final = {
    (order, kind): struct.Struct(order + codes)
    for order in "<>"
    for kind, codes in (
        ("v1", _V1_CODES),
        ("v2", _V1_CODES + _V2_TAIL_CODES),
        ("tail", _V2_TAIL_CODES),
    )
}
assert _STRUCTS["<", "v1"].size == MQMD_LENGTH_1
assert _STRUCTS["<", "v2"].size == MQMD_LENGTH_2


def _text(name: str, raw: bytes) -> str:
    """A blank-padded C character field: a NUL ends it, trailing blanks are padding."""
    significant = raw.split(b"\x00", 1)[0]
    try:
        return significant.decode("utf-8").rstrip(" ")
    except UnicodeDecodeError:
        raise _md_error(name, "is not valid UTF-8") from None


def _md_error(name: str, problem: str) -> MQError:
    return MQError(RC.MD_ERROR, f"MQMD.{name} {problem}", parm=name)
