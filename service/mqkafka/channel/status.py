"""What ``mqk listen --status`` shows: each running listener writes its connections (channel,
user, application, address, since when, and their counters) to a small JSON file under
``$MQK_HOME/listen/``, named by its port, whenever they change and every ``REFRESH_S``
unchanged, and removes it when it stops. The file names what the listener serves (queue
manager, namespace, Kafka) and where it runs (host, pid): ``query/listeners.py`` reads it,
shows a namespace's listeners, and leaves out those whose process is gone."""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from mqkafka.channel.server import REFRESH_S, ConnectionInfo

FIELDS = ("number", "peer", "channel", "user", "appl", "since")


def status_dir(home: Path) -> Path:
    return home / "listen"


def status_body(
    qmgr: str,
    address: str,
    infos: Sequence[ConnectionInfo],
    *,
    namespace: str = "",
    bootstrap: str = "",
) -> dict[str, object]:
    """The file's content. ``host`` and ``written``: a reader on another host (another
    container sharing the folder) cannot ask whether the pid runs, and goes by how fresh the
    file is instead."""
    return {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "written": time.time(),
        "refresh_s": REFRESH_S,
        "qmgr": qmgr,
        "namespace": namespace,
        "bootstrap": bootstrap,
        "address": address,
        "connections": [
            {**{name: getattr(info, name) for name in FIELDS}, **asdict(info.counters)}
            for info in infos
        ],
    }


def write_status(
    path: Path,
    qmgr: str,
    address: str,
    infos: Sequence[ConnectionInfo],
    *,
    namespace: str = "",
    bootstrap: str = "",
) -> None:
    """Replace the file at once (a reader never sees half of it)."""
    body = status_body(qmgr, address, infos, namespace=namespace, bootstrap=bootstrap)
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_suffix(".tmp")
    scratch.write_text(json.dumps(body, sort_keys=True))
    os.replace(scratch, path)


__all__ = ["status_body", "status_dir", "write_status"]
