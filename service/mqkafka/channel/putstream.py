"""A stream of asynchronous MQPUTs taken straight from a connection's inbox.

IBM's client sends async puts back to back without waiting, so one receive holds many of
them. The plain way (read_segment: a Header; the Reassembler; Session.call: the API header,
the verb's lookup, is_async_put, do_put) cost the listener's thread ~15.5 us a put; here
the segments already whole in the inbox are read in place, one after the other, and put
with the MQI's default MQPMO, as msgverbs' plain async put does: ~9.5 us, ~2 of them this
module's (bench.bench_channel_asyncput). A run of them to one queue whose MQMDs differ in
their MsgIds alone (RUN at most, as IBM's client sends them) is put by one call,
``Queue.put_run``, which makes each put's checks but not the per-call work (the MQMD's
template looked up, the MQMD filled back): ~6.6 us, against ~7.7 us for a Python MQI put
in the same run. The connection's loop has a whole segment at the inbox's head before it
asks (``fill_segment``): the first put after a receive, and one a receive cut, are the
stream's too.

Only the common case is taken: a whole one-segment async MQPUT (TSH or TSHM) on a connected
session's queue handle, whose MQPMO asks nothing but (no) syncpoint and whose MQMD and
data length are sound. At the first segment that is anything else the stream stops and
leaves it in the inbox, untouched, for the plain path, which says what is wrong with it;
so the outcome (puts, async status, counters, the TSHM reply template) is the plain path's,
as tests/unit/channel/test_channel_putstream.py checks segment stream by segment stream.
Each put runs outside the connection's read lock with ``busy_since`` set on a channel with
conversations, as the plain path's calls: the heartbeats' thread answers the client then.
"""

from __future__ import annotations

import logging
import struct
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Final, cast

from mqkafka.channel.codec.mqstructs import PMO_KIND, parse_md_fast
from mqkafka.channel.codec.segments import ChannelError, Flags1, SegType
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.rules.structs import MD

if TYPE_CHECKING:
    from mqkafka.channel.connection import ChannelConnection

log = logging.getLogger(__name__)

_TSH: Final = b"TSH "
_TSHM: Final = b"TSHM"
_MQPUT: Final = int(SegType.MQPUT)
_WHOLE: Final = int(Flags1.FIRST | Flags1.LAST)
_LENGTH: Final = struct.Struct(">I")
_IDS: Final = struct.Struct(">II")
_INT: Final = {order: struct.Struct(order + "i") for order in "<>"}
_PMO: Final = {order: struct.Struct(order + "ii") for order in "<>"}  # Version, Options
_ASYNC: Final = C.MQPMO_ASYNC_RESPONSE
# an async put's options the stream leaves to the plain path: any but (no) syncpoint, as
# msgverbs.mqi_put_options gives them the MQI (a sync response too: both types, its 2046)
_NOT_PLAIN: Final = ~(_ASYNC | C.MQPMO_NO_SYNCPOINT)
_PMO_SIZES: Final = {version: PMO_KIND.size(version) for version in (1, 2, 3)}
_API: Final = 16
_new = object.__new__
RUN: Final = 128  # async puts a run at most, taken from the inbox at once


class PutStream:
    """One connection's reader of async put runs (its own thread's; the unread bytes
    taken through ``take_unread``, under the connection's read lock, each put outside
    it, as the plain path's calls)."""

    def __init__(self, connection: ChannelConnection) -> None:
        self.connection = connection
        # the last MQMD read: its bytes before and after the MsgId, the byte order, its
        # size and fields (a stream's MQMDs differ in their MsgIds alone: the client's own)
        self._md_key: tuple[bytes, bytes, str] = (b"", b"", "")
        self._md_size = 0
        self._md_fields: dict[str, object] = {}

    def take(self, pending: bool) -> bool:
        """Put the run of async MQPUTs at the inbox's head; False: none there (the plain
        path reads the next segment). ``pending``: a flow is being reassembled (then the
        plain path has the next segment, whatever it is)."""
        conn = self.connection
        session = conn.session
        qmgr = session.qmgr
        if pending or qmgr is None or not qmgr.is_connected:
            return False
        take_unread, next_run = conn.take_unread, self._next_run
        async_puts = session.async_puts
        calls = puts = 0
        try:
            while True:
                found = take_unread(next_run)  # held: the heartbeats' thread reads in a call
                if found is None:
                    break
                queue, md, items, ids = found
                if conn.conversations:
                    self._follow(conn, ids)
                    conn.busy_since = time.monotonic()  # as the plain path: beats answered
                try:
                    while items:  # each put in turn, on past one refused: MQ's async puts
                        done, error = queue.put_run(md, items)
                        calls += done
                        puts += done
                        async_puts.succeeded(done)
                        if error is None:
                            break
                        log.debug("channel: async put to %s: %s", queue.name, error)
                        async_puts.refused(int(error.comp), error.reason, queue.name,
                                           conn.settings.qmgr)  # fmt: skip
                        calls += 1
                        puts += error.comp < 2  # a warning is a put made
                        items = items[done + 1 :]
                finally:
                    conn.busy_since = None
        finally:
            if calls:
                counters = conn.info.counters
                counters.calls += calls
                counters.puts += puts
                counters.last_verb = "MQPUT"
                counters.last_time = time.time()
        return calls > 0

    def _next_run(
        self, inbox: bytearray
    ) -> tuple[Queue, MD, list[tuple[bytes, bytes]], tuple[int, int]] | None:
        """The async puts whole at the head of the unread bytes, to one queue, each MQMD
        the first's but for its MsgId (RUN at most), taken out of them; None: none there.
        The puts after the first are read where they lie (offsets into the inbox, compared
        in place, one deletion for the run): ~1 us a put less than one by one."""
        end = len(inbox)
        first = self._first(inbox, end)
        if first is None:
            return None
        queue, item, at, head, byte_order, hobj = first
        items = [item]
        last = 0  # where the last put taken starts (its ids)
        conn, settings = self.connection, self.connection.settings
        max_segment, max_flow, max_message = (
            conn.max_segment,
            settings.max_flow,
            settings.max_message,
        )
        struc_id = _TSHM if head == 36 else _TSH
        md_head, md_tail, order = self._md_key
        md_size, as_int, as_pmo = self._md_size, _INT[order].unpack_from, _PMO[order].unpack_from
        unpack_length, startswith = _LENGTH.unpack_from, inbox.startswith
        while len(items) < RUN and end - at >= head and startswith(struc_id, at):
            (length,) = unpack_length(inbox, at + 4)
            seg_end = at + length
            if length < head or length > max_segment or seg_end > end:
                break
            h = at + head - 20  # the rest of the header: byte order, type, flags, ...
            if inbox[h] != byte_order or inbox[h + 1] != _MQPUT or inbox[h + 2] & _WHOLE != _WHOLE:
                break
            if not _API <= length - head <= max_flow:
                break
            rest = at + head + _API
            if as_int(inbox, rest - 4)[0] != hobj or rest + md_size > seg_end:
                break
            if not (startswith(md_head, rest) and startswith(md_tail, rest + 72)):
                break  # an MQMD that is not the run's but for its MsgId
            pmo_at = rest + md_size
            if seg_end - pmo_at < 12:
                break
            version, options = as_pmo(inbox, pmo_at + 4)
            if options & _NOT_PLAIN or not options & _ASYNC or not 1 <= version <= 3:
                break
            data_at = pmo_at + _PMO_SIZES[version] + 4
            if seg_end < data_at:
                break
            (data_length,) = as_int(inbox, data_at - 4)
            if data_length < 0 or data_length > max_message or seg_end - data_at < data_length:
                break
            items.append(
                (bytes(inbox[data_at : data_at + data_length]), bytes(inbox[rest + 48 : rest + 72]))
            )
            last, at = at, seg_end
        # as the plain path's _follow on a channel with conversations: a TSH one's are (0, 0)
        ids = _IDS.unpack_from(inbox, last + 8) if head == 36 else (0, 0)
        del inbox[:at]
        md: MD = _new(MD)
        md.__dict__.update(self._md_fields)
        return queue, md, items, ids

    def _first(
        self, inbox: bytearray, end: int
    ) -> tuple[Queue, tuple[bytes, bytes], int, int, int, int] | None:
        """The async put whole at the head of the unread bytes (left there): its queue, its
        data and MsgId (its MQMD's other fields: ``_md_fields``), its length, its header's
        length, byte order and the handle; None: none there."""
        conn = self.connection
        if end < 28:
            return None
        if inbox.startswith(_TSH):
            head = 28
        elif inbox.startswith(_TSHM):
            head = 36
        else:
            return None
        (length,) = _LENGTH.unpack_from(inbox, 4)
        if length < head or length > conn.max_segment or end < length:
            return None
        h = head - 20  # the rest of the header: byte order, type, flags, ...
        byte_order, seg_type, flags1 = inbox[h], inbox[h + 1], inbox[h + 2]
        if seg_type != _MQPUT or flags1 & _WHOLE != _WHOLE or not 1 <= byte_order <= 2:
            return None
        order = ">" if byte_order == 1 else "<"
        settings = conn.settings
        if length - head > settings.max_flow or length - head < _API:
            return None
        hobj = _INT[order].unpack_from(inbox, head + 12)[0]
        queue = conn.session.handles.get(hobj)
        if not isinstance(queue, Queue):
            return None
        rest = head + _API
        msg_id = self._md_as_last(inbox, order, rest, length)
        if msg_id is not None:
            md_size = self._md_size
        else:
            try:  # an MQMD running past the segment is caught next, by its PMO's room
                md, md_size = parse_md_fast(cast(bytes, inbox), order, rest)  # read only
            except ChannelError:
                return None  # the plain path says what is wrong
            at = rest + md_size
            self._md_key = (bytes(inbox[rest : rest + 48]), bytes(inbox[rest + 72 : at]), order)
            self._md_size, self._md_fields = md_size, dict(md.__dict__)
            msg_id = md.MsgId
        pmo_at = rest + md_size
        if length - pmo_at < 12:
            return None
        version, options = _PMO[order].unpack_from(inbox, pmo_at + 4)
        if options & _NOT_PLAIN or not options & _ASYNC or not 1 <= version <= 3:
            return None
        data_at = pmo_at + _PMO_SIZES[version] + 4
        if length < data_at:
            return None
        (data_length,) = _INT[order].unpack_from(inbox, data_at - 4)
        if data_length < 0 or data_length > settings.max_message or length - data_at < data_length:
            return None
        data = bytes(inbox[data_at : data_at + data_length])
        return queue, (data, msg_id), length, head, byte_order, hobj

    def _md_as_last(self, inbox: bytearray, order: str, rest: int, length: int) -> bytes | None:
        """The MsgId of the MQMD at ``rest`` when it is the last one's but for its MsgId
        (compared in place, without its key's copy and hash); else None."""
        head, tail, last_order = self._md_key
        if order != last_order or rest + self._md_size > length:
            return None
        if not (inbox.startswith(tail, rest + 72) and inbox.startswith(head, rest)):
            return None
        return bytes(inbox[rest + 48 : rest + 72])

    @staticmethod
    def _follow(conn: ChannelConnection, ids: tuple[int, int]) -> None:
        template = conn.template
        if (template.conversation, template.request) != ids:
            conn.template = replace(template, conversation=ids[0], request=ids[1])


__all__ = ["PutStream"]
