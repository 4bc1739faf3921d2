"""A whole MQ message: MQMD, the chain of RFH headers, the user data (wire contract §2).

The chain is followed by Format: the MQMD's Format names the first structure, each header's
Format the next one, until a Format that is not a header (``MQSTR``, blank, ...) names the
body. Each header's integers are in the Encoding of the structure before it, and an MQRFH's
NameValueString in its CodedCharSetId (``MQCCSI_INHERIT`` passes the previous one on).

| Format | structure |
|---|---|
| ``MQHRF2  `` (MQFMT_RF_HEADER_2) | MQRFH2 → ``Rfh2`` |
| ``MQHRF   `` (MQFMT_RF_HEADER_1) | MQRFH → ``Rfh1`` |
| anything else | the body |

``decode_message`` never raises anything but ``MQError`` for any byte string; folder texts are
parsed on first use (``psc()``, ``folder()``, ``usr_properties()``) and cached.
``Message`` also satisfies ``engine.ports.MessageView`` so a filter can read it directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Final

from mqkafka.mq import rfh1, rfh2
from mqkafka.mq.errors import MQError
from mqkafka.mq.folders import Folder, parse_folder, typed_value
from mqkafka.mq.mqmd import (
    MQCCSI_INHERIT,
    MQFMT_RF_HEADER_1,
    MQFMT_RF_HEADER_2,
    MQMD,
)
from mqkafka.mq.reasons import RC
from mqkafka.mq.rfh1 import Rfh1
from mqkafka.mq.rfh2 import Rfh2

Header = Rfh2 | Rfh1

PSC_FOLDER: Final = "psc"
PSCR_FOLDER: Final = "pscr"
MCD_FOLDER: Final = "mcd"
USR_FOLDER: Final = "usr"

_HEADER_FORMATS: Final = (MQFMT_RF_HEADER_2, MQFMT_RF_HEADER_1)


@dataclass(frozen=True)
class Message:
    """One MQ message as MQGET would return it, split into its parts."""

    md: MQMD
    headers: tuple[Header, ...] = ()
    body: bytes = b""

    @property
    def body_format(self) -> str:
        """Format of the body (``MQSTR``, ``""``...), trailing blanks removed."""
        last = self.headers[-1].format if self.headers else self.md.Format
        return last.rstrip(" ")

    @cached_property
    def parsed_folders(self) -> tuple[tuple[Folder, ...], ...]:
        """Per header, its parsed folders (empty for an MQRFH); MQRC_RFH_FORMAT_ERROR when
        any folder is malformed."""
        return tuple(
            tuple(parse_folder(text) for text in header.folders) if isinstance(header, Rfh2) else ()
            for header in self.headers
        )

    def psc(self) -> Folder | None:
        """The ``<psc>`` command folder of the first MQRFH2 that has one (§2.1 rule 1: one
        per header; a second in the same header is MQRC_RFH_DUPLICATE_PARM)."""
        return self._single_per_header(PSC_FOLDER)

    def pscr(self) -> Folder | None:
        """The ``<pscr>`` response folder, with the same rule as ``psc``."""
        return self._single_per_header(PSCR_FOLDER)

    def _single_per_header(self, name: str) -> Folder | None:
        for folders in self.parsed_folders:
            found = [folder for folder in folders if folder.name == name]
            if len(found) > 1:
                raise MQError(
                    RC.RFH_DUPLICATE_PARM, f"more than one <{name}> folder in one MQRFH2", parm=name
                )
            if found:
                return found[0]
        return None

    def folder(self, name: str) -> Folder | None:
        """The first folder called ``name`` in any MQRFH2, in chain order."""
        for folders in self.parsed_folders:
            for folder in folders:
                if folder.name == name:
                    return folder
        return None

    def rfh1(self) -> Rfh1 | None:
        """The first MQRFH (version 1) header, where the older interface puts its command."""
        for header in self.headers:
            if isinstance(header, Rfh1):
                return header
        return None

    def usr_properties(self) -> dict[str, object]:
        """The ``usr`` folder's properties typed by ``dt``; a grouped property is named by its
        dotted path. A repeated name is MQRC_RFH_FORMAT_ERROR: properties are a map and a
        selector could not say which one it tested."""
        usr = self.folder(USR_FOLDER)
        if usr is None:
            return {}
        properties: dict[str, object] = {}
        for element, path in usr.leaves():
            if path in properties:
                raise MQError(
                    RC.RFH_FORMAT_ERROR, f"usr property {path!r} appears twice", parm=path
                )
            properties[path] = typed_value(element)
        return properties

    # ---- engine.ports.MessageView ----

    @cached_property
    def properties(self) -> Mapping[str, object]:
        return self.usr_properties()

    @property
    def mqmd_fields(self) -> Mapping[str, object]:
        return self.md.as_dict()

    @property
    def msd(self) -> str | None:
        """The ``mcd`` folder's ``Msd`` (message domain), if any."""
        mcd = self.folder(MCD_FOLDER)
        if mcd is None:
            return None
        for name, value in mcd.pairs():
            if name == "Msd":
                return value
        return None

    def encode(self) -> bytes:
        """The record value: headers then body."""
        return encode_message(self.headers, self.body, self.md)


def decode_message(value: bytes, md: MQMD) -> Message:
    """Split a record value into headers and body by following the Format chain from ``md``."""
    return decode_chain(value, md)[0]


def decode_chain(value: bytes, md: MQMD) -> tuple[Message, tuple[int, ...]]:
    """``decode_message``, and where each header ends in ``value`` (the data after header
    ``i`` is ``value[ends[i]:]``: the rest of the chain and the body)."""
    data = bytes(value)
    headers: list[Header] = []
    ends: list[int] = []
    fmt, encoding, ccsid = md.Format, md.Encoding, md.CodedCharSetId
    pos = 0
    while fmt in _HEADER_FORMATS:
        header: Header
        if fmt == MQFMT_RF_HEADER_2:
            header, used = rfh2.decode(data[pos:], encoding)
        else:
            header, used = rfh1.decode(data[pos:], encoding, string_ccsid=ccsid)
        headers.append(header)
        pos += used
        ends.append(pos)
        fmt, encoding = header.format, header.encoding
        if header.ccsid != MQCCSI_INHERIT:
            ccsid = header.ccsid
    return Message(md, tuple(headers), data[pos:]), tuple(ends)


def encode_message(headers: Iterable[Header], body: bytes, md: MQMD) -> bytes:
    """Headers then body as one record value. The Formats must chain: ``md.Format`` names the
    first header, each header's Format the next, and the last one names the body (not another
    header); otherwise the value could not be read back, which is MQRC_FORMAT_ERROR."""
    parts: list[bytes] = []
    fmt, encoding, ccsid = md.Format, md.Encoding, md.CodedCharSetId
    for index, header in enumerate(headers):
        expected = MQFMT_RF_HEADER_2 if isinstance(header, Rfh2) else MQFMT_RF_HEADER_1
        if fmt != expected:
            raise MQError(
                RC.FORMAT_ERROR,
                f"header {index} is {expected.strip()} but the Format before it is {fmt!r}",
            )
        if isinstance(header, Rfh2):
            parts.append(rfh2.encode(header, encoding))
        else:
            parts.append(rfh1.encode(header, encoding, string_ccsid=ccsid))
        fmt, encoding = header.format, header.encoding
        if header.ccsid != MQCCSI_INHERIT:
            ccsid = header.ccsid
    if fmt in _HEADER_FORMATS:
        raise MQError(RC.FORMAT_ERROR, f"the last Format {fmt!r} promises another header")
    parts.append(bytes(body))
    return b"".join(parts)
