"""Binary MQOD, MQPMO and MQGMO (every version, either byte order) and the MQMD's binary
form as the channel carries it (version 1 or 2, through :mod:`mqkafka.mq.mqmd`).

The layouts are the MQI reference's (notes a.8): MQOD v1 168, v2 200, v3 336, v4 400 bytes;
MQPMO v1 128, v2 152, v3 176; MQGMO v1 72, v2 80, v3 100, v4 112. A decoded structure is a
:class:`WireStruct`: its version and every field by name, pointers, counters and reserved
bytes included, so that the reply gives back what the client sent with the changed fields
over it. :meth:`WireStruct.to_mqi` makes the MQI's structure (:mod:`mqkafka.mqi.rules.structs`)
from the fields it knows, :meth:`WireStruct.updated` takes them back after the call.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Final

from mqkafka.channel.codec.segments import STATUS_INVALID_DATA, ChannelError
from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import MQMD, MQMD_STRUC_ID
from mqkafka.mqi.rules.structs import GMO, MD, OD, PMO, MQStruct

Layout = tuple[tuple[str, str], ...]  # (field, struct code) in offset order


def _charv(name: str) -> Layout:
    """An MQCHARV as it travels from a 32-bit layout: pointer, offset, buffer size, length,
    CCSID (20 bytes); the string itself is not inside the structure."""
    parts = ("Ptr", "Offset", "BufSize", "Length", "CCSID")
    return tuple((f"{name}.{part}", "i") for part in parts)


OD_VERSIONS: Final[tuple[Layout, ...]] = (
    (
        ("StrucId", "4s"),
        ("Version", "i"),
        ("ObjectType", "i"),
        ("ObjectName", "48s"),
        ("ObjectQMgrName", "48s"),
        ("DynamicQName", "48s"),
        ("AlternateUserId", "12s"),
    ),
    (
        ("RecsPresent", "i"),
        ("KnownDestCount", "i"),
        ("UnknownDestCount", "i"),
        ("InvalidDestCount", "i"),
        ("ObjectRecOffset", "i"),
        ("ResponseRecOffset", "i"),
        ("ObjectRecPtr", "i"),
        ("ResponseRecPtr", "i"),
    ),
    (("AlternateSecurityId", "40s"), ("ResolvedQName", "48s"), ("ResolvedQMgrName", "48s")),
    _charv("ObjectString") + _charv("SelectionString") + _charv("ResObjectString")
    + (("ResolvedType", "i"),),
)  # fmt: skip
PMO_VERSIONS: Final[tuple[Layout, ...]] = (
    (
        ("StrucId", "4s"),
        ("Version", "i"),
        ("Options", "i"),
        ("Timeout", "i"),
        ("Context", "i"),
        ("KnownDestCount", "i"),
        ("UnknownDestCount", "i"),
        ("InvalidDestCount", "i"),
        ("ResolvedQName", "48s"),
        ("ResolvedQMgrName", "48s"),
    ),
    (
        ("RecsPresent", "i"),
        ("PutMsgRecFields", "i"),
        ("PutMsgRecOffset", "i"),
        ("ResponseRecOffset", "i"),
        ("PutMsgRecPtr", "i"),
        ("ResponseRecPtr", "i"),
    ),
    (("OriginalMsgHandle", "q"), ("NewMsgHandle", "q"), ("Action", "i"), ("PubLevel", "i")),
)
GMO_VERSIONS: Final[tuple[Layout, ...]] = (
    (
        ("StrucId", "4s"),
        ("Version", "i"),
        ("Options", "i"),
        ("WaitInterval", "i"),
        ("Signal1", "i"),
        ("Signal2", "i"),
        ("ResolvedQName", "48s"),
    ),
    (
        ("MatchOptions", "i"),
        ("GroupStatus", "B"),
        ("SegmentStatus", "B"),
        ("Segmentation", "B"),
        ("Reserved1", "1s"),
    ),
    (("MsgToken", "16s"), ("ReturnedLength", "i")),
    (("Reserved2", "i"), ("MsgHandle", "q")),
)


@dataclass(frozen=True)
class Kind:
    """One structure type: its eye-catcher, versions and MQI class."""

    name: str
    struc_id: bytes
    versions: tuple[Layout, ...]
    mqi: type[MQStruct]
    binary: frozenset[str] = frozenset()  # character fields that are not text

    def size(self, version: int) -> int:
        return self.codes(version, "<").size

    def codes(self, version: int, order: str) -> struct.Struct:
        key = (self.name, version, order)  # hashing the layouts themselves costs a call ~1 us
        found = _CODES.get(key)
        if found is None:
            layout = "".join(c for lay in self.versions[:version] for _, c in lay)
            found = _CODES[key] = struct.Struct(order + layout)
        return found

    def names(self, version: int) -> tuple[str, ...]:
        key = (self.name, version)
        found = _NAMES.get(key)
        if found is None:
            found = _NAMES[key] = tuple(n for lay in self.versions[:version] for n, _ in lay)
        return found


_CODES: dict[tuple[str, int, str], struct.Struct] = {}
_NAMES: dict[tuple[str, int], tuple[str, ...]] = {}


OD_KIND: Final = Kind("MQOD", b"OD  ", OD_VERSIONS, OD, frozenset({"AlternateSecurityId"}))
PMO_KIND: Final = Kind("MQPMO", b"PMO ", PMO_VERSIONS, PMO)
GMO_KIND: Final = Kind("MQGMO", b"GMO ", GMO_VERSIONS, GMO, frozenset({"MsgToken", "Reserved1"}))
assert [OD_KIND.size(v) for v in (1, 2, 3, 4)] == [168, 200, 336, 400]
assert [PMO_KIND.size(v) for v in (1, 2, 3)] == [128, 152, 176]
assert [GMO_KIND.size(v) for v in (1, 2, 3, 4)] == [72, 80, 100, 112]


@dataclass
class WireStruct:
    """A decoded structure: its kind, version and every field (bytes kept as sent)."""

    kind: Kind
    version: int
    values: dict[str, int | bytes] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return self.kind.size(self.version)

    def __getitem__(self, name: str) -> int | bytes:
        return self.values[name]

    def int(self, name: str) -> int:
        value = self.values[name]
        assert isinstance(value, int)
        return value

    def to_bytes(self, order: str) -> bytes:
        names = self.kind.names(self.version)
        return self.kind.codes(self.version, order).pack(*(self.values[n] for n in names))

    def to_mqi(self) -> MQStruct:
        """The MQI's structure from the fields it has (text without its blank padding)."""
        out = self.kind.mqi()
        fields = out.__dict__
        values = self.values
        # unpacked at the structure's own widths and types: what MQStruct's checks accept
        for name, text in _plan(self.kind, self.version).mqi_fields:
            value = values[name]
            if text:
                value = value.split(b"\0", 1)[0].rstrip(b" ")  # type: ignore[union-attr]
            fields[name] = value
        return out

    def updated(self, mqi: MQStruct) -> WireStruct:
        """This structure with the MQI structure's output fields over it (same version)."""
        values = dict(self.values)
        fields = mqi.__dict__
        for name, width, pad in _plan(self.kind, self.version).outputs:
            value = fields[name]
            if width and isinstance(value, bytes):
                value = value[:width].ljust(width, pad)
            values[name] = value
        return WireStruct(self.kind, self.version, values)


@dataclass(frozen=True)
class _Plan:
    """What to_mqi and updated do with each field of one kind and version, worked out once
    (per call, the generic loops cost a Java MQPUT through the listener ~30 us)."""

    mqi_fields: tuple[tuple[str, bool], ...]  # (name, text to strip) the MQI class has
    outputs: tuple[tuple[str, int, bytes], ...]  # (name, width (0: a number), pad)


def _plan(kind: Kind, version: int) -> _Plan:
    found = _PLANS.get((kind.name, version))
    if found is None:
        found = _PLANS[kind.name, version] = _make_plan(kind, version)
    return found


_PLANS: dict[tuple[str, int], _Plan] = {}


def _make_plan(kind: Kind, version: int) -> _Plan:
    known = kind.mqi().__dict__
    mqi_fields: list[tuple[str, bool]] = []
    outputs: list[tuple[str, int, bytes]] = []
    for layout in kind.versions[:version]:
        for name, code in layout:
            if name not in known or name == "StrucId":
                continue
            text = code.endswith("s") and name not in kind.binary
            mqi_fields.append((name, text))
            if name == "Version":
                continue
            width = int(code[:-1]) if code.endswith("s") else 0
            outputs.append((name, width, b"\0" if name in kind.binary else b" "))
    return _Plan(tuple(mqi_fields), tuple(outputs))


def parse_struct(kind: Kind, data: bytes, order: str, at: int = 0) -> WireStruct:
    """The structure of ``kind`` at ``at``; wrong id, version or length → ChannelError."""
    if len(data) < at + 8 or data[at : at + 4] != kind.struc_id:
        raise ChannelError(STATUS_INVALID_DATA, f"{kind.name} expected at offset {at}")
    (version,) = struct.unpack_from(order + "i", data, at + 4)
    if not 1 <= version <= len(kind.versions):
        raise ChannelError(STATUS_INVALID_DATA, f"{kind.name} version {version}")
    size = kind.size(version)
    if len(data) < at + size:
        raise ChannelError(STATUS_INVALID_DATA, f"{kind.name} v{version} cut short")
    fields = kind.codes(version, order).unpack_from(data, at)
    return WireStruct(kind, version, dict(zip(kind.names(version), fields, strict=True)))


def new_struct(kind: Kind, version: int, order: str, **values: int | bytes) -> WireStruct:
    """A structure of ``kind`` at ``version`` from the MQI's defaults and ``values``."""
    base = WireStruct(kind, version, {})
    zeros = kind.codes(version, order).unpack(bytes(kind.size(version)))
    base.values = dict(zip(kind.names(version), zeros, strict=True))
    base.values.update(StrucId=kind.struc_id, Version=version)
    mqi = kind.mqi()
    for name, value in values.items():
        setattr(mqi, name, value)
    return base.updated(mqi)


# ---- MQMD ------------------------------------------------------------------------------

MD_VERSIONS: Final[tuple[Layout, ...]] = (
    (
        ("StrucId", "4s"), ("Version", "i"), ("Report", "i"), ("MsgType", "i"),
        ("Expiry", "i"), ("Feedback", "i"), ("Encoding", "i"), ("CodedCharSetId", "i"),
        ("Format", "8s"), ("Priority", "i"), ("Persistence", "i"), ("MsgId", "24s"),
        ("CorrelId", "24s"), ("BackoutCount", "i"), ("ReplyToQ", "48s"),
        ("ReplyToQMgr", "48s"), ("UserIdentifier", "12s"), ("AccountingToken", "32s"),
        ("ApplIdentityData", "32s"), ("PutApplType", "i"), ("PutApplName", "28s"),
        ("PutDate", "8s"), ("PutTime", "8s"), ("ApplOriginData", "4s"),
    ),
    (
        ("GroupId", "24s"), ("MsgSeqNumber", "i"), ("Offset", "i"), ("MsgFlags", "i"),
        ("OriginalLength", "i"),
    ),
)  # fmt: skip
MD_KIND: Final = Kind(
    "MQMD", MQMD_STRUC_ID, MD_VERSIONS, MD,
    frozenset({"MsgId", "CorrelId", "AccountingToken", "GroupId", "Format"}),
)  # fmt: skip

MD_V1_LENGTH: Final = 324
MD_V2_LENGTH: Final = 364


def md_version(data: bytes, order: str, at: int = 0) -> int:
    if len(data) < at + 8 or data[at : at + 4] != MQMD_STRUC_ID:
        raise ChannelError(STATUS_INVALID_DATA, f"MQMD expected at offset {at}")
    (version,) = struct.unpack_from(order + "i", data, at + 4)
    if version not in (1, 2):
        raise ChannelError(STATUS_INVALID_DATA, f"MQMD version {version}")
    return int(version)


def parse_md(data: bytes, order: str, at: int = 0) -> tuple[MD, int]:
    """The MQI's MD from a binary MQMD at ``at`` and its size (324 or 364)."""
    version = md_version(data, order, at)
    encoding = 0x111 if order == ">" else 0x222
    try:
        mqmd = MQMD.from_bytes(data[at:], encoding)
    except MQError as error:
        raise ChannelError(STATUS_INVALID_DATA, f"MQMD: {error.detail}") from None
    md = MD.from_mqmd(mqmd)
    md.Version = version
    return md, MD_V1_LENGTH if version == 1 else MD_V2_LENGTH


def md_bytes(md: MD, order: str, version: int) -> bytes:
    """An MD as a binary MQMD of ``version`` (1: the first 324 bytes, Version 1)."""
    encoding = 0x111 if order == ">" else 0x222
    full = bytearray(md.to_mqmd().to_bytes(encoding))
    if version == 1:
        del full[MD_V1_LENGTH:]
        struct.pack_into(order + "i", full, 4, 1)
    return bytes(full)


# The fast MQMD path: the generic layout codec instead of the validated MQMD value and back
# (bench_channel: a Java MQPUT through the listener spent 0.2 ms of its 0.7 ms in
# parse_md + md_bytes). test_channel_codec compares the two paths.


def parse_md_fast(data: bytes, order: str, at: int = 0) -> tuple[MD, int]:
    """As :func:`parse_md`, without the MQMD value's checks (the MQI checks what it uses):
    the fields go straight from the unpacked tuple into the MD (no structure in between).

    An MQMD that differs from one seen lately only in its MsgId (a stream of puts: IBM's
    client numbers its async puts' MsgIds itself) is copied from that one's fields, its
    MsgId put in: ~1 us instead of ~3 (test_channel_asyncput compares the two)."""
    version = md_version(data, order, at)  # the MQMD's own id and version errors
    codes = MD_KIND.codes(version, order)
    end = at + codes.size
    if len(data) < end:
        raise ChannelError(STATUS_INVALID_DATA, f"MQMD v{version} cut short")
    key = (order, bytes(data[at : at + _MSG_ID_AT]), bytes(data[at + _MSG_ID_END : end]))
    seen = _SEEN.get(key)
    if seen is not None:
        md: MD = _new(MD)
        md.__dict__.update(seen)
        md.__dict__["MsgId"] = bytes(data[at + _MSG_ID_AT : at + _MSG_ID_END])
        return md, codes.size
    values = codes.unpack_from(data, at)
    md = MD()
    fields = md.__dict__
    for index, name, text in _md_fields(version):
        value = values[index]
        fields[name] = value.split(b"\0", 1)[0].rstrip(b" ") if text else value
    if version == 1:
        fields["GroupId"] = bytes(24)  # as the MQMD value has it: no group
    if len(_SEEN) >= _SEEN_MAX:
        _SEEN.clear()
    _SEEN[key] = dict(fields)
    return md, codes.size


_MSG_ID_AT: Final = 48  # MQMD.MsgId's offset (24 bytes)
_MSG_ID_END: Final = 72
_SEEN: dict[tuple[str, bytes, bytes], dict[str, object]] = {}
_SEEN_MAX: Final = 256
_new = object.__new__


def _md_fields(version: int) -> tuple[tuple[int, str, bool], ...]:
    """(index in the unpacked tuple, name, text to strip) of each MQMD field but StrucId."""
    found = _MD_FIELDS.get(version)
    if found is None:
        index = {name: i for i, name in enumerate(MD_KIND.names(version))}
        plan = _plan(MD_KIND, version).mqi_fields
        found = _MD_FIELDS[version] = tuple((index[n], n, text) for n, text in plan)
    return found


_MD_FIELDS: dict[int, tuple[tuple[int, str, bool], ...]] = {}


def md_bytes_fast(md: MD, order: str, version: int) -> bytes:
    """As :func:`md_bytes`, from the MD's fields as they are (text blank-padded, ids
    NUL-padded to their widths)."""
    fields = md.__dict__
    values: list[int | bytes] = [MQMD_STRUC_ID, version]
    for name, width, pad in _md_plan(version):
        value = fields[name]
        if width:
            value = value[:width].ljust(width, pad)
        values.append(value)
    return MD_KIND.codes(version, order).pack(*values)


def _md_plan(version: int) -> tuple[tuple[str, int, bytes], ...]:
    """(name, width (0: a number), pad) of each MQMD field after StrucId and Version."""
    found = _MD_PLANS.get(version)
    if found is None:
        plan = []
        for layout in MD_VERSIONS[:version]:
            for name, code in layout:
                if name in ("StrucId", "Version"):
                    continue
                width = int(code[:-1]) if code.endswith("s") else 0
                binary = name in MD_KIND.binary and name != "Format"
                plan.append((name, width, b"\0" if binary else b" "))
        found = _MD_PLANS[version] = tuple(plan)
    return found


_MD_PLANS: dict[int, tuple[tuple[str, int, bytes], ...]] = {}


__all__ = [
    "GMO_KIND",
    "OD_KIND",
    "PMO_KIND",
    "Kind",
    "WireStruct",
    "md_bytes",
    "md_bytes_fast",
    "new_struct",
    "parse_md",
    "parse_md_fast",
    "parse_struct",
]
