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
"""

from __future__ import annotations

import select
import socket
import ssl
import threading
import time

WAIT_S = 1.0  # a waiter looks again this often (what another thread's SSL call read it sees)
CHUNK = 1 << 18  # the most one SSL write takes at a time: a write is retried whole


class Transport:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.tls = sock if isinstance(sock, ssl.SSLSocket) else None
        self.writing = threading.Lock()  # a writer's whole flow: see ``write``
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
        tls = self.tls
        if tls is None:
            self.sock.sendall(data)
            return
        view = memoryview(data)
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


__all__ = ["Transport"]
