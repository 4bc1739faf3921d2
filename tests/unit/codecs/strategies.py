"""Hypothesis strategies for the codec tests: valid values of every codec type, and hostile
byte strings derived from valid encodings (so fuzzing reaches past the first check)."""

from __future__ import annotations

from hypothesis import strategies as st

from mqkafka.mq.folders import Element, Folder, render_folder
from mqkafka.mq.message import Header, encode_message
from mqkafka.mq.mqmd import (
    CCSID_UTF8,
    INT_FIELDS,
    MQFMT_NONE,
    MQFMT_RF_HEADER_1,
    MQFMT_RF_HEADER_2,
    MQFMT_STRING,
    MQMD,
    TEXT_FIELDS,
)
from mqkafka.mq.rfh1 import Rfh1
from mqkafka.mq.rfh2 import NAME_VALUE_CCSIDS, Rfh2

MQLONG = st.integers(min_value=-(2**31), max_value=2**31 - 1)
# Encodings a peer might send: both byte orders, z/OS, undefined integer part, and any MQLONG.
ENCODINGS = st.sampled_from([546, 273, 785, 1, 2, 17, 0, 16, 256]) | MQLONG
# Every character Python can encode to UTF-8 (no lone surrogates).
CHARS = st.characters(exclude_categories=["Cs"])
TEXT = st.text(CHARS, max_size=24)


def _fit_utf8(text: str, limit: int) -> str:
    return text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")


def mq_text(limit: int) -> st.SearchStrategy[str]:
    """Text for an MQMD character field: no NUL, at most ``limit`` UTF-8 bytes."""
    return st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00")).map(
        lambda s: _fit_utf8(s, limit)
    )


FORMATS = st.sampled_from([MQFMT_NONE, MQFMT_STRING, "MQADMIN", "MQPCF"]) | st.text(
    st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=8
)

_MQMD_INTS = {name: MQLONG for name in INT_FIELDS}
_MQMD_IDS = {
    "MsgId": st.binary(min_size=24, max_size=24),
    "CorrelId": st.binary(min_size=24, max_size=24),
    "GroupId": st.binary(min_size=24, max_size=24),
    "AccountingToken": st.binary(min_size=32, max_size=32),
}
_MQMD_TEXTS = {name: mq_text(limit) for name, limit in TEXT_FIELDS.items() if name != "Format"}


def _sometimes(strategy: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    """Mostly defaults, so header encoding sees both absent and present fields."""
    return st.none() | strategy


@st.composite
def mqmds(draw: st.DrawFn) -> MQMD:
    """Any valid MQMD, each field either default or arbitrary."""
    changes: dict[str, object] = {}
    fields = {**_MQMD_INTS, **_MQMD_IDS, **_MQMD_TEXTS, "Format": FORMATS}
    for name, strategy in fields.items():
        value = draw(_sometimes(strategy))
        if value is not None:
            changes[name] = value
    return MQMD(**changes)  # type: ignore[arg-type]


# ---- folders ----

_NAME_START = "ABCXYZabcxyz_"
NAMES = st.builds(
    str.__add__, st.sampled_from(_NAME_START), st.text(_NAME_START + "019.-", max_size=6)
)
ATTRS = st.lists(st.tuples(NAMES, TEXT), max_size=2, unique_by=lambda pair: pair[0]).map(tuple)
LEAVES = st.builds(Element, NAMES, st.none() | TEXT, ATTRS)
ELEMENTS = st.recursive(
    LEAVES,
    lambda children: st.builds(
        Element,
        NAMES,
        st.none(),
        ATTRS,
        st.lists(children, min_size=1, max_size=3).map(tuple),
    ),
    max_leaves=6,
)
FOLDERS = st.builds(Folder, NAMES, st.lists(ELEMENTS, max_size=4).map(tuple), ATTRS)

# ---- headers ----

FOLDER_TEXTS = FOLDERS.map(render_folder) | st.text(CHARS, min_size=1, max_size=60)
DATA_CCSIDS = st.sampled_from([CCSID_UTF8, -2, 819, 1200]) | st.integers(1, 2**31 - 1)


def rfh2s(fmt: st.SearchStrategy[str] = FORMATS) -> st.SearchStrategy[Rfh2]:
    return st.builds(
        Rfh2,
        encoding=ENCODINGS,
        ccsid=DATA_CCSIDS,
        format=fmt,
        flags=MQLONG,
        name_value_ccsid=st.sampled_from(NAME_VALUE_CCSIDS),
        folders=st.lists(FOLDER_TEXTS, max_size=4).map(tuple),
    )


def rfh1s(fmt: st.SearchStrategy[str] = FORMATS) -> st.SearchStrategy[Rfh1]:
    return st.builds(
        Rfh1,
        encoding=ENCODINGS,
        ccsid=DATA_CCSIDS | st.just(0),
        format=fmt,
        flags=MQLONG,
        name_values=st.text(CHARS, max_size=60),
    )


@st.composite
def messages(draw: st.DrawFn) -> tuple[MQMD, tuple[Header, ...], bytes]:
    """A consistent (md, headers, body): Formats chain from the MQMD through each header."""
    kinds = draw(st.lists(st.sampled_from(["rfh2", "rfh1"]), max_size=3))
    body_format = draw(FORMATS.filter(lambda f: f.strip() not in ("MQHRF2", "MQHRF")))
    formats = [MQFMT_RF_HEADER_2 if kind == "rfh2" else MQFMT_RF_HEADER_1 for kind in kinds]
    formats.append(body_format)
    headers: list[Header] = []
    for kind, next_format in zip(kinds, formats[1:], strict=True):
        header: Header = (
            draw(rfh2s(st.just(next_format)))
            if kind == "rfh2"
            else draw(rfh1s(st.just(next_format)))
        )
        headers.append(header)
    # The RFH1 string is in the CCSID before it; keep those readable.
    md = draw(mqmds()).replace(Format=formats[0], CodedCharSetId=draw(st.sampled_from([1208, 0])))
    headers = _readable_chain(md, headers)
    return md, tuple(headers), draw(st.binary(max_size=40))


def _readable_chain(md: MQMD, headers: list[Header]) -> list[Header]:
    """Give a data CCSID this product reads to every header followed by an MQRFH."""
    fixed: list[Header] = []
    for index, header in enumerate(headers):
        # MQCCSI_INHERIT passes a CCSID on, so every header before an MQRFH counts.
        follows_rfh1 = any(isinstance(later, Rfh1) for later in headers[index + 1 :])
        if follows_rfh1 and header.ccsid not in (CCSID_UTF8, -2, 1200):
            header = _with_ccsid(header, CCSID_UTF8)
        fixed.append(header)
    return fixed


def _with_ccsid(header: Header, ccsid: int) -> Header:
    if isinstance(header, Rfh2):
        return Rfh2(
            header.encoding,
            ccsid,
            header.format,
            header.flags,
            header.name_value_ccsid,
            header.folders,
        )
    return Rfh1(header.encoding, ccsid, header.format, header.flags, header.name_values)


@st.composite
def mutated(draw: st.DrawFn, valid: st.SearchStrategy[bytes]) -> bytes:
    """A valid encoding with a few bytes overwritten, inserted or cut."""
    data = bytearray(draw(valid))
    for _ in range(draw(st.integers(1, 4))):
        action = draw(st.sampled_from(["set", "insert", "truncate"]))
        at = draw(st.integers(0, len(data)))
        if action == "set" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif action == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=4))
        else:
            del data[at:]
    return bytes(data)


ENCODED_MESSAGES = messages().map(lambda m: (m[0], encode_message(m[1], m[2], m[0])))
