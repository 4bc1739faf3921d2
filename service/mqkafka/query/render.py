"""How a message reads to a person: the MQMD fields that are set, the RFH headers' folders and
name/values, and the body as JSON, text or hex. Pure: bytes in, plain values out.

| body | shown as |
|---|---|
| UTF-8 that parses as a JSON object or array | ``json``: indented |
| UTF-8 of printable characters (and tabs, newlines) | ``text`` |
| anything else | ``hex``: 16 bytes a line, offsets and ASCII beside |
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mqkafka.mq.dlh import decode_dlh
from mqkafka.mq.errors import MQError
from mqkafka.mq.message import decode_message
from mqkafka.mq.mqmd import MQFMT_DEAD_LETTER_HEADER, MQMD, MQMD_DEFAULT, MQMT, MQPER
from mqkafka.mq.reasons import name_of
from mqkafka.mq.rfh1 import Rfh1

HEX_LIMIT = 4096  # bytes of a binary body shown; the length is always given


@dataclass(frozen=True)
class Body:
    kind: str  # json | text | hex
    text: str
    length: int


@dataclass(frozen=True)
class DeadLetterView:
    """The MQDLH in front of a dead letter, its reason by name."""

    reason: int
    reason_name: str
    dest_q_name: str
    dest_q_mgr_name: str
    format: str
    put_appl_name: str
    put_date: str
    put_time: str


@dataclass(frozen=True)
class QueueMessageView:
    """One message as a person reads it; ``md`` holds only the fields that are set."""

    partition: int
    offset: int
    timestamp_ms: int
    md: dict[str, str]
    headers: list[dict[str, Any]]
    body: Body
    dead_letter: DeadLetterView | None = None
    problem: str | None = None  # why the headers could not be decoded, if they could not
    extra_headers: dict[str, str] = field(default_factory=dict)


def render_body(data: bytes, limit: int = HEX_LIMIT) -> Body:
    """``data`` as JSON, text or hex (see the module's table)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Body("hex", hex_dump(data[:limit]), len(data))
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return Body("json", json.dumps(json.loads(stripped), indent=2, ensure_ascii=False),
                        len(data))  # fmt: skip
        except ValueError:
            pass
    if all(ch.isprintable() or ch in "\t\r\n" for ch in text):
        return Body("text", text, len(data))
    return Body("hex", hex_dump(data[:limit]), len(data))


def render_as(data: bytes, kind: str, limit: int = HEX_LIMIT) -> Body:
    """``data`` shown the way a person asked: ``text`` (undecodable bytes replaced),
    ``json`` (indented, or the text when it does not parse), ``hex``; else as it reads best."""
    if kind == "hex":
        return Body("hex", hex_dump(data[:limit]), len(data))
    if kind == "text":
        return Body("text", data.decode("utf-8", "replace"), len(data))
    if kind == "json":
        try:
            parsed = json.loads(data.decode("utf-8"))
        except ValueError:
            return Body("text", data.decode("utf-8", "replace"), len(data))
        return Body("json", json.dumps(parsed, indent=2, ensure_ascii=False), len(data))
    return render_body(data, limit)


def hex_dump(data: bytes, width: int = 16) -> str:
    lines = []
    for start in range(0, len(data), width):
        chunk = data[start : start + width]
        ascii_ = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        lines.append(f"{start:08x}  {chunk.hex(' '):<{width * 3 - 1}}  {ascii_}")
    return "\n".join(lines)


def md_fields(md: MQMD) -> dict[str, str]:
    """The MQMD fields that differ from the default, as text: ids in full hex, MsgType and
    Persistence by name, text fields without their padding."""
    shown: dict[str, str] = {}
    defaults = MQMD_DEFAULT.as_dict()
    for name, value in md.as_dict().items():
        if value == defaults[name]:
            continue
        if isinstance(value, bytes):
            shown[name] = value.hex()
        elif name == "MsgType":
            shown[name] = _enum_name(MQMT, value, "MQMT_")
        elif name == "Persistence":
            shown[name] = _enum_name(MQPER, value, "MQPER_")
        elif isinstance(value, str):
            shown[name] = value.rstrip()
        else:
            shown[name] = str(value)
    return shown


def _enum_name(enum: Any, value: Any, prefix: str) -> str:
    try:
        return f"{prefix}{enum(value).name}"
    except ValueError:
        return str(value)


def view_message(
    value: bytes,
    md: MQMD,
    *,
    partition: int = 0,
    offset: int = -1,
    timestamp_ms: int = 0,
    extra_headers: dict[str, str] | None = None,
) -> QueueMessageView:
    """Decode one queued message: an MQDLH first when the Format says so, then the RFH
    chain, then the body. A header that does not decode leaves the rest as the body and
    says why in ``problem``."""
    dead: DeadLetterView | None = None
    problem: str | None = None
    if md.Format == MQFMT_DEAD_LETTER_HEADER:
        try:
            dlh, value = decode_dlh(value, md.Encoding)
            dead = DeadLetterView(
                dlh.reason, name_of(dlh.reason), dlh.dest_q_name, dlh.dest_q_mgr_name,
                dlh.format.rstrip(), dlh.put_appl_name, dlh.put_date, dlh.put_time,
            )  # fmt: skip
            md = md.replace(Format=dlh.format, Encoding=dlh.encoding, CodedCharSetId=dlh.ccsid)
        except MQError as error:
            problem = f"MQDLH: {error.detail}"
    headers: list[dict[str, Any]] = []
    body = value
    if problem is None:
        try:
            message = decode_message(value, md)
            body = message.body
            headers = [_header(h) for h in message.headers]
        except MQError as error:
            problem = f"{name_of(error.reason)}: {error.detail}"
    return QueueMessageView(
        partition, offset, timestamp_ms, md_fields(md), headers, render_body(body), dead,
        problem, extra_headers or {},
    )  # fmt: skip


def _header(header: Any) -> dict[str, Any]:
    if isinstance(header, Rfh1):
        return {"type": "MQRFH", "format": header.format.rstrip(),
                "name_values": header.name_values}  # fmt: skip
    return {"type": "MQRFH2", "format": header.format.rstrip(), "folders": list(header.folders)}


__all__ = [
    "Body",
    "DeadLetterView",
    "QueueMessageView",
    "hex_dump",
    "md_fields",
    "render_as",
    "render_body",
    "view_message",
]
