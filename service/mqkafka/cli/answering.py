"""Before a command message is sent: is there a broker service to answer it?

The service's workers are the members of its consumer group (``<namespace>mqk-broker``); with
none, a request would wait out its reply timeout for nothing, so mqk says so at once (Kafka
answers a group description in milliseconds) and how to start one. An application user may
not describe the service's group (the shipped ACLs keep it the service's): then the command
is sent and its reply, or its reply timeout, answers.
"""

from __future__ import annotations

from mqkafka.cli.common import UserError
from mqkafka.kafka.clientconfig import ClientConfig


def require_service(config: ClientConfig, namespace: str) -> None:
    """A :class:`UserError` when no worker of the broker service is a member of its group."""
    from mqkafka.query.service import service_state

    state = service_state(config, namespace)
    if state.running or state.hidden:  # hidden: an application user; the reply will tell
        return
    where = f" in namespace '{namespace}'" if namespace else ""
    ns = f" --namespace {namespace}" if namespace else ""
    raise UserError(
        f"no broker service is running{where} on {config.bootstrap} (its consumer group "
        f"{state.group} has no members): start one with 'mqk run' (the local stack) or "
        f"'mqk serve --bootstrap-servers {config.bootstrap}{ns}'"
    )
