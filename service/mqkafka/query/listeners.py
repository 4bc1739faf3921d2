"""The MQ client channel listeners running on this machine and their connections, as an MQ
administrator reads them with DISPLAY CHSTATUS: channel, connection name, user id,
application, since when, MQI calls, messages put and got, bytes each way, the last call.
Read from the status file each ``mqk listen`` keeps under ``$MQK_HOME/listen/<port>.json``
(``channel/status.py`` writes it). A file whose listener is gone (killed) is not shown: its
pid no longer runs, or, written on another host (a container sharing the folder, whose pid
this host cannot ask about), it was not rewritten for ``STALE_TIMES`` its refresh period.

DISPLAY CHSTATUS shows one queue manager's channels: ``of_namespace`` keeps the listeners of
one namespace (the queue manager on Kafka), which ``mqk listen --status`` and the console
show, and says how many others there are."""

from __future__ import annotations

import json
import socket
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
    calls: int = 0  # MSGS: MQI calls answered
    puts: int = 0  # messages put (MQPUT, MQPUT1)
    gets: int = 0  # messages got (MQGET, browse included)
    bytes_sent: int = 0  # BYTSSENT
    bytes_received: int = 0  # BYTSRCVD
    last_verb: str = ""  # the last MQI call: MQPUT, MQGET, ...
    last_time: float = 0.0  # LSTMSGDA/LSTMSGTI, epoch seconds; 0: none yet


@dataclass(frozen=True)
class ListenerView:
    address: str
    qmgr: str
    pid: int
    connections: tuple[ListenerConnection, ...]
    namespace: str = ""
    bootstrap: str = ""  # the Kafka it serves, as the listener was told it
    host: str = ""  # where it runs; "" in a file of a listener before hosts were written
    written: float = 0.0  # epoch seconds
    refresh_s: float = 30.0  # it rewrites the file at least this often


STALE_TIMES = 3  # a file of another host unwritten for 3 refresh periods: its listener is gone


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
    return ListenerView(
        str(body["address"]), str(body["qmgr"]), int(body["pid"]), conns,
        namespace=str(body.get("namespace") or ""), bootstrap=str(body.get("bootstrap") or ""),
        host=str(body.get("host") or ""), written=float(body.get("written") or 0.0),
        refresh_s=float(body.get("refresh_s") or 30.0),
    )  # fmt: skip


def _connection(c: dict[str, Any]) -> ListenerConnection:
    return ListenerConnection(
        number=int(c["number"]), conname=conname(str(c["peer"])), peer=str(c["peer"]),
        channel=str(c.get("channel") or ""), user=str(c.get("user") or ""),
        appl=str(c.get("appl") or ""), since=float(c["since"]),
        calls=int(c.get("calls") or 0), puts=int(c.get("puts") or 0),
        gets=int(c.get("gets") or 0), bytes_sent=int(c.get("bytes_sent") or 0),
        bytes_received=int(c.get("bytes_received") or 0),
        last_verb=str(c.get("last_verb") or ""), last_time=float(c.get("last_time") or 0.0),
    )  # fmt: skip


def is_running(view: ListenerView, here: str, now: float) -> bool:
    """Whether the listener that wrote ``view`` still runs, seen from host ``here``."""
    if view.host and view.host != here:
        return now - view.written <= STALE_TIMES * view.refresh_s
    return pid_alive(view.pid)


def of_namespace(
    views: Sequence[ListenerView], namespace: str
) -> tuple[list[ListenerView], list[ListenerView]]:
    """Those serving ``namespace``, and the others."""
    mine = [v for v in views if v.namespace == namespace]
    return mine, [v for v in views if v.namespace != namespace]


def namespace_label(namespace: str) -> str:
    """How an operator names it: ``""`` (no ``--namespace``, topics unprefixed) is the
    default namespace."""
    return f"namespace {namespace}" if namespace else "the default namespace"


def running_listeners(home: Path, now: float | None = None) -> list[ListenerView]:
    """Every running listener under ``home`` (``$MQK_HOME``), by port; a file being replaced
    or unreadable is skipped (the listener rewrites it at its next change)."""
    now = time.time() if now is None else now
    here = socket.gethostname()
    found = []
    for path in sorted((home / "listen").glob("*.json"), key=lambda p: (len(p.stem), p.stem)):
        try:
            view = listener_view(json.loads(path.read_text()))
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if is_running(view, here, now):
            found.append(view)
    return found


def format_listeners(
    views: Sequence[ListenerView],
    now: float | None = None,
    *,
    namespace: str | None = None,
    others: Sequence[ListenerView] = (),
) -> list[str]:
    """``mqk listen --status``: one heading line per listener, two lines per connection (who,
    then its counters). ``namespace``: the one ``views`` were kept for, and ``others`` the
    listeners of other namespaces, counted in a last line."""
    now = time.time() if now is None else now
    here = socket.gethostname()
    lines = []
    if not views:
        serving = "" if namespace is None else f" for {namespace_label(namespace)}"
        lines.append(f"no mqk listen is running on this machine{serving}")
    for view in views:
        count = len(view.connections)
        where = f"pid {view.pid}" + (f" on {view.host}" if view.host not in ("", here) else "")
        lines.append(f"{view.address} (queue manager {view.qmgr}, "
                     f"{namespace_label(view.namespace)}, Kafka {view.bootstrap or '?'}, "
                     f"{where}): {count} connection{'' if count == 1 else 's'}")  # fmt: skip
        for c in view.connections:
            lines.append(f"  #{c.number:<4} channel {c.channel or '-':<20} user "
                         f"{c.user or '-':<12} application {c.appl or '-':<28} "
                         f"from {c.peer}  {max(int(now - c.since), 0)} s")  # fmt: skip
            lines.append(f"        calls {c.calls}  put {c.puts}  got {c.gets}  bytes sent "
                         f"{c.bytes_sent} received {c.bytes_received}  "
                         f"{last_call(c, now)}")  # fmt: skip
    if others:
        names = sorted({v.namespace or "(default)" for v in others})
        lines.append(f"({len(others)} other listener{'' if len(others) == 1 else 's'}, of "
                     f"namespace{'' if len(names) == 1 else 's'} {', '.join(names)}: "
                     "--namespace shows them)")  # fmt: skip
    return lines


def last_call(c: ListenerConnection, now: float) -> str:
    if not c.last_time:
        return "no call yet"
    return f"last {c.last_verb} {duration(now - c.last_time)} ago"


__all__ = [
    "STALE_TIMES",
    "ListenerConnection",
    "ListenerView",
    "conname",
    "duration",
    "format_listeners",
    "is_running",
    "last_call",
    "listener_view",
    "namespace_label",
    "of_namespace",
    "running_listeners",
]
