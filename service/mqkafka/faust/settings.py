"""A Faust app on this project's Kafka: the bootstrap servers and the security settings of one
:class:`ClientConfig` (``--kafka-config``, ``MQK_KAFKA_*``) mapped to Faust's ``broker`` and
``broker_credentials``, so a Faust application reaches the same cluster as ``mqk`` does.

Faust's client is aiokafka, not librdkafka: only what aiokafka can express is mapped
(PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL with PLAIN or SCRAM-SHA-256/512, a CA file and a
client certificate). Anything else is refused in one line naming the setting, never silently
dropped: a Faust worker that connects without the TLS the user asked for is worse than none.
"""

from __future__ import annotations

import ssl
from typing import Any

import faust

from mqkafka.faust.transport import MQApp
from mqkafka.kafka.clientconfig import ClientConfig, ClientConfigError

SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
# librdkafka settings that only tune librdkafka; Faust has its own knobs for these.
_TUNING_PREFIXES = (
    "linger.", "batch.", "queue.", "fetch.", "socket.", "message.", "compression.",
    "client.id", "statistics.", "log", "debug", "enable.ssl.certificate.verification",
)  # fmt: skip
_MAPPED = frozenset(
    {
        "security.protocol",
        "sasl.mechanism",
        "sasl.username",
        "sasl.password",
        "ssl.ca.location",
        "ssl.certificate.location",
        "ssl.key.location",
        "ssl.key.password",
    }
)


def broker_urls(config: ClientConfig) -> list[str]:
    """Faust's ``broker`` setting: one ``kafka://host:port`` URL per bootstrap server."""
    return [f"kafka://{server.strip()}" for server in config.bootstrap.split(",") if server.strip()]


def broker_credentials(config: ClientConfig) -> Any:
    """Faust credentials for the config's security settings; None for PLAINTEXT."""
    settings = config.settings
    unmapped = sorted(
        name for name in settings if name not in _MAPPED and not name.startswith(_TUNING_PREFIXES)
    )
    if unmapped:
        raise ClientConfigError(f"{unmapped[0]}: this setting cannot be given to a Faust app")
    protocol = config.security_protocol
    context = _ssl_context(config) if protocol in ("SSL", "SASL_SSL") else None
    if protocol == "PLAINTEXT":
        return None
    if protocol == "SSL":
        return faust.SSLCredentials(context)
    if protocol not in ("SASL_PLAINTEXT", "SASL_SSL"):
        raise ClientConfigError(f"security.protocol: {protocol} is not a Kafka security protocol")
    mechanism = settings.get("sasl.mechanism", "GSSAPI").upper()
    if mechanism not in SASL_MECHANISMS:
        raise ClientConfigError(
            f"sasl.mechanism: {mechanism} cannot be given to a Faust app "
            f"({', '.join(SASL_MECHANISMS)} can)"
        )
    if not settings.get("sasl.username") or not settings.get("sasl.password"):
        raise ClientConfigError("sasl.username and sasl.password are needed for a Faust app")
    return faust.SASLCredentials(
        username=settings["sasl.username"],
        password=settings["sasl.password"],
        mechanism=mechanism,
        ssl_context=context,
    )


def _ssl_context(config: ClientConfig) -> ssl.SSLContext:
    settings = config.settings
    context = ssl.create_default_context(
        ssl.Purpose.SERVER_AUTH, cafile=settings.get("ssl.ca.location")
    )
    certificate = settings.get("ssl.certificate.location")
    if certificate:
        context.load_cert_chain(
            certificate, settings.get("ssl.key.location"), settings.get("ssl.key.password")
        )
    return context


def app_settings(config: ClientConfig) -> dict[str, Any]:
    """The settings every Faust app of this project takes: where Kafka is and how to log in,
    and defaults that suit MQ queues (one partition per queue unless said otherwise, committed
    records only, the web server off: nothing here listens on a port the user did not ask for)."""
    settings: dict[str, Any] = {
        "broker": broker_urls(config),
        "topic_partitions": 1,
        "consumer_auto_offset_reset": "earliest",
        "web_enabled": False,  # a worker started by faust's CLI needs --without-web too
    }
    credentials = broker_credentials(config)
    if credentials is not None:
        settings["broker_credentials"] = credentials
    return settings


def make_app(app_id: str, config: ClientConfig, *, namespace: str = "", **overrides: Any) -> MQApp:
    """A Faust app on the config's Kafka; ``overrides`` are Faust settings over the defaults.

    The namespace prefixes the app's id as it prefixes every queue's topic: the app's consumer
    group and its own topics (Table changelogs) then belong to the namespace too."""
    return MQApp(namespace + app_id, **{**app_settings(config), **overrides})


__all__ = ["app_settings", "broker_credentials", "broker_urls", "make_app"]
