"""One connection's socket as its threads share it: the connection's own (it reads, and
writes the replies), the heartbeats' (it reads what has come and answers heartbeat requests
during a call) and read ahead's streams (they write ASYNC_MESSAGE flows).

Writes are whole: a writer holds ``writing`` for all the segments of one flow, so no other
writer's bytes come between them. On TLS the socket is non-blocking and every call into the
SSL object (a read, a write, the handshake) is made under one lock held for that call only:
OpenSSL's SSL object must not be read in one thread while another writes it (CPython
gh-143756; OpenSSL says the same of SSL_read and SSL_write), and a blocking read would hold
that lock for as long as the client is silent. A call that cannot go on (a record not whole
yet, a full send buffer) leaves the lock and waits in ``select`` for the socket: a reader
waiting for the client never holds up a writer, and the heartbeats' thread reads what has
come without ever waiting (a record read in part stays in the SSL object till the rest comes).
A plain socket needs none of it: there the kernel keeps a read beside a write apart.

The heartbeats' thread serves every connection of the listener, so it never waits on one:
what it sends (a heartbeat's answer or request, a stop's status) is ``offer``-ed, written at
once when the write lock is free and the socket takes it, else owed, and the owed bytes go
out before the next flow (the lock's next holder writes them) or at its next look. A client
that stops reading (its TCP window full) so holds up its own connection alone; ``stalled``
says for how long nothing has gone out while a writer waits or bytes are owed, and the
listener ends the connection past its limit (``shutdown`` wakes a writer blocked in it).
"""

from __future__ import annotations

import select
import socket
import ssl
import threading
import time
from collections import deque
from types import TracebackType

WAIT_S = 1.0  # a waiter looks again this often (what another thread's SSL call read it sees)
CHUNK = 1 << 18  # the most one SSL write takes at a time: a write is retried whole


class Writing:
    """The write lock: held for a whole flow, the owed bytes written first (a part of one
    may be out already) and, as it is let go, those owed meanwhile."""

    def __init__(self, transport: Transport) -> None:
        self._lock = threading.Lock()
        self._transport = transport

    def acquire(self, blocking: bool = True) -> bool:
        """The lock alone (nothing owed written)."""
        return self._lock.acquire(blocking)

    def release(self) -> None:
        self._lock.release()

    def locked(self) -> bool:
        return self._lock.locked()

    def __enter__(self) -> None:
        self._lock.acquire()
        try:
            if self._transport.owed:
                self._transport.write_owed()
        except BaseException:
            self._lock.release()
            raise

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if self._transport.owed and kind is None:
                self._transport.write_owed()
        finally:
            self._lock.release()


class Transport:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.tls = sock if isinstance(sock, ssl.SSLSocket) else None
        self.writing = Writing(self)  # a writer's whole flow: see ``write``
        self.owed: deque[bytes] = deque()  # whole segments offered, to go out between flows
        self._owed_since: float | None = None
        self._writer_since: float | None = None  # a writer in ``write`` since then
        self._progress = 0.0  # when bytes last went out
        self._ssl = threading.Lock()  # one call into the SSL object at a time (TLS only)
        if self.tls is not None:
            sock.setblocking(False)

    def handshake(self, timeout: float) -> None:
        """The TLS handshake (nothing on a plain socket); TimeoutError past ``timeout``,
        ssl.SSLError as the handshake failed."""
        tls = self.tls
        if tls is None:
            return
        deadline = time.monotonic() + timeout
        while True:
            with self._ssl:
                try:
                    tls.do_handshake()
                    return
                except ssl.SSLWantReadError:
                    readable = True
                except ssl.SSLWantWriteError:
                    readable = False
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("TLS handshake")
            _wait(tls, readable, left)

    def recv(self, size: int) -> bytes:
        """Up to ``size`` bytes, waiting for some; b"": the client closed."""
        tls = self.tls
        if tls is None:
            return self.sock.recv(size)
        while True:
            with self._ssl:
                try:
                    return tls.recv(size)
                except ssl.SSLWantReadError:
                    readable = True
                except ssl.SSLWantWriteError:
                    readable = False
            _wait(tls, readable, WAIT_S)

    def recv_ready(self, size: int) -> bytes | None:
        """What has come, up to ``size`` bytes, without waiting: None when nothing has (or
        only part of a TLS record), b"" when the client closed."""
        tls = self.tls
        if tls is None:
            if not select.select([self.sock], [], [], 0)[0]:
                return None
            return self.sock.recv(size)
        with self._ssl:
            try:
                return tls.recv(size)
            except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
                return None

    def sendall(self, data: bytes) -> None:
        """``data`` sent whole, no other writer's bytes among them."""
        with self.writing:
            self.write(data)

    def write(self, data: bytes) -> None:
        """``data`` sent; the caller holds ``writing`` (for a flow of several parts)."""
        self._writer_since = time.monotonic()
        try:
            self._write(data)
        finally:
            self._writer_since = None

    def _write(self, data: bytes) -> None:
        tls = self.tls
        view = memoryview(data)
        if tls is None:  # in parts: each one that goes out is progress (``stalled``)
            for at in range(0, len(data), CHUNK):
                self.sock.sendall(view[at : at + CHUNK])
                self._progress = time.monotonic()
            return
        while view:
            part = view[:CHUNK]
            while True:
                with self._ssl:
                    try:
                        sent = tls.send(part)  # retried with the same bytes, as OpenSSL asks
                        break
                    except ssl.SSLWantWriteError:
                        readable = False
                    except ssl.SSLWantReadError:
                        readable = True
                _wait(tls, readable, WAIT_S)
            view = view[sent:]
            self._progress = time.monotonic()

    def offer(self, data: bytes) -> None:
        """``data`` (whole segments) sent without waiting on the write lock or the socket:
        now if both let it, else owed (module docstring). OSError: the socket is broken."""
        if not self.owed:
            self._owed_since = time.monotonic()
        self.owed.append(data)
        self.write_owed_now()

    def write_owed_now(self) -> None:
        """What is owed, as much as goes out now, if no writer holds the lock."""
        if not self.owed or not self.writing.acquire(blocking=False):
            return
        try:
            owed = self.owed
            while owed:
                data = owed[0]
                sent = self._send_now(data)
                if sent:
                    self._progress = time.monotonic()
                if sent < len(data):
                    if sent and self.tls is None:
                        owed[0] = data[sent:]  # TLS: retried with the same bytes (OpenSSL)
                    return
                owed.popleft()
            self._owed_since = None
        finally:
            self.writing.release()

    def write_owed(self) -> None:
        """What is owed, waiting for the socket; the caller holds ``writing``."""
        owed = self.owed
        while owed:
            self.write(owed[0])
            owed.popleft()
        self._owed_since = None

    def _send_now(self, data: bytes) -> int:
        tls = self.tls
        if tls is None:
            try:
                return self.sock.send(data, socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                return 0
        with self._ssl:
            try:
                return tls.send(data)
            except (ssl.SSLWantWriteError, ssl.SSLWantReadError):
                return 0

    def stalled(self, now: float) -> float:
        """Seconds for which a writer has waited, or bytes been owed, and none went out."""
        since = [t for t in (self._writer_since, self._owed_since) if t is not None]
        return now - max(min(since), self._progress) if since else 0.0

    def shutdown(self) -> None:
        """Both ways: a reader waiting for the client wakes to the end."""
        with self._ssl:
            self.sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        with self._ssl:
            self.sock.close()


def _wait(sock: socket.socket, readable: bool, timeout: float) -> None:
    if readable:
        select.select([sock], [], [], timeout)
    else:
        select.select([], [sock], [], timeout)


__all__ = ["Transport", "Writing"]
