"""What ``mqk listen --status`` shows: each running listener writes its connections (channel,
user, application, address, since when) to a small JSON file under ``$MQK_HOME/listen/``,
named by its port, whenever they change, and removes it when it stops. Files whose process
is gone are not shown (a listener that was killed)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_statuses(home: Path) -> list[dict[str, Any]]:
    """Every running listener's status, by address; unreadable files are skipped."""
    found = []
    for path in sorted(status_dir(home).glob("*.json")):
        try:
            body = json.loads(path.read_text())
            if _alive(int(body["pid"])):
                found.append(body)
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return found


def format_statuses(statuses: Sequence[dict[str, Any]], now: float | None = None) -> list[str]:
    """One heading line per listener, one line per connection."""
    now = time.time() if now is None else now
    if not statuses:
        return ["no mqk listen is running on this machine"]
    lines = []
    for body in statuses:
        conns = body.get("connections", [])
        lines.append(f"{body['address']} (queue manager {body['qmgr']}, pid {body['pid']}): "
                     f"{len(conns)} connection{'' if len(conns) == 1 else 's'}")  # fmt: skip
        for c in conns:
            age = max(int(now - float(c["since"])), 0)
            lines.append(f"  #{c['number']:<4} channel {c['channel'] or '-':<20} user "
                         f"{c['user'] or '-':<12} application {c['appl'] or '-':<28} "
                         f"from {c['peer']}  {age} s")  # fmt: skip
    return lines


__all__ = ["format_statuses", "read_statuses", "status_dir", "write_status"]
