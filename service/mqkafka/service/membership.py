"""One running worker per instance id: a second ``mqk serve`` with an id in use says so and
stops, and the first keeps serving.

Kafka would do the opposite: the newer static member (``group.instance.id``) fences the older
one, and the newer transactional producer fences the older one too. So before it joins, a
worker looks for a member of its group with its instance id. The member's client id names
the host and pid that run it: on this host a pid that is gone is the worker's own killed
predecessor (taken over at once, the point of static membership); a live one is in use. A
member on another host is in use while it stays in the group past the session timeout.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Any

from mqkafka.kafka.localbroker import pid_alive

POLL = 0.5


class InstanceInUse(RuntimeError):
    """Another worker runs with this instance id (one line for the user)."""


def client_id_of(instance_id: str) -> str:
    """The consumer's client id: the instance, the host and the pid that run it."""
    return f"mqk-serve-{instance_id}@{socket.gethostname()}/{os.getpid()}"


def _runner(client_id: str) -> tuple[str, int] | None:
    head, _, pid = client_id.rpartition("/")
    _, _, host = head.rpartition("@")
    return (host, int(pid)) if host and pid.isdigit() else None


def check_instance_free(
    admin: Any, group: str, group_instance_id: str, instance_id: str, session_timeout: float
) -> None:
    """Raises :class:`InstanceInUse` when a live worker holds ``group_instance_id``."""
    deadline = time.monotonic() + session_timeout + 2
    while True:
        holder = _holder(admin, group, group_instance_id)
        if holder is None:
            return
        runner = _runner(holder.client_id)
        where = f"{holder.host.lstrip('/')} ({holder.client_id})"
        if runner is not None and runner[0] == socket.gethostname():
            if runner[1] != os.getpid() and pid_alive(runner[1]):
                raise InstanceInUse(
                    f"instance id {instance_id!r} is in use by mqk serve pid {runner[1]} on "
                    "this host; give this worker another --instance-id"
                )
            return  # our killed predecessor: static membership takes its place at once
        if time.monotonic() > deadline:
            raise InstanceInUse(
                f"instance id {instance_id!r} is in use by a worker at {where}; give this "
                "worker another --instance-id"
            )
        time.sleep(POLL)


def _holder(admin: Any, group: str, group_instance_id: str) -> Any:
    try:
        described = admin.describe_consumer_groups([group], request_timeout=10)[group].result()
    except Exception:  # no such group yet, or it cannot be described: nobody holds the id
        return None
    for member in described.members or []:
        if getattr(member, "group_instance_id", None) == group_instance_id:
            return member
    return None


__all__ = ["InstanceInUse", "check_instance_free", "client_id_of"]
