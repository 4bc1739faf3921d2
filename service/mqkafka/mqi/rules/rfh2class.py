"""pymqi's ``RFH2``: an MQRFH2 header built, packed and parsed as pymqi programs use it.

The eight fixed fields (``StrucId`` ... ``NameValueCCSID``) and one pair per folder
(``mcdLength`` and ``mcd``, named after the folder's root tag) are read and written as items
or attributes; ``get()`` gives them all, in order. A folder keeps its bytes as written,
blank-padded to a multiple of four (MQ's rule); ``add_folder`` recomputes ``StrucLength``,
``pack`` writes the value the header holds (as pymqi does).

Byte order: ``pack(encoding)`` writes big-endian numbers when the encoding's integers are
``MQENC_INTEGER_NORMAL`` (or it is one of pymqi's big-endian encodings), native otherwise;
``unpack`` reads the order from the encoding given, else from the Version field (a
big-endian 2 starts with a zero byte). The order last used is kept for a later ``pack()``,
so an unpacked header packs back to the same bytes.

``put_rfh2``/``get_rfh2``/``pub_rfh2`` (pymqi's ``opts[2]`` list of headers) are built from
:func:`with_headers` and :func:`strip_headers`.
"""

from __future__ import annotations

import struct
import sys
import xml.etree.ElementTree as ET
from typing import Any

from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.errors import PYIFError, StructFieldError
from mqkafka.mqi.rules.structs import MD

_FIXED: tuple[tuple[str, Any, str], ...] = (
    ("StrucId", C.MQRFH_STRUC_ID, "4s"),
    ("Version", C.MQRFH_VERSION_2, "i"),
    ("StrucLength", 0, "i"),
    ("Encoding", C.MQENC_NATIVE, "i"),
    ("CodedCharSetId", C.MQCCSI_Q_MGR, "i"),
    ("Format", C.MQFMT_NONE, "8s"),
    ("Flags", 0, "i"),
    ("NameValueCCSID", C.MQCCSI_Q_MGR, "i"),
)
_FIXED_FORMAT = "".join(spec for _, _, spec in _FIXED)
FIXED_LENGTH = C.MQRFH_STRUC_LENGTH_FIXED_2  # 36

# pymqi's list of the encodings it packs big-endian.
BIG_ENDIAN_ENCODINGS = frozenset(
    {
        C.MQENC_INTEGER_NORMAL,
        C.MQENC_DECIMAL_NORMAL,
        C.MQENC_FLOAT_IEEE_NORMAL,
        C.MQENC_FLOAT_S390,
        C.MQENC_INTEGER_NORMAL + C.MQENC_DECIMAL_NORMAL,
        C.MQENC_INTEGER_NORMAL + C.MQENC_FLOAT_IEEE_NORMAL,
        C.MQENC_DECIMAL_NORMAL + C.MQENC_FLOAT_IEEE_NORMAL,
        C.MQENC_INTEGER_NORMAL + C.MQENC_DECIMAL_NORMAL + C.MQENC_FLOAT_IEEE_NORMAL,
    }
)


def big_endian(encoding: int) -> bool:
    """Whether MQ numbers in ``encoding`` are big-endian."""
    return (
        encoding in BIG_ENDIAN_ENCODINGS
        or encoding & C.MQENC_INTEGER_MASK == C.MQENC_INTEGER_NORMAL
    )


def folder_name(data: bytes) -> str:
    """The root tag of an XML folder; PYIFError when it is not well formed."""
    try:
        return ET.fromstring(data.rstrip(b" \0")).tag
    except ET.ParseError as error:
        raise PYIFError(f"RFH2 - XML Folder not well formed. Exception: {error}") from None


class RFH2:
    """MQRFH2 (pymqi's ``RFH2``): ``RFH2(**fields)``, ``add_folder``, ``pack``, ``unpack``."""

    def __init__(self, **kw: Any) -> None:
        self._values: dict[str, Any] = {name: value for name, value, _ in _FIXED}
        self._folders: list[str] = []  # folder names in order (each has <name>Length too)
        self._big = sys.byteorder == "big"
        self.set(**kw)

    # ---- fields -------------------------------------------------------------------------

    def _names(self) -> list[str]:
        names = [name for name, _, _ in _FIXED]
        for folder in self._folders:
            names += [folder + "Length", folder]
        return names

    def __getitem__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise StructFieldError(2, C.MQRC_RFH_ERROR, f"RFH2 has no field {name!r}") from None

    def __setitem__(self, name: str, value: Any) -> None:
        if name not in self._values:
            raise StructFieldError(2, C.MQRC_RFH_ERROR, f"RFH2 has no field {name!r}")
        if isinstance(value, str):
            value = value.encode()
        self._values[name] = value

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self[name]

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            self[name] = value

    def set(self, **kw: Any) -> None:
        for name, value in kw.items():
            self[name] = value

    def get(self) -> dict[str, Any]:
        return {name: self._values[name] for name in self._names()}

    def get_length(self) -> int:
        """The packed length: the fixed part and every folder with its length field."""
        return FIXED_LENGTH + sum(4 + len(self._values[f]) for f in self._folders)

    def __str__(self) -> str:
        return "\n".join(f"{name}: {value!r}" for name, value in self.get().items())

    # ---- folders ------------------------------------------------------------------------

    def _add(self, name: str, data: bytes) -> None:
        if name not in self._folders:
            self._folders.append(name)
        self._values[name + "Length"] = len(data)
        self._values[name] = data

    def add_folder(self, folder_data: bytes) -> None:
        """Add an XML folder (blank-padded to a multiple of 4) and set StrucLength."""
        if not isinstance(folder_data, bytes):
            raise TypeError("an RFH2 folder is bytes")
        name = folder_name(folder_data)
        padding = -len(folder_data) % 4
        self._add(name, folder_data + b" " * padding)
        self._values["StrucLength"] = self.get_length()

    # ---- bytes --------------------------------------------------------------------------

    def pack(self, encoding: int | None = None) -> bytes:
        if encoding is not None:
            self._big = big_endian(encoding)
        order = ">" if self._big else "<"
        values = [self._values[name] for name, _, _ in _FIXED]
        try:
            out = struct.pack(order + _FIXED_FORMAT, *values)
            for folder in self._folders:
                data = self._values[folder]
                out += struct.pack(order + "i", self._values[folder + "Length"]) + data
        except struct.error as error:
            raise PYIFError(f"RFH2 - cannot pack: {error}") from None
        return out

    def unpack(self, buff: bytes, encoding: int | None = None) -> None:
        """Parse an MQRFH2 at the start of ``buff`` (its folders up to StrucLength)."""
        if not isinstance(buff, bytes):
            raise TypeError("RFH2.unpack takes bytes")
        if buff[0:4] != C.MQRFH_STRUC_ID:
            raise PYIFError(f"RFH2 - StrucId not MQRFH_STRUC_ID. Value: {buff[0:4]!r}")
        if len(buff) < FIXED_LENGTH:
            raise PYIFError(f"RFH2 - Buffer too short. Should be 36+ bytes instead of {len(buff)}")
        big = big_endian(encoding) if encoding is not None else buff[4:5] == b"\0"
        order = ">" if big else "<"
        fixed = struct.unpack(order + _FIXED_FORMAT, buff[:FIXED_LENGTH])
        length = fixed[2]
        if length < 0:
            raise PYIFError("RFH2 - 'StrucLength' is negative. Check numeric encoding.")
        if len(buff) > FIXED_LENGTH and length > len(buff):
            raise PYIFError(
                f"RFH2 - Buffer too short. Expected: {length} Buffer Length: {len(buff)}"
            )
        folders: list[tuple[str, bytes]] = []
        rest = buff[FIXED_LENGTH:length]
        while rest:
            if len(rest) < 4:
                raise PYIFError("RFH2 - a folder length is cut short")
            (size,) = struct.unpack(order + "i", rest[:4])
            data = rest[4 : 4 + size]
            if size < 0 or len(data) < size:
                raise PYIFError(f"RFH2 - folder of {size} bytes past StrucLength {length}")
            folders.append((folder_name(data), data))
            rest = rest[4 + size :]
        self._values = {name: value for (name, _, _), value in zip(_FIXED, fixed, strict=True)}
        self._folders = []
        for name, data in folders:
            self._add(name, data)
        self._big = big


def with_headers(msg: bytes, opts: tuple[Any, ...]) -> tuple[bytes, tuple[Any, ...]]:
    """pymqi's put_rfh2 / pub_rfh2: ``opts[2]`` headers packed before ``msg``, each in the
    encoding the structure before it names (the MQMD's, then each header's)."""
    if len(opts) < 3 or opts[2] is None:
        return msg, opts[:2]
    headers = opts[2]
    if not isinstance(headers, list):
        raise TypeError("Third item of opts should be a list.")
    encoding = opts[0]["Encoding"] if opts[0] is not None else C.MQENC_NATIVE
    prefix = b""
    for header in headers:
        if header is not None:
            prefix += header.pack(encoding)
            encoding = header["Encoding"]
    return prefix + msg, opts[:2]


def strip_headers(msg: bytes, md: MD, into: list[RFH2]) -> bytes:
    """pymqi's get_rfh2: parse the RFH2 headers the MQMD's Format announces into ``into``
    and return the data after them."""
    fmt = md.Format.ljust(C.MQ_FORMAT_LENGTH, b" ")
    while fmt == C.MQFMT_RF_HEADER_2:
        header = RFH2()
        header.unpack(msg)  # byte order from the header itself, as pymqi reads it
        into.append(header)
        msg = msg[header["StrucLength"] :]
        fmt = header["Format"]
    return msg


rfh2 = RFH2

__all__ = [
    "RFH2",
    "big_endian",
    "folder_name",
    "rfh2",
    "strip_headers",
    "with_headers",
]
