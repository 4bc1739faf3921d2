"""What ``mqk listen --status`` shows: each running listener writes its connections (channel,
user, application, address, since when) to a small JSON file under ``$MQK_HOME/listen/``,
named by its port, whenever they change, and removes it when it stops. Files whose process
is gone are not shown (a listener that was killed): ``query/listeners.py`` reads them."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from mqkafka.channel.server import ConnectionInfo

FIELDS = ("number", "peer", "channel", "user", "appl", "since")


def status_dir(home: Path) -> Path:
    return home / "listen"


def write_status(path: Path, qmgr: str, address: str, infos: Sequence[ConnectionInfo]) -> None:
    """Replace the file at once (a reader never sees half of it)."""
    body = {
        "pid": os.getpid(),
        "qmgr": qmgr,
        "address": address,
        "connections": [{name: getattr(info, name) for name in FIELDS} for info in infos],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_suffix(".tmp")
    scratch.write_text(json.dumps(body, sort_keys=True))
    os.replace(scratch, path)


__all__ = ["status_dir", "write_status"]
