"""MQ messages on Kafka: a record value carrying a command in, publication copies and
replies out. The engine never sees bytes: this module reads a command message into the
value ``handle`` takes and writes the message effects it returns.

* ``CommandReader.read(value, md, queue)`` -> a ``Command``, or an ``InvalidCommand`` that
  says why it is none. Any byte string gives one of the two: a bad structure is
  MQRC_RFH_ERROR (2334) / MQRC_RFH_STRING_ERROR (2335) / MQRC_RFH_FORMAT_ERROR (2421), an
  MQMD Format that is not an RFH is MQRCCF_MD_FORMAT_ERROR (3023), and the command rules are
  ``mqkafka.mq.commandparse``'. ``decode_command`` is the same with an ``MQError`` raised.
  Given the record's other headers, a message with no RFH whose headers say a ``<psc>``
  (``mqpsc.*``) is a Kafka-native Publish of its value (``mqkafka.wire.kafkanative``).
* ``process_message(state, value, md, queue, ctx)`` reads, steps the engine and returns its
  effects; DeadLetter effects get the message's bytes.
* ``encode_delivery`` / ``encode_reply`` turn message effects into the MQMD and record value
  (wire contract §2-§3).

What a publication passes on (choice §10.8): the publisher's RFH2 folders other than psc/pscr
and its body go to RFH2 subscribers; an RFH1 publisher's user pairs and MQPSStringData /
MQPSIntData go to RFH1 subscribers; the data after the header holding the command always,
headers chained after that one included (a publisher's own MQRFH2 is part of its data).
"""

from __future__ import annotations

import dataclasses
import re
import struct
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import replace
from typing import Any

from mqkafka.engine.context import EngineContext
from mqkafka.engine.effects import DeadLetter, Deliver, Effect, Processed, Reply
from mqkafka.engine.handle import handle, step
from mqkafka.engine.inputs import InvalidCommand
from mqkafka.engine.state import EngineState
from mqkafka.mq import rfh1, rfh2
from mqkafka.mq.commandparse import command_from_psc, command_from_rfh1
from mqkafka.mq.commands import ZERO_ID, Command, Interface, PublicationContent, Publish
from mqkafka.mq.errors import MQError
from mqkafka.mq.fastvalues import copier, template_values
from mqkafka.mq.folders import Folder, parse_folder, render_folder
from mqkafka.mq.message import Header, decode_chain
from mqkafka.mq.mqmd import MQFMT_NONE, MQFMT_RF_HEADER_1, MQFMT_RF_HEADER_2, MQMD
from mqkafka.mq.reasons import CC, RC
from mqkafka.mq.responses import Response, ResponseItem
from mqkafka.mq.rfh1 import Rfh1, format_name_values
from mqkafka.mq.rfh2 import Rfh2
from mqkafka.wire.kafkanative import TOPIC_HEADER, has_psc, properties_folder, psc_pairs

_PSC = ("psc", "pscr")  # "the broker ignores pscr in messages it receives" (§2.1.6)
# "except for MQRC_RFH_ERROR and MQRCCF_MSG_LENGTH_ERROR" the command is echoed (§3.4).
_NO_ECHO = frozenset({RC.RFH_ERROR, RC.CF_MSG_LENGTH_ERROR})


class _Read:
    """A command message taken apart: its interface, command pairs and the rest."""

    __slots__ = ("content", "interface", "pairs", "plain_psc", "text")

    def __init__(
        self,
        interface: Interface,
        pairs: Sequence[tuple[str, str]],
        content: PublicationContent,
        text: str,
        plain_psc: str | None = None,
    ) -> None:
        self.interface = interface
        self.pairs = pairs
        self.content = content
        self.text = text  # the NameValueString (RFH1), for MQPSErrorPos
        self.plain_psc = plain_psc  # the <psc> text, when the fast path read it


def _interface_of(md: MQMD) -> Interface:
    return Interface.RFH1 if md.Format == MQFMT_RF_HEADER_1 else Interface.RFH2


def _read_general(value: bytes, md: MQMD) -> _Read:
    """Any command message, through ``mqkafka.mq.message`` and ``mqkafka.mq.folders``. The
    publication data is everything after the header holding the command, in that header's
    Format, Encoding and CCSID: headers chained after it (a publisher's own MQRFH2, as
    pymqi's ``Topic.pub_rfh2`` puts) are part of the data and reach subscribers."""
    message, ends = decode_chain(value, md)
    header: Header = message.headers[0]
    if isinstance(header, Rfh1):
        pairs = rfh1.parse_name_values(header.name_values)
        content = PublicationContent(
            body=bytes(value[ends[0] :]),
            encoding=header.encoding,
            ccsid=header.ccsid,
            format=header.format,
        )
        return _Read(Interface.RFH1, pairs, content, header.name_values)
    command: Folder | None = None
    others: list[str] = []
    body = b""
    for index, candidate in enumerate(message.headers):
        if not isinstance(candidate, Rfh2):
            continue
        names = [_folder_name(text) for text in candidate.folders]
        if "psc" in names:
            if names.count("psc") > 1:
                # "only one psc ... folder per header is supported" (§2.1.1).
                raise MQError(RC.RFH_DUPLICATE_PARM, "two <psc> folders", parm="psc")
            command = parse_folder(candidate.folders[names.index("psc")])
            others = [t for t, n in zip(candidate.folders, names, strict=True) if n not in _PSC]
            header = candidate
            body = value[ends[index] :]
            break
    if command is None:
        # No <psc>, so no Command: a mandatory property missing, 2339 (as in mq.commands).
        raise MQError(RC.RFH_PARM_MISSING, "no <psc> folder", parm="Command")
    content = PublicationContent(
        body=bytes(body),
        folders=tuple(others),
        encoding=header.encoding,
        ccsid=header.ccsid,
        format=header.format,
        name_value_ccsid=header.name_value_ccsid,
    )
    return _Read(Interface.RFH2, command.pairs(), content, "")


def _read_native(value: bytes, md: MQMD, headers: Sequence[tuple[str, bytes | None]]) -> _Read:
    """A record with no RFH whose ``mqpsc.*`` headers are its command: the whole value is the
    publication's data, in the MQMD's Format, Encoding and CCSID. Its pairs stand for a plain
    ``<psc>`` (``_Read.plain_psc``): a Publish is remembered by them as by an RFH2's folder."""
    pairs = psc_pairs(headers)
    usr = properties_folder(headers)
    content = PublicationContent(
        body=bytes(value),
        folders=(usr,) if usr is not None else (),
        encoding=md.Encoding,
        ccsid=md.CodedCharSetId,
        format=md.Format,
    )
    return _Read(Interface.RFH2, pairs, content, "", _NATIVE + repr(pairs))


_NATIVE = "\0native:"  # no <psc> folder text starts so: the remembered Publishes stay apart


# ---- the fast path -------------------------------------------------------------------------
# Decoding a Publish through the general codecs costs several times the whole publish budget
# (~20 us). Most commands are one plain MQRFH2 (UTF-8 folders, nothing chained) with a flat
# <psc> of simple elements; those are read here directly. Anything else - and anything this
# reader is unsure of - goes through mqkafka.mq.message and mqkafka.mq.folders, which decide.
# Measured on bench_engine's Publish (best of 5 x 20,000, the 2-core machine under load,
# issue 22): reading it 6.7 us here against 54 us through mq.message/mq.folders; the whole
# decode, with the remembered Publish below, 8.6 us against 66 us. Hypothesis tests
# (tests/unit/codecs/test_codec_messages.py) check that both paths agree whenever this one
# answers, and that the remembered Publish is the one the parser makes; likewise the plain
# writer against ``rfh2.encode``.
# A Kafka-native Publish (``_read_native``) is remembered by its header pairs the same way:
# 43 -> 37 us through the engine (tests/unit/codecs/test_codec_kafkanative.py compares).

_HEADER_FORMATS = (MQFMT_RF_HEADER_2, MQFMT_RF_HEADER_1)
_FIXED_2 = {order: struct.Struct(order + "4siiii8sii") for order in "<>"}
_LENGTH = {order: struct.Struct(order + "i") for order in "<>"}
_FIXED_LE, _FIXED_BE = _FIXED_2["<"].unpack_from, _FIXED_2[">"].unpack_from
_LENGTH_LE, _LENGTH_BE = _LENGTH["<"].unpack_from, _LENGTH[">"].unpack_from
_PLAIN_PSC = re.compile(
    r"[ \t\r\n]*<psc>((?:[ \t\r\n]*<([A-Za-z][A-Za-z0-9_]*)>[^<>&\x00]*</\2>)*)"
    r"[ \t\r\n]*</psc>[ \t\r\n]*"
)
_PLAIN_ELEMENT = re.compile(r"<([A-Za-z][A-Za-z0-9_]*)>([^<>&\x00]*)</\1>")


def _read_plain_rfh2(
    data: bytes,
    int_encoding: int,
    formats: dict[bytes, str] | None = None,
    plain_pairs: Callable[[str], tuple[tuple[str, str], ...] | None] | None = None,
) -> _Read | None:
    """A plain single MQRFH2 command, or None to leave the message to the general path.
    ``formats`` remembers the Format fields checked, ``plain_pairs`` the <psc> folders read
    (``CommandReader``'s)."""
    integer = int_encoding & 0xF
    if integer == 2:
        fixed, unpack_length = _FIXED_LE, _LENGTH_LE
    elif integer == 1:
        fixed, unpack_length = _FIXED_BE, _LENGTH_BE
    else:
        return None
    if len(data) < 36:
        return None
    strucid, version, length, encoding, ccsid, raw_format, _, nv_ccsid = fixed(data)
    if strucid != b"RFH " or version != 2 or nv_ccsid != 1208 or not 36 <= length <= len(data):
        return None
    if ccsid <= 0 and ccsid != -2:
        return None
    fmt = formats.get(raw_format) if formats is not None else None
    if fmt is None:
        try:
            fmt = rfh2.check_format(rfh2.read_format(raw_format))
        except MQError:
            return None
        if formats is not None and len(formats) < 256:
            formats[raw_format] = fmt
    if fmt in _HEADER_FORMATS:
        return None
    pos = 36
    command: tuple[tuple[str, str], ...] | None = None
    psc = ""
    others: list[str] = []
    while pos < length:
        if pos + 4 > length:
            return None
        (size,) = unpack_length(data, pos)
        end = pos + 4 + size
        if size <= 0 or end > length:
            return None
        try:
            text = data[pos + 4 : end].decode().rstrip(" \x00")
        except UnicodeDecodeError:
            return None
        pos = end
        if text.startswith("<psc>"):
            if command is not None:
                return None
            command = (plain_pairs or _plain_pairs)(text)
            if command is None:
                return None
            psc = text
        elif text.startswith("<pscr>"):
            continue
        elif not text.startswith("<") or text.startswith("<psc"):
            return None  # empty, leading blanks, or a psc with attributes: the general path
        else:
            others.append(text)
    if command is None:
        return None
    content = PublicationContent(data[length:], tuple(others), (), encoding, ccsid, fmt, nv_ccsid)
    return _Read(Interface.RFH2, command, content, "", psc)


_new_publish = copier(Publish, ("md", "content"))
_PER_MESSAGE_SLOTS = [
    i for i, f in enumerate(dataclasses.fields(Publish)) if f.name in ("md", "content")
]


def _plain_pairs(text: str) -> tuple[tuple[str, str], ...] | None:
    plain = _PLAIN_PSC.fullmatch(text)
    if plain is None:
        return None
    return tuple(_PLAIN_ELEMENT.findall(plain.group(1)))


def _folder_name(text: str) -> str:
    """The element name a folder text starts with, without parsing the folder."""
    start = text.find("<")
    end = start + 1
    size = len(text)
    while end < size and text[end] not in " \t\r\n/>":
        end += 1
    return text[start + 1 : end] if start >= 0 else ""


_REMEMBERED = 10_000


class CommandReader:
    """Reads command messages. Publishers send the same <psc> again and again: its pairs, and
    the Publish it makes for a given reply-to and CorrelId, are remembered here (bounded;
    forgotten when full) - one reader per consumer of commands, not one per process."""

    def __init__(self) -> None:
        self._formats: dict[bytes, str] = {}  # raw Format field -> checked Format
        self._pairs: dict[str, tuple[tuple[str, str], ...] | None] = {}
        self._templates: dict[tuple[str, str, str, str, str, bool], list[Any]] = {}

    def decode(
        self,
        value: bytes,
        md: MQMD,
        queue: str,
        local_qmgr: str = "",
        headers: Sequence[tuple[str, bytes | None]] | None = None,
    ) -> Command:
        """The command a message put to ``queue`` carries; ``MQError`` when it has none."""
        return self._build(self._read(value, md, headers), md, queue, local_qmgr)

    def read(
        self,
        value: bytes,
        md: MQMD,
        queue: str,
        local_qmgr: str = "",
        refusal: MQError | None = None,
        headers: Sequence[tuple[str, bytes | None]] | None = None,
    ) -> Command | InvalidCommand:
        """The command, or why there is none. ``refusal``: the adapter refuses the command
        (its sender may not claim its userid): it is answered with that error. ``headers``:
        the record's headers other than the MQMD's, for a Kafka-native Publish."""
        read: _Read | None = None
        try:
            read = self._read(value, md, headers)
            command = self._build(read, md, queue, local_qmgr)
            if refusal is not None:
                raise refusal
        except MQError as error:
            interface = read.interface if read is not None else _interface_of(md)
            item = ResponseItem.of(error, _culprit(error, read))
            if interface is Interface.RFH1 and read is not None and item.position is None:
                item = replace(item, position=_position(read.text, error))
            warning = error.comp is CC.WARNING
            response = Response.warning((item,)) if warning else Response.error(item)
            echo = tuple(read.pairs) if read is not None and error.reason not in _NO_ECHO else ()
            return InvalidCommand(md, queue, interface, response, echo, error.reason, error.detail)
        return command

    def _read(
        self, value: bytes, md: MQMD, headers: Sequence[tuple[str, bytes | None]] | None = None
    ) -> _Read:
        if md.Format not in (MQFMT_RF_HEADER_2, MQFMT_RF_HEADER_1):
            if has_psc(headers):
                assert headers is not None
                return _read_native(value, md, headers)
            raise MQError(
                RC.CF_MD_FORMAT_ERROR,
                f"MQMD Format {md.Format!r} is not an RFH, and no {TOPIC_HEADER} header",
            )
        if md.Format == MQFMT_RF_HEADER_2:
            fast = _read_plain_rfh2(value, md.Encoding, self._formats, self._plain_pairs)
            if fast is not None:
                return fast
        return _read_general(value, md)

    def _plain_pairs(self, text: str) -> tuple[tuple[str, str], ...] | None:
        pairs = self._pairs
        if text in pairs:
            return pairs[text]
        found = _plain_pairs(text)
        if len(pairs) >= _REMEMBERED:
            pairs.clear()
        pairs[text] = found
        return found

    def _build(self, read: _Read, md: MQMD, queue: str, local_qmgr: str) -> Command:
        if read.plain_psc:
            return self._publish_like_before(read, md, queue, local_qmgr)
        build = command_from_rfh1 if read.interface is Interface.RFH1 else command_from_psc
        return build(read.pairs, md, queue=queue, local_qmgr=local_qmgr, content=read.content)

    def _publish_like_before(self, read: _Read, md: MQMD, queue: str, local_qmgr: str) -> Command:
        """``command_from_psc`` for a plain <psc> seen before. A Publish depends on its
        message only through the pairs, the queue, and the MQMD's ReplyToQ, ReplyToQMgr and
        whether its CorrelId is zero (identity defaults, the 3080 check); with those the same,
        it is the remembered one with this message's MQMD and content."""
        assert read.plain_psc is not None
        key = (
            read.plain_psc, queue, local_qmgr, md.ReplyToQ, md.ReplyToQMgr, md.CorrelId == ZERO_ID
        )  # fmt: skip
        templates = self._templates
        template = templates.get(key)
        if template is not None:
            return _new_publish(template, md, read.content)
        cmd = command_from_psc(
            read.pairs, md, queue=queue, local_qmgr=local_qmgr, content=read.content
        )
        if isinstance(cmd, Publish):
            if len(templates) >= _REMEMBERED:
                templates.clear()
            template = template_values(cmd)
            for slot in _PER_MESSAGE_SLOTS:  # keep no message's MQMD or (maybe large) body alive
                template[slot] = None
            templates[key] = template
        return cmd


def decode_command(value: bytes, md: MQMD, queue: str, *, local_qmgr: str = "") -> Command:
    """The command a message put to ``queue`` carries; ``MQError`` when it has none (a
    reader of its own: nothing remembered between calls)."""
    return CommandReader().decode(value, md, queue, local_qmgr)


def process_message(
    state: EngineState,
    value: bytes,
    md: MQMD,
    queue: str,
    ctx: EngineContext,
    outcomes: list[Processed] | None = None,
    *,
    apply: bool = True,
    refusal: MQError | None = None,
    reader: CommandReader | None = None,
    headers: Sequence[tuple[str, bytes | None]] | None = None,
) -> list[Effect]:
    """Read a message put to ``queue``, step the engine, return the effects to carry out;
    with ``outcomes``, also say what became of it there (see ``handle``). ``apply=False``
    leaves the state effects to the caller (an adapter that journals them for undo).
    ``refusal``: see ``CommandReader.read``. ``reader``: the one that remembers (a new one
    when not given). ``headers``: the record's others than the MQMD's (``CommandReader.read``)."""
    command = (reader or CommandReader()).read(value, md, queue, ctx.qmgr_name, refusal, headers)
    effects = (step if apply else handle)(state, command, ctx, outcomes)
    for index, effect in enumerate(effects):
        if type(effect) is DeadLetter and effect.value is None:
            effects[index] = replace(effect, value=bytes(value))
    return effects


def _culprit(error: MQError, read: _Read | None) -> str | None:
    """The value a response repeats for a bad command or option (§3.4 optional tags)."""
    if read is None or error.parm is None:
        return None
    if error.reason == RC.RFH_COMMAND_ERROR and read.pairs:
        return read.pairs[0][1]
    return None


def _position(text: str, error: MQError) -> int | None:
    """MQPSErrorPos (§3.4): where the offending tag is in the NameValueString; the last
    character when a mandatory tag is missing; the first tag when it is not MQPSCommand."""
    if not text:
        return None
    if error.reason == RC.RFH_PARM_MISSING:
        return len(text) - 1
    if error.reason == RC.RFH_COMMAND_ERROR:
        return len(text) - len(text.lstrip())
    if error.parm is None:
        return None
    at = text.find(error.parm)
    if error.reason == RC.RFH_DUPLICATE_PARM and at >= 0:
        again = text.find(error.parm, at + len(error.parm))
        at = again if again >= 0 else at
    return at if at >= 0 else None


# --------------------------------------------------------------------------------------------
# Out


def encode_delivery(deliver: Deliver) -> tuple[MQMD, bytes]:
    """A publication copy as (MQMD, record value): RFH2 or RFH1 as the subscriber registered."""
    content = deliver.content
    md = deliver.md
    header: Header
    if deliver.interface is Interface.RFH2:
        plain = _write_plain_rfh2(md.Encoding, content, psc_text(deliver.psc))
        if plain is not None:
            return md, plain + content.body
        header = Rfh2(
            content.encoding,
            content.ccsid,
            content.format,
            0,
            content.name_value_ccsid,
            (psc_text(deliver.psc), *content.folders),
        )
        head = rfh2.encode(header, md.Encoding)
    else:
        header = Rfh1(
            content.encoding,
            content.ccsid,
            content.format,
            0,
            format_name_values((*deliver.psc, *content.name_values)),
        )
        head = rfh1.encode(header, md.Encoding, md.CodedCharSetId)
    return md, head + content.body


def _write_plain_rfh2(int_encoding: int, content: PublicationContent, psc: str) -> bytes | None:
    """``rfh2.encode`` of the delivered header, written directly when the content is plain
    (UTF-8 folders, an ASCII Format, a valid CCSID); None leaves it to ``rfh2``. Worth it:
    ``encode_delivery`` of bench_engine's copy takes 3.6 us this way, 12.1 us through
    ``rfh2.encode`` (best of 5 x 20,000, loaded machine); a Hypothesis test compares the
    bytes with ``rfh2.encode``'s."""
    ccsid = content.ccsid
    fmt = content.format
    if content.name_value_ccsid != 1208 or (ccsid <= 0 and ccsid != -2):
        return None
    if len(fmt) > 8 or not fmt.isascii() or "\x00" in fmt:
        return None
    order = "<" if int_encoding & 0xF == 2 else ">"
    pack_length = _LENGTH[order].pack
    parts = []
    for text in (psc, *content.folders):
        text = text.rstrip(" \x00")
        if not text:
            continue
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            return None
        if len(data) % 4:
            data += b"    "[: -len(data) % 4]
        parts.append(pack_length(len(data)))
        parts.append(data)
    folders = b"".join(parts)
    try:
        fixed = _FIXED_2[order].pack(
            b"RFH ", 2, 36 + len(folders), content.encoding, ccsid, fmt.ljust(8).encode(), 0, 1208
        )
    except struct.error:
        return None
    return fixed + folders


def encode_reply(reply: Reply) -> tuple[MQMD, bytes]:
    """A response as (MQMD, record value): ``<pscr>`` (plus the command echoed as a second
    NameValueData on warning/error, §3.3) or the RFH1 form (echo in a second MQRFH, §3.4)."""
    md = reply.md
    if reply.interface is Interface.RFH2:
        folders = [reply.response.pscr_text()]
        if reply.echo:
            # Tags that cannot be written back as XML are not echoed.
            with suppress(MQError):
                folders.append(render_folder(Folder.from_pairs("psc", reply.echo)))
        return md, rfh2.encode(Rfh2(folders=tuple(folders)), md.Encoding)
    response = format_name_values(reply.response.to_rfh1_pairs())
    if not reply.echo:
        return md, rfh1.encode(Rfh1(name_values=response), md.Encoding, md.CodedCharSetId)
    first = Rfh1(format=MQFMT_RF_HEADER_1, name_values=response)
    second = Rfh1(format=MQFMT_NONE, name_values=format_name_values(reply.echo))
    return md, rfh1.encode(first, md.Encoding, md.CodedCharSetId) + rfh1.encode(
        second, md.Encoding, md.CodedCharSetId
    )


# Markup characters and the C0 controls other than tab/LF/CR, as mqkafka.mq.folders writes them.
_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
    | {chr(c): f"&#{c};" for c in range(32) if chr(c) not in "\t\n\r"}
)


_SPECIAL = re.compile("[&<>\x00-\x08\x0b\x0c\x0e-\x1f]")


def psc_text(pairs: tuple[tuple[str, str], ...]) -> str:
    """The ``<psc>`` folder a delivered copy carries. The tags are the broker's own (valid
    names), so only the values need escaping."""
    parts = ["<psc>"]
    for tag, value in pairs:
        if _SPECIAL.search(value) is not None:
            value = value.translate(_ESCAPES)
        parts.append(f"<{tag}>{value}</{tag}>")
    parts.append("</psc>")
    return "".join(parts)


__all__ = [
    "CommandReader",
    "decode_command",
    "encode_delivery",
    "encode_reply",
    "process_message",
    "psc_text",
]
