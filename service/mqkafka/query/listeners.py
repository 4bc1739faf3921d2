"""The MQ client channel listeners running on this machine and their connections, as an MQ
administrator reads them with DISPLAY CHSTATUS: channel, connection name, user id,
application, since when. Read from the status file each ``mqk listen`` keeps under
``$MQK_HOME/listen/<port>.json`` (``channel/status.py`` writes it); a file whose process is
gone (a listener that was killed) is not shown, as ``mqk listen --status`` does not."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ListenerConnection:
    number: int  # the listener's own count of its connections, from 1
    conname: str  # the client's address as MQ writes CONNAME: 127.0.0.1(54321)
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
        number=int(c["number"]), conname=conname(str(c["peer"])),
        channel=str(c.get("channel") or ""), user=str(c.get("user") or ""),
        appl=str(c.get("appl") or ""), since=float(c["since"]),
    )  # fmt: skip


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it runs
        return True
    return True


def running_listeners(home: Path) -> list[ListenerView]:
    """Every running listener under ``home`` (``$MQK_HOME``), by port; a file being replaced
    or unreadable is skipped (the listener rewrites it at its next change)."""
    found = []
    for path in sorted((home / "listen").glob("*.json"), key=lambda p: (len(p.stem), p.stem)):
        try:
            view = listener_view(json.loads(path.read_text()))
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if _alive(view.pid):
            found.append(view)
    return found


__all__ = [
    "ListenerConnection",
    "ListenerView",
    "conname",
    "duration",
    "listener_view",
    "running_listeners",
]
