"""The flows of read ahead (asynchronous get) on a channel with conversations: the client's
REQUEST_MSGS (0x0E), the listener's ASYNC_MESSAGE (0x0D) and NOTIFICATION (0x0F).

Layouts (Wireshark's MQ dissector names the fields; the values are what IBM's 9.4 Java client
sent to this listener): integers in the segment's byte order, no API header.

REQUEST_MSGS, 40 bytes, 64 and the match ids with selection: version, Hobj, bytes received,
bytes requested, the largest message the client takes, MQGMO options, wait interval, queue
status, request flags (0x10: a selection follows; 0x02, as the client sends it when its
application's wait ends with nothing read ahead: answer now), global message index; with
selection:
selection index (2 bytes), MQMD version (2), CCSID, encoding, message sequence number, offset,
match options, then a MsgId (24) and a CorrelId (24), GroupId (24) and message token (16)
each present when the match options name it.

ASYNC_MESSAGE, the first segment of a message: version, Hobj, message index, global message
index, segment length, segment index (2), selection index (2), reason code, the message's
whole length, the length sent, message token (16), status (2), the resolved queue name as
one length byte and the name, padded so the header is a multiple of 4; then the MQMD and the
data. A later segment of the same message has the first 24 bytes only.

NOTIFICATION: version, Hobj, code, value.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, replace
from typing import Final

from mqkafka.channel.codec.segments import STATUS_INVALID_DATA, ChannelError

REQUEST_FIXED: Final = 40
SELECTION_FIXED: Final = 64
FLAG_SELECTION: Final = 0x10
FLAG_CHECK: Final = 0x02  # the client's wait ended: answer on this request's id (observed)
ASYNC_FIXED: Final = 24  # a later segment's header; the first adds 31 and the name
MATCH_MSG_ID: Final = 0x01
MATCH_CORREL_ID: Final = 0x02
MATCH_GROUP_ID: Final = 0x04
MATCH_MSG_TOKEN: Final = 0x20
NOTIFICATION_LENGTH: Final = 16
# notification codes (the dissector's names)
NC_GET_INHIBITED: Final = 1
NC_GET_ALLOWED: Final = 2
NC_QM_QUIESCING: Final = 7
NC_MESSAGE_TOO_LARGE: Final = 13
NC_CLIENT_ASYNC_EMPTY: Final = 15

_ID_FIELDS: Final = (
    (MATCH_MSG_ID, "msg_id", 24),
    (MATCH_CORREL_ID, "correl_id", 24),
    (MATCH_GROUP_ID, "group_id", 24),
    (MATCH_MSG_TOKEN, "msg_token", 16),
)


@dataclass(frozen=True)
class MsgRequest:
    """One REQUEST_MSGS: the client asks for messages of ``hobj`` (``requested`` bytes in
    all since it began, ``received`` of them had) with these get options."""

    hobj: int
    received: int
    requested: int
    max_length: int
    options: int
    wait: int
    queue_status: int = 0
    flags: int = 0
    global_index: int = 0
    version: int = 1
    select_index: int = 0
    md_version: int = 0
    ccsid: int = 0
    encoding: int = 0
    seq_number: int = 0
    offset: int = 0
    match_options: int = 0
    msg_id: bytes = b""
    correl_id: bytes = b""
    group_id: bytes = b""
    msg_token: bytes = b""

    @property
    def selection(self) -> bool:
        return bool(self.flags & FLAG_SELECTION)

    def to_bytes(self, order: str) -> bytes:
        out = struct.pack(
            order + "10i", self.version, self.hobj, self.received, self.requested,
            self.max_length, self.options, self.wait, self.queue_status, self.flags,
            self.global_index,
        )  # fmt: skip
        if not self.selection:
            return out
        out += struct.pack(
            order + "HH5i", self.select_index, self.md_version, self.ccsid, self.encoding,
            self.seq_number, self.offset, self.match_options,
        )  # fmt: skip
        for bit, name, size in _ID_FIELDS:
            if self.match_options & bit:
                value: bytes = getattr(self, name)
                out += value[:size].ljust(size, b"\0")
        return out


def parse_request(body: bytes, order: str) -> MsgRequest:
    """A REQUEST_MSGS body; one cut short is a :class:`ChannelError`."""
    if len(body) < REQUEST_FIXED:
        raise ChannelError(STATUS_INVALID_DATA, f"REQUEST_MSGS of {len(body)} bytes")
    head = struct.unpack_from(order + "10i", body)
    version, hobj, received, requested, max_length, options, wait, status, flags, index = head
    if not flags & FLAG_SELECTION:
        return MsgRequest(hobj, received, requested, max_length, options, wait, status, flags,
                          index, version)  # fmt: skip
    if len(body) < SELECTION_FIXED:
        raise ChannelError(STATUS_INVALID_DATA, "REQUEST_MSGS selection cut short")
    select, md_version, ccsid, encoding, seq, offset, match = struct.unpack_from(
        order + "HH5i", body, REQUEST_FIXED
    )
    ids: dict[str, bytes] = {}
    at = SELECTION_FIXED
    for bit, name, size in _ID_FIELDS:
        if match & bit:
            if len(body) < at + size:
                raise ChannelError(STATUS_INVALID_DATA, "REQUEST_MSGS match ids cut short")
            ids[name] = bytes(body[at : at + size])
            at += size
    return MsgRequest(
        hobj, received, requested, max_length, options, wait, status, flags, index, version,
        select, md_version, ccsid, encoding, seq, offset, match, **ids,
    )  # fmt: skip


_FIRST_HEAD: Final = {o: struct.Struct(o + "5iHH3i16sHB") for o in "<>"}


@dataclass(frozen=True)
class AsyncHeader:
    """The header of an ASYNC_MESSAGE's first segment (what precedes the MQMD)."""

    hobj: int
    msg_index: int
    global_index: int
    seg_length: int
    select_index: int
    reason: int
    total_length: int
    actual_length: int
    resolved_queue: str = ""
    token: bytes = bytes(16)
    status: int = 0
    seg_index: int = 0
    version: int = 1

    def to_bytes(self, order: str) -> bytes:
        name = self.resolved_queue.encode("latin-1")[:48]
        head = _FIRST_HEAD[order].pack(
            self.version, self.hobj, self.msg_index, self.global_index, self.seg_length,
            self.seg_index, self.select_index, self.reason, self.total_length,
            self.actual_length, self.token[:16].ljust(16, b"\0"), self.status, len(name),
        )  # fmt: skip
        return head + name + bytes(-(3 + len(name)) % 4)


def async_header_size(resolved_queue: str) -> int:
    """The first segment's header length for a resolved queue name."""
    name = len(resolved_queue.encode("latin-1")[:48])
    return 55 + name + (-(3 + name) % 4)


def parse_async_header(body: bytes, order: str) -> tuple[AsyncHeader, bytes]:
    """An ASYNC_MESSAGE first segment: its header and what follows (MQMD and data)."""
    head = _FIRST_HEAD[order]
    if len(body) < head.size:
        raise ChannelError(STATUS_INVALID_DATA, f"ASYNC_MESSAGE of {len(body)} bytes")
    (version, hobj, msg_index, global_index, seg_length, seg_index, select, reason, total,
     actual, token, status, length) = head.unpack_from(body)  # fmt: skip
    end = head.size + length
    end += -(3 + length) % 4
    if len(body) < end:
        raise ChannelError(STATUS_INVALID_DATA, "ASYNC_MESSAGE queue name cut short")
    name = body[head.size : head.size + length].decode("latin-1")
    header = AsyncHeader(hobj, msg_index, global_index, seg_length, select, reason, total,
                         actual, name, token, status, seg_index, version)  # fmt: skip
    return header, body[end:]


@dataclass(frozen=True)
class Notification:
    """A NOTIFICATION flow: ``code`` (NC_*) about ``hobj``, with a value (a reason code)."""

    hobj: int
    code: int
    value: int = 0
    version: int = 1

    def to_bytes(self, order: str) -> bytes:
        return struct.pack(order + "4i", self.version, self.hobj, self.code, self.value)


def parse_notification(body: bytes, order: str) -> Notification:
    if len(body) < NOTIFICATION_LENGTH:
        raise ChannelError(STATUS_INVALID_DATA, f"NOTIFICATION of {len(body)} bytes")
    version, hobj, code, value = struct.unpack_from(order + "4i", body)
    return Notification(hobj, code, value, version)


__all__ = [
    "FLAG_CHECK",
    "FLAG_SELECTION",
    "NC_CLIENT_ASYNC_EMPTY",
    "NC_MESSAGE_TOO_LARGE",
    "AsyncHeader",
    "MsgRequest",
    "Notification",
    "async_header_size",
    "async_segments",
    "async_single",
    "padded_name",
    "parse_async_header",
    "parse_notification",
    "parse_request",
]


def padded_name(resolved_queue: str) -> bytes:
    """The resolved queue name as the first segment's header ends: length byte, name, pad."""
    name = resolved_queue.encode("latin-1")[:48]
    return bytes([len(name)]) + name + bytes(-(3 + len(name)) % 4)


def async_single(
    order: str, hobj: int, index: int, global_index: int, select_index: int, name: bytes,
    md: bytes, data: bytes,
) -> bytes:  # fmt: skip
    """A message that fits one segment, as :func:`async_segments` makes it (``name`` from
    :func:`padded_name`): the read-ahead stream's fast path, one pack and no objects (a
    message's own header cost ~30 us made through :class:`AsyncHeader`)."""
    size = len(data)
    head = _SINGLE[order].pack(
        1, hobj, index, global_index, size, 0, select_index, 0, size, size, _NO_TOKEN, 0
    )
    return head + name + md + data


_SINGLE: Final = {o: struct.Struct(o + "5iHH3i16sH") for o in "<>"}
_NO_TOKEN: Final = bytes(16)


def async_segments(
    head: AsyncHeader, md: bytes, data: bytes, room: int, order: str
) -> list[tuple[bytes, bool, bool]]:
    """One message as ASYNC_MESSAGE segment bodies of at most ``room`` bytes each, with
    whether each is the first and the last: the first has the whole header and the MQMD, a
    later one the 24-byte header; each one's segment length is the data it carries."""
    first_fixed = async_header_size(head.resolved_queue) + len(md)
    take = max(room - first_fixed, 0)
    parts = [data[:take]]
    later = max(room - ASYNC_FIXED, 1)
    parts += [data[at : at + later] for at in range(take, len(data), later)]
    out: list[tuple[bytes, bool, bool]] = []
    last = len(parts) - 1
    for index, part in enumerate(parts):
        if index == 0:
            body = replace(head, seg_length=len(part)).to_bytes(order) + md + part
        else:
            body = struct.pack(
                order + "5iHH", head.version, head.hobj, head.msg_index, head.global_index,
                len(part), index, head.select_index,
            ) + part  # fmt: skip
        out.append((body, index == 0, index == last))
    return out
