"""The TCP listener: a thread per client connection (module :mod:`.connection`), so a parked
MQGET with wait holds only its own connection's thread; the accept loop never runs protocol
code. A stop ends each connection with the status a quiescing queue manager sends.
"""

from __future__ import annotations

import itertools
import logging
import socket
import threading
import time
from collections.abc import Callable

from mqkafka.channel.codec.segments import STATUS_MAX_CONNS
from mqkafka.channel.connection import (
    BEAT_S,
    ChannelConnection,
    Closed,
    ConnectionInfo,
    Refused,
)
from mqkafka.channel.settings import ListenerSettings
from mqkafka.channel.tls import server_context

log = logging.getLogger(__name__)

STOP_WAIT_S = 10.0
REFRESH_S = 30.0  # the status file rewritten at least this often (mqk listen --status)


class Listener:
    """``start`` binds; ``serve`` accepts until ``stop``."""

    def __init__(
        self,
        settings: ListenerSettings,
        publish: Callable[[list[ConnectionInfo]], None] | None = None,
    ) -> None:
        """``publish``: told the connections whenever they change (``mqk listen --status``)."""
        self.settings = settings
        self._publish = publish
        self._published: list[tuple[int, str, str, str, int, int, int]] | None = None
        self._published_at = 0.0
        self.server: socket.socket | None = None
        self.connections: dict[int, ChannelConnection] = {}
        self.threads: dict[int, threading.Thread] = {}
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        tls = settings.tls
        self._tls = server_context(tls) if tls is not None else None

    def start(self) -> tuple[str, int]:
        server = socket.create_server((self.settings.host, self.settings.port), backlog=128)
        server.settimeout(0.5)
        self.server = server
        host, port = server.getsockname()[:2]
        log.info("channel: listening on %s:%s for queue manager %s%s", host, port,
                 self.settings.qmgr, self._tls_said())  # fmt: skip
        return str(host), int(port)

    def _tls_said(self) -> str:
        tls = self.settings.tls
        if tls is None:
            return ""
        return " (TLS, client certificate CN is the user id)" if tls.maps_user else " (TLS)"

    def serve(self) -> None:
        assert self.server is not None, "start() first"
        threading.Thread(target=self._beats, name="channel-heartbeats", daemon=True).start()
        while not self._stop.is_set():
            try:
                sock, address = self.server.accept()
            except TimeoutError:
                continue
            except OSError:
                if self._stop.is_set():
                    break
                raise
            self._accepted(sock, f"{address[0]}:{address[1]}")
        self._end_all()

    def _accepted(self, sock: socket.socket, peer: str) -> None:
        sock.settimeout(None)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self._tls is not None:  # the handshake runs in the connection's thread
            sock = self._tls.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        number = next(self._numbers)
        connection = ChannelConnection(sock, ConnectionInfo(number, peer), self.settings)
        with self._lock:
            full = len(self.connections) >= self.settings.max_connections
            if not full:
                self.connections[number] = connection
        if full:
            log.warning("channel: connection from %s refused: %d connections already",
                        peer, self.settings.max_connections)  # fmt: skip
            if self._tls is None:  # a TLS client could not read it before a handshake
                connection._try_status(STATUS_MAX_CONNS)
            sock.close()
            return
        thread = threading.Thread(
            target=self._run, args=(connection,), name=f"channel-{number}", daemon=True
        )
        self.threads[number] = thread
        thread.start()

    def _run(self, connection: ChannelConnection) -> None:
        try:
            connection.run()
        finally:
            with self._lock:
                self.connections.pop(connection.info.number, None)
                self.threads.pop(connection.info.number, None)

    def _beats(self) -> None:
        while not self._stop.wait(BEAT_S / 4):
            with self._lock:
                live = list(self.connections.values())
            now = time.monotonic()
            for connection in live:
                connection.beat_if_due(now)
            self._publish_if_changed()

    def _publish_if_changed(self) -> None:
        if self._publish is None:
            return
        infos = sorted(self.listing(), key=lambda info: info.number)
        seen = [(i.number, i.channel, i.user, i.appl, *i.counters.key()) for i in infos]
        now = time.monotonic()
        # also every REFRESH_S unchanged: a reader in another container (no pid to check)
        # takes a file not rewritten for a while as a listener that was killed
        if seen != self._published or now - self._published_at >= REFRESH_S:
            self._published, self._published_at = seen, now
            try:
                self._publish(infos)
            except OSError as error:  # a status nobody can read is no reason to stop serving
                log.warning("channel: status not written: %s", error)

    def listing(self) -> list[ConnectionInfo]:
        with self._lock:
            return [c.info for c in self.connections.values()]

    def stop(self) -> None:
        self._stop.set()

    def _end_all(self) -> None:
        if self.server is not None:
            self.server.close()
        with self._lock:
            live = list(self.connections.values())
            threads = list(self.threads.values())
        for connection in live:
            connection.stop()
        deadline = time.monotonic() + STOP_WAIT_S
        for thread in threads:
            thread.join(max(deadline - time.monotonic(), 0.1))
        with self._lock:
            stuck = list(self.connections.values())
        for connection in stuck:
            # inside an MQI call that cannot be cut short (an MQGET's wait): its MQDISC at
            # exit would wait for the call, so the process ends without it, as a crash would
            # (its unit of work is backed out when Kafka's locks expire)
            connection.session.leave_at_exit()
            log.warning("channel: connection %s still in an MQI call: ended without MQDISC",
                        connection.info.number)  # fmt: skip
        log.info("channel: listener stopped (%d connections ended)", len(live))


__all__ = ["REFRESH_S", "ChannelConnection", "Closed", "ConnectionInfo", "Listener", "Refused"]
