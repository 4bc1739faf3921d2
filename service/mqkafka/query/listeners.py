"""The MQ client channel listeners running on this machine and their connections, as an MQ
administrator reads them with DISPLAY CHSTATUS: channel, connection name, user id,
application, since when. Read from the status file each ``mqk listen`` keeps under
``$MQK_HOME/listen/<port>.json`` (``channel/status.py`` writes it); a file whose process is
gone (a listener that was killed) is not shown, as ``mqk listen --status`` does not."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mqkafka.kafka.localbroker import pid_alive


@dataclass(frozen=True)
class ListenerConnection:
    number: int  # the listener's own count of its connections, from 1
    conname: str  # the client's address as MQ writes CONNAME: 127.0.0.1(54321)
    peer: str  # the same as the listener wrote it: 127.0.0.1:54321
    channel: str
    user: str  # MCAUSER: the client certificate's CN over TLS, else what the client asserts
    appl: str  # RAPPLTAG: the application name the client sent
    since: float  # epoch seconds


@dataclass(frozen=True)
class ListenerView:
    address: str
    qmgr: str
    pid: int
    connections: tuple[ListenerConnection, ...]


def conname(peer: str) -> str:
    """``host:port`` (the listener's) as MQ's CONNAME ``host(port)``; as it is otherwise."""
    host, colon, port = peer.rpartition(":")
    return f"{host.strip('[]')}({port})" if colon and port.isdigit() else peer


def duration(seconds: float) -> str:
    """How long a connection has run, to the unit an operator reads at a glance."""
    whole = max(int(seconds), 0)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    if whole < 86400:
        return f"{whole // 3600} h {whole % 3600 // 60:02d} min"
    return f"{whole // 86400} d {whole % 86400 // 3600:02d} h"


def listener_view(body: dict[str, Any]) -> ListenerView:
    """One status file's content; KeyError, TypeError or ValueError when it is not one."""
    conns = tuple(_connection(c) for c in body.get("connections", []))
    return ListenerView(str(body["address"]), str(body["qmgr"]), int(body["pid"]), conns)


def _connection(c: dict[str, Any]) -> ListenerConnection:
    return ListenerConnection(
        number=int(c["number"]), conname=conname(str(c["peer"])), peer=str(c["peer"]),
        channel=str(c.get("channel") or ""), user=str(c.get("user") or ""),
        appl=str(c.get("appl") or ""), since=float(c["since"]),
    )  # fmt: skip


def running_listeners(home: Path) -> list[ListenerView]:
    """Every running listener under ``home`` (``$MQK_HOME``), by port; a file being replaced
    or unreadable is skipped (the listener rewrites it at its next change)."""
    found = []
    for path in sorted((home / "listen").glob("*.json"), key=lambda p: (len(p.stem), p.stem)):
        try:
            view = listener_view(json.loads(path.read_text()))
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if pid_alive(view.pid):
            found.append(view)
    return found


def format_listeners(views: Sequence[ListenerView], now: float | None = None) -> list[str]:
    """``mqk listen --status``: one heading line per listener, one line per connection."""
    now = time.time() if now is None else now
    if not views:
        return ["no mqk listen is running on this machine"]
    lines = []
    for view in views:
        count = len(view.connections)
        lines.append(f"{view.address} (queue manager {view.qmgr}, pid {view.pid}): "
                     f"{count} connection{'' if count == 1 else 's'}")  # fmt: skip
        for c in view.connections:
            lines.append(f"  #{c.number:<4} channel {c.channel or '-':<20} user "
                         f"{c.user or '-':<12} application {c.appl or '-':<28} "
                         f"from {c.peer}  {max(int(now - c.since), 0)} s")  # fmt: skip
    return lines


__all__ = [
    "ListenerConnection",
    "ListenerView",
    "conname",
    "duration",
    "format_listeners",
    "listener_view",
    "running_listeners",
]
