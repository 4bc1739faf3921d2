"""One running worker per instance id: a second ``mqk serve`` with an id in use says so and
stops, and the first keeps serving.

Kafka would do the opposite: the newer static member (``group.instance.id``) fences the older
one, and the newer transactional producer fences the older one too. So before it joins, a
worker looks for a member of its group with its instance id. The member's client id names
the host and pid that run it: on this host a pid that is gone is the worker's own killed
predecessor (taken over at once, the point of static membership); a live one is in use. A
member on another host is in use while it stays in the group past the session timeout.

The group is described in a child process: librdkafka's DescribeConsumerGroups can abort the
process that asks (``rd_kafka_enq_once_del_source_return: Assertion `eonce->refcnt > 0'``,
a use-after-free when a coordinator connection drops; librdkafka PR 5397, not released), which
a fresh replicated cluster made happen at the service's start. A child that dies that way
costs only the check: nobody is taken to hold the id.
"""

from __future__ import annotations

import multiprocessing
import os
import socket
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from mqkafka.kafka.clientconfig import ClientConfig
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
    config: ClientConfig,
    group: str,
    group_instance_id: str,
    instance_id: str,
    session_timeout: float,
) -> None:
    """Raises :class:`InstanceInUse` when a live worker holds ``group_instance_id``."""
    deadline = time.monotonic() + session_timeout + 2
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as child:
        while True:
            try:
                holder = child.submit(_holder, config, group, group_instance_id).result(60)
            except (BrokenProcessPool, TimeoutError):  # librdkafka aborted it: cannot tell
                return
            if holder is None:
                return
            client_id, host = holder
            runner = _runner(client_id)
            if runner is not None and runner[0] == socket.gethostname():
                if runner[1] != os.getpid() and pid_alive(runner[1]):
                    raise InstanceInUse(
                        f"instance id {instance_id!r} is in use by mqk serve pid {runner[1]} "
                        "on this host; give this worker another --instance-id"
                    )
                return  # our killed predecessor: static membership takes its place at once
            if time.monotonic() > deadline:
                raise InstanceInUse(
                    f"instance id {instance_id!r} is in use by a worker at "
                    f"{host.lstrip('/')} ({client_id}); give this worker another --instance-id"
                )
            time.sleep(POLL)


def _holder(config: ClientConfig, group: str, group_instance_id: str) -> tuple[str, str] | None:
    """In the child: the client id and host of the member holding the id, if any."""
    from mqkafka.kafka import clients

    admin = clients.admin(config, {"log_level": 0})
    try:
        described = admin.describe_consumer_groups([group], request_timeout=10)[group].result()
    except Exception:  # no such group yet, or it cannot be described: nobody holds the id
        return None
    for member in described.members or []:
        if getattr(member, "group_instance_id", None) == group_instance_id:
            return str(member.client_id), str(member.host)
    return None


__all__ = ["InstanceInUse", "check_instance_free", "client_id_of"]
