"""One client connection of the listener, in a thread of its own (module :mod:`.server`
accepts them).

The initial data is answered with the agreed values, the user id recorded, then every verb
(reassembled from its segments) goes to the connection's :class:`Session` and the reply goes
back in segments of the agreed size; on a channel with conversations the handles the client
reads ahead from have streams of their own (module :mod:`.readahead`). Bad input (a
malformed, truncated or oversized segment, an unknown segment type, a negotiation that cannot
be agreed) ends that connection only, with a STATUS segment and one log line.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import ssl
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TypeVar

from mqkafka.channel.codec import initial, verbs
from mqkafka.channel.codec.segments import (
    STATUS_PROTOCOL_GENERAL,
    STATUS_QM_TERMINATING,
    STATUS_SEGMENT_TYPE,
    ChannelError,
    Flags1,
    Header,
    Reassembler,
    SegType,
    parse_header,
    peek_length,
    split,
)
from mqkafka.channel.counters import ChannelCounters
from mqkafka.channel.heartbeats import heartbeat_answer, walk_heartbeats
from mqkafka.channel.putstream import PutStream
from mqkafka.channel.readahead import ReadAhead
from mqkafka.channel.session import KNOWN_VERBS, Session
from mqkafka.channel.settings import ListenerSettings
from mqkafka.channel.tls import HANDSHAKE_TIMEOUT_S, subject_user
from mqkafka.channel.transport import Transport

T = TypeVar("T")
log = logging.getLogger("mqkafka.channel.server")  # the listener's lines keep their logger name

HANDSHAKE_LIMIT = 65_536  # the largest initial-data segment taken before sizes are agreed
BEAT_S = 2.0  # a heartbeat this often while a verb waits (the client's patience: ~5 s)
SCAN_S = 0.25  # in a backlog the connection's thread answers heartbeats this often
# what is read ahead of the reader to find heartbeats behind a backlog: beyond it the
# client waits on TCP (and a heartbeat behind more than this waits its turn)
DRAIN_LIMIT = 16 << 20
STOP_WRITE_S = 1.0  # a stop's status waits this long for a writer's flow to end


class Closed(Exception):
    """The client closed its socket (or it broke)."""


class Refused(Exception):
    """A TLS handshake that failed, or a client certificate naming no user id."""


@dataclass
class ConnectionInfo:
    """What an operator sees of one connection."""

    number: int
    peer: str
    channel: str = ""
    user: str = ""
    appl: str = ""
    since: float = field(default_factory=time.time)
    counters: ChannelCounters = field(default_factory=ChannelCounters)


class ChannelConnection:
    def __init__(self, sock: socket.socket, info: ConnectionInfo, settings: ListenerSettings):
        self.sock = sock
        self.transport = Transport(sock)  # every read and write of the socket, any thread's
        self.info = info
        self.settings = settings
        self.session = Session(settings)
        self.template = Header(SegType.STATUS_DATA)
        self.max_segment = settings.max_segment
        self.stopping = False
        self.ending = ""  # why the listener ends it (a client that stopped reading), if so
        self.heartbeat = settings.heartbeat  # seconds: the interval agreed (0: none)
        self.busy_since: float | None = None  # an MQGET in the MQI since then (its wait)
        self.last_beat = 0.0
        self.tls_user = ""  # the client certificate's user id: USERID_DATA cannot change it
        self.conversations = 0  # conversations per socket agreed: 1, TSHM headers
        self._inbox = bytearray()  # bytes received and not yet read
        self._reading = threading.Lock()  # the reader: this thread, or (in a call) the beats'
        # when this thread last answered heartbeats in a backlog (or last saw none): a look
        # reads each byte once (~0.3 us an async put), so a short burst is spared it
        self._scanned = 0.0
        # where the last look for heartbeats stopped, as a count of bytes received (none yet)
        self._walked = self._looked = -(1 << 62)  # and where a TSHC may be, no sooner
        self.put_stream = PutStream(self)  # runs of async MQPUTs, read in place
        self.read_ahead = ReadAhead(
            self.push, lambda: self.max_segment
        )  # messages pushed on REQUEST_MSGS

    # ---- bytes ----

    def _read_exactly(self, size: int) -> bytes:
        """``size`` bytes; a receive takes what has come (a segment's header and body in
        one system call, not two: a Java MQPUT's round trip is ~100 us)."""
        inbox = self._inbox
        if len(inbox) < size:
            self._fill(size)
        out = bytes(inbox[:size])
        del inbox[:size]
        return out

    def _fill(self, size: int) -> None:
        """At least ``size`` bytes in the inbox."""
        inbox = self._inbox
        while len(inbox) < size:
            chunk = self.transport.recv(max(size - len(inbox), 1 << 16))
            if not chunk:
                raise Closed
            inbox += chunk
            self.info.counters.bytes_received += len(chunk)

    def fill_segment(self) -> None:
        """A whole segment at the inbox's head, its length checked as ``read_segment``
        checks it: then the put stream takes the first async put after a receive too (read
        by the plain path, that one cost ~10 us more, and was ~10% of a Java client's)."""
        with self._reading:
            inbox = self._inbox
            waited = not inbox
            if len(inbox) < 8:
                self._fill(8)
            length = peek_length(bytes(inbox[:8]), self.max_segment)
            if len(inbox) < length:
                self._fill(length)
            if waited:  # no backlog: a look is due SCAN_S into this one (not after the wait)
                self._scanned = time.monotonic()

    def read_segment(self, limit: int) -> tuple[Header, bytes]:
        with self._reading:
            inbox = self._inbox
            if not inbox:  # no backlog: a look is due SCAN_S into the next one, not before
                self._scanned = time.monotonic()
            elif self.conversations and time.monotonic() - self._scanned >= SCAN_S:
                self._answer_heartbeats_in_backlog()  # heartbeats behind it answered first
            if len(inbox) < 8:
                self._fill(8)
            length = peek_length(bytes(inbox[:8]), limit)
            segment = self._read_exactly(length)  # header and body in one slice
        header = parse_header(segment)
        return header, segment[header.size :]

    def take_unread(self, taker: Callable[[bytearray], T]) -> T:
        """``taker`` given the bytes received and not yet read, held from other readers:
        whole segments start at its head, and it takes whole segments from there (module
        :mod:`.putstream`). The heartbeats in it are answered first when due. (A method,
        not a context manager: ~1 us less an async put.)"""
        with self._reading:  # the check inline: an async put's cost
            if self.conversations and time.monotonic() - self._scanned >= SCAN_S:
                self._answer_heartbeats_in_backlog()
            return taker(self._inbox)

    def answer_heartbeats(self) -> None:
        """In a call on a channel with conversations: the client's HEARTBEAT requests that
        have come meanwhile are answered now, from the heartbeats' thread (module
        :mod:`.heartbeats` says why), on TLS too: the transport reads what has come without
        waiting, its SSL calls one at a time (module :mod:`.transport`)."""
        if self.transport.owed or not self._reading.acquire(blocking=False):
            return  # owing answers already: what has come waits (the owed stay bounded)
        try:
            if self.busy_since is not None:
                self._answer_heartbeats(self._offer_header)
        finally:
            self._reading.release()

    def _answer_heartbeats_in_backlog(self) -> None:
        """In the connection's thread, the read lock held: every SCAN_S while it reads a
        backlog on a channel with conversations, the heartbeats in it and behind it (read
        now, up to DRAIN_LIMIT) answered."""
        self._scanned = time.monotonic()
        self._answer_heartbeats(self._send_header)

    def _answer_heartbeats(self, send: Callable[[Header], None]) -> None:
        """What has come read without waiting, its heartbeat requests answered by ``send``
        (the read lock held)."""
        transport, inbox = self.transport, self._inbox
        try:
            while len(inbox) < DRAIN_LIMIT:
                chunk = transport.recv_ready(1 << 16)  # TLS: a record cut short stays there
                if not chunk:
                    break  # nothing more now (or the end: the reader meets it next)
                inbox += chunk
                self.info.counters.bytes_received += len(chunk)
            head = self.info.counters.bytes_received - len(inbox)  # the inbox's start, counted
            start = max(0, self._walked - head)
            look_from = max(0, self._looked - head)
            asked, stop, looked = walk_heartbeats(inbox, start, self.max_segment, look_from)
            head = self.info.counters.bytes_received - len(inbox)  # less what was taken out
            self._walked, self._looked = head + stop, head + looked
            for request in asked:
                send(heartbeat_answer(self.template, request))
        except (OSError, ValueError):
            return  # this connection's thread meets the same when it reads

    def _send_header(self, header: Header) -> None:
        with contextlib.suppress(OSError):
            self.transport.sendall(header.to_bytes())
            self.info.counters.bytes_sent += header.size

    def _offer_header(self, header: Header) -> None:
        """From the heartbeats' thread: sent without waiting, else owed (``Transport.offer``)."""
        with contextlib.suppress(OSError):
            self.transport.offer(header.to_bytes())
            self.info.counters.bytes_sent += header.size

    def send(self, seg_type: int, body: bytes) -> None:
        transport = self.transport
        with transport.writing:  # a flow's segments together
            for part in split(self.template, seg_type, body, self.max_segment):
                transport.write(part)
                self.info.counters.bytes_sent += len(part)

    def push(self, segments: bytes, messages: int) -> None:
        """Whole segments the listener starts (read ahead's), sent at once; ``messages``
        got and sent in them (counted as MQGETs, as MQ counts read-ahead messages)."""
        with self.transport.writing:
            self.transport.write(segments)
            counters = self.info.counters
            counters.bytes_sent += len(segments)
            if messages:
                counters.gets += messages
                counters.last_verb, counters.last_time = "MQGET", time.time()

    def send_status(self, code: int, wait: bool = True) -> None:
        """A STATUS segment; not ``wait``: offered (it waits for no writer)."""
        order = self.template.order
        body = verbs.status_body(order, code)
        flags = Flags1.FIRST | Flags1.LAST | Flags1.ERROR
        header = self.template.for_body(SegType.STATUS_DATA, len(body), flags)
        if wait:
            self.transport.sendall(header.to_bytes() + body)
        else:
            self.transport.offer(header.to_bytes() + body)
        self.info.counters.bytes_sent += header.size + len(body)

    # ---- the conversation ----

    def run(self) -> None:
        reason = "closed by the client"
        lost = False
        try:
            self._tls_handshake()
            self._handshake()
            self._serve()
        except ChannelError as error:
            reason, lost = f"{error.detail} (status {error.status})", True
            self._try_status(error.status)
        except Refused as error:  # one line, no traceback: a port scan or a wrong certificate
            log.warning("channel: connection %s from %s refused: %s", self.info.number,
                        self.info.peer, error)  # fmt: skip
            self.transport.close()
            return
        except Closed:
            reason, lost = ("stopped" if self.stopping else "lost (socket closed)"), True
        except OSError as error:
            reason, lost = f"lost ({error.strerror or error})", True
        except Exception as error:  # a bug of ours: this connection only, said in one line
            reason, lost = f"failed: {type(error).__name__}: {error}", True
            self._try_status(STATUS_PROTOCOL_GENERAL)
        finally:
            if self.ending:  # what the reader or a writer met then is its consequence
                reason, lost = self.ending, True
            with contextlib.suppress(OSError):
                self.transport.shutdown()  # a writer blocked in it (read ahead's) wakes
            self.read_ahead.stop_all()
            self.session.end(lost=lost)
            self.transport.close()
            log.info("channel: connection %s ended: %s", self.info.number, reason)

    def _try_status(self, code: int) -> None:
        with contextlib.suppress(OSError):
            self.send_status(code)

    def _tls_handshake(self) -> None:
        """In the connection's thread: a slow or silent client holds up no one else."""
        if not isinstance(self.sock, ssl.SSLSocket):
            return
        try:
            self.transport.handshake(HANDSHAKE_TIMEOUT_S)
        except ssl.SSLError as error:
            raise Refused(f"TLS handshake: {error.reason or error}") from None
        except TimeoutError:
            raise Refused("TLS handshake: timed out") from None
        except OSError as error:
            raise Refused(f"TLS handshake: {error.strerror or error}") from None
        if self.settings.tls is None or not self.settings.tls.maps_user:
            return
        cert = self.sock.getpeercert()
        user = subject_user(cert.get("subject", ())) if cert else None  # type: ignore[arg-type]
        if user is None:
            raise Refused("the client certificate's subject has no CN (no user id)")
        self.tls_user = self.info.user = self.session.user = user

    def _handshake(self) -> None:
        header, body = self.read_segment(HANDSHAKE_LIMIT)
        self.template = Header(
            SegType.INITIAL_DATA,
            byte_order=header.byte_order,
            encoding=header.encoding,
            ccsid=header.ccsid,
        )
        if header.seg_type != SegType.INITIAL_DATA:
            raise ChannelError(STATUS_SEGMENT_TYPE, f"first segment type {header.seg_type:#x}")
        client = initial.parse_initial(body, header.order)
        agreed, answer = initial.negotiate(
            client,
            header.order,
            qmgr=self.settings.qmgr,
            max_segment=self.settings.max_segment,
            max_message=self.settings.max_message,
            heartbeat=self.settings.heartbeat,
            sharecnv=self.settings.sharecnv_of(client.channel),
        )
        self.info.channel = client.channel
        self.session.ccsid = header.ccsid
        self.send(SegType.INITIAL_DATA, answer)
        self.heartbeat = agreed.heartbeat
        self.max_segment = agreed.max_segment
        self.conversations = agreed.sharecnv
        if agreed.sharecnv:  # TSHM from now on, both ways (the client's first: conversation 1)
            self.template = replace(self.template, multiplexed=True, conversation=1)

    def _follow(self, header: Header) -> None:
        """On a channel with conversations an answer is ``TSHM`` with the conversation and
        request ids of the verb it answers (``TSHC`` segments have none: module
        :mod:`.heartbeats`)."""
        template = self.template
        ids = (header.conversation, header.request)
        if not header.common and (template.conversation, template.request) != ids:
            self.template = replace(template, conversation=ids[0], request=ids[1])

    def _serve(self) -> None:
        flows = Reassembler(self.settings.max_flow)
        while True:
            self.fill_segment()
            if self.put_stream.take(flows.pending):
                continue
            header, body = self.read_segment(self.max_segment)
            if self.conversations:
                self._follow(header)
            if header.seg_type < 0x80:  # channel-level: never more than one segment
                if self._channel_flow(header, body):
                    return  # the client's close
                continue
            if header.seg_type not in KNOWN_VERBS:
                raise ChannelError(STATUS_SEGMENT_TYPE, f"segment type {header.seg_type:#x}")
            whole = flows.add(header, body)
            if whole is None:
                continue
            first, request = whole
            # heartbeats only during an MQGET: on a channel without shared conversations the
            # client expects them there alone (another verb slower than BEAT_S, such as an
            # MQCONN on a busy listener, met one and the Java client failed on it)
            if self.conversations or first.seg_type == SegType.MQGET:
                self.busy_since = time.monotonic()
            if self.read_ahead.streams:  # before MQCLOSE or MQDISC: the stream ends first
                self.read_ahead.before(first.seg_type, request, first.order)
            try:
                reply = self.session.call(first.seg_type, first.order, request)
            finally:
                self.busy_since = None
            if reply is None:  # an asynchronous put: not answered (module asyncput)
                outcome = self.session.async_puts.last_header(first.order)
                self.info.counters.verb(first.seg_type, first.order, outcome)
                continue
            self._answer(first, request, reply)

    def _channel_flow(self, header: Header, body: bytes) -> bool:
        """A channel-level segment between verbs; True: the client's close."""
        seg_type = header.seg_type
        if seg_type == SegType.USERID_DATA:
            if not self.tls_user:  # else the certificate's subject decides
                self.info.user = self.session.user = initial.parse_user(body)
            return False  # the client does not wait for an answer
        if seg_type == SegType.STATUS_DATA:
            return True
        if seg_type == SegType.HEARTBEAT:
            log.debug("channel: connection %s HEARTBEAT flags %#x %s: %s", self.info.number,
                      header.flags1, "TSHM" if header.multiplexed else "TSH",
                      body.hex())  # fmt: skip
            if header.flags1 & Flags1.CONFIRM_REQUEST:  # the client asks; else it answers
                self._send_header(heartbeat_answer(self.template, header))
            return False
        if seg_type == SegType.REQUEST_MSGS:
            self.read_ahead.request(header, body, self.session.handles.get)
            return False
        if seg_type == SegType.SOCKET_ACTION:
            return self._socket_action(header, body)  # the end of a TSHM channel's conversation
        raise ChannelError(STATUS_SEGMENT_TYPE, f"segment type {seg_type:#x}")

    def _answer(self, first: Header, request: bytes, reply: bytes) -> None:
        self.info.counters.verb(first.seg_type, first.order, reply)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("channel: connection %s %s: %d bytes -> CC %d RC %d", self.info.number,
                      _name(first.seg_type), len(request), *struct.unpack_from(
                          first.order + "ii", reply, 4))  # fmt: skip
        if first.seg_type == SegType.MQCONN and self.session.connected:
            # named before the client hears: a status it reads next shows the application
            self.info.appl = self.session.appl_name
            log.info("channel: connection %s from %s connected: channel %s, user %s, "
                     "application %s", self.info.number, self.info.peer, self.info.channel,
                     self.info.user or "-", self.info.appl or "-")  # fmt: skip
        self.send(first.seg_type + 0x10, reply)  # after MQDISC the client's close follows

    def _socket_action(self, header: Header, body: bytes) -> bool:
        """True: the conversation ends (the client's close on a TSHM channel). A second
        conversation cannot start: the listener offers one per socket."""
        action = verbs.parse_socket_action(body, header.order)
        if action.action == verbs.ACTION_END_CONVERSATION:
            return True
        if action.action == verbs.ACTION_START_CONVERSATION:
            raise ChannelError(STATUS_SEGMENT_TYPE, "a second conversation on the socket")
        log.debug("channel: connection %s SOCKET_ACTION %s", self.info.number, action)
        return False

    def beat_if_due(self, now: float) -> None:
        """During a long MQGET (its wait) a heartbeat request every BEAT_S: the Java
        client takes about 5 s of silence in a call as a broken connection (MQRC 2009, and
        its later replies out of step), whatever heartbeat interval was agreed. The request
        is an empty HEARTBEAT with CONFIRM_REQUEST; the client answers with an empty one.

        This thread serves every connection: it never waits on this one's writers or
        socket (module :mod:`.transport`). A connection whose writes have gone nowhere
        for longer than its limit is ended, as a queue manager ends a channel whose
        partner does not respond."""
        if self.ending:
            return
        transport = self.transport
        stalled = transport.stalled(now)
        if stalled > self.stall_limit:
            self._end_stalled(stalled)
            return
        if transport.owed:
            with contextlib.suppress(OSError):
                transport.write_owed_now()
        since = self.busy_since
        if since is not None and self.conversations:
            self.answer_heartbeats()
            return
        if since is None or transport.owed or now - max(since, self.last_beat) < BEAT_S:
            return
        self.last_beat = now
        flags = Flags1.FIRST | Flags1.LAST | Flags1.CONFIRM_REQUEST
        self._offer_header(self.template.for_body(SegType.HEARTBEAT, 0, flags))

    @property
    def stall_limit(self) -> float:
        """Seconds a write may go nowhere: the setting, else twice the heartbeat interval
        agreed (MQ ends a channel silent that long past a heartbeat), else 600."""
        return self.settings.write_stall or 2.0 * (self.heartbeat or 300)

    def _end_stalled(self, stalled: float) -> None:
        """In the heartbeats' thread: the connection's threads wake to the end, which its
        own thread says in one line."""
        self.ending = (f"the client read nothing for {stalled:.0f} s (write stall limit "
                       f"{self.stall_limit:g} s)")  # fmt: skip
        with contextlib.suppress(OSError):
            self.transport.shutdown()

    def stop(self) -> None:
        """End this connection as a quiescing queue manager does; its thread finishes (a
        writer blocked on a client that stopped reading too: the status waits for none)."""
        self.stopping = True
        transport = self.transport
        with contextlib.suppress(OSError):
            self.send_status(STATUS_QM_TERMINATING, wait=False)
            deadline = time.monotonic() + STOP_WRITE_S  # a flow going out ends first
            while transport.owed and time.monotonic() < deadline:
                time.sleep(0.01)
                transport.write_owed_now()
        with contextlib.suppress(OSError):
            self.transport.shutdown()


def _name(seg_type: int) -> str:
    try:
        return SegType(seg_type).name
    except ValueError:
        return f"{seg_type:#x}"


__all__ = ["BEAT_S", "SCAN_S", "ChannelConnection", "Closed", "ConnectionInfo", "Refused"]
