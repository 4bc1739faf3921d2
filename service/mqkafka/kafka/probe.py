"""Is Kafka there, and will it have us? Asked once before a command starts its work.

librdkafka retries a refused login or a TLS handshake with a plaintext listener for ever,
logging each try; a command that just waited would hang with a flood of lines. The probe asks
for metadata in short steps and stops at the first error no retry can cure, with one line
naming the listener and the cause.
"""

from __future__ import annotations

import time
from typing import Any

from mqkafka.kafka import clients
from mqkafka.kafka.clientconfig import ClientConfig

DEFAULT_TIMEOUT = 15.0

# Errors that retrying cannot cure: wrong credentials, a mechanism the listener does not
# offer, TLS spoken to a plaintext listener (or the reverse), a certificate not trusted.
_INCURABLE = {"_AUTHENTICATION", "_SSL", "SASL_AUTHENTICATION_FAILED", "_INVALID_ARG"}
_INCURABLE_HINTS = ("SSL handshake", "SASL", "PLAINTEXT broker listener", "certificate")


class KafkaUnusable(clients.KafkaEdgeError):
    """Kafka refused us for a reason no retry cures (credentials, TLS, mechanism)."""


class KafkaUnreachable(clients.KafkaEdgeError):
    """No broker answered within the timeout."""


def incurable(error: Any) -> bool:
    """Whether a client error (a ``KafkaError``) is one that retrying cannot cure."""
    if error.fatal() or error.name() in _INCURABLE:
        return True
    text = error.str()
    return error.name() != "_ALL_BROKERS_DOWN" and any(hint in text for hint in _INCURABLE_HINTS)


def check_cluster(config: ClientConfig, timeout: float = DEFAULT_TIMEOUT) -> Any:
    """The cluster's metadata, or :class:`KafkaUnusable` / :class:`KafkaUnreachable`."""
    errors: list[Any] = []
    admin = clients.admin(config, {"log_level": 0}, on_error=errors.append)  # said here, once
    deadline = time.monotonic() + timeout
    last = ""
    while True:
        try:
            metadata = admin.list_topics(timeout=min(1.0, max(0.1, deadline - time.monotonic())))
            if metadata.brokers:
                return metadata
        except clients.KafkaException as failure:
            last = str(failure.args[0].str() if failure.args else failure)
        admin.poll(0)  # serves the error callback
        for error in errors:
            if incurable(error):
                raise KafkaUnusable(f"Kafka at {config.describe()} refused us: {error.str()}")
        if errors:
            last = errors[-1].str()
        if time.monotonic() >= deadline:
            raise KafkaUnreachable(
                f"Kafka at {config.describe()} did not answer within {timeout:.0f}s"
                + (f": {last}" if last else "")
            )


__all__ = ["DEFAULT_TIMEOUT", "KafkaUnreachable", "KafkaUnusable", "check_cluster", "incurable"]
