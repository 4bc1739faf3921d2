"""A Faust app takes the project's Kafka settings: bootstrap servers as Faust broker URLs, the
security settings of one ClientConfig as Faust credentials, and a refusal in one line for
what aiokafka cannot do (never a worker that silently connects without the asked-for TLS)."""

from __future__ import annotations

from typing import Any

import faust
import pytest
from faust.types.auth import AuthProtocol, SASLMechanism

from mqkafka.faust import MQApp, app_settings, broker_credentials, broker_urls, make_app
from mqkafka.kafka.clientconfig import ClientConfig, ClientConfigError

SASL = {"sasl.username": "app", "sasl.password": "s3cret"}


def test_every_bootstrap_server_is_a_broker_url() -> None:
    config = ClientConfig("broker1:9092, broker2:9093")
    assert broker_urls(config) == ["kafka://broker1:9092", "kafka://broker2:9093"]


@pytest.mark.parametrize(
    ("settings", "kind", "protocol", "mechanism"),
    [
        ({"security.protocol": "SSL"}, faust.SSLCredentials, AuthProtocol.SSL, None),
        (
            {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-512", **SASL},
            faust.SASLCredentials,
            AuthProtocol.SASL_PLAINTEXT,
            SASLMechanism.SCRAM_SHA_512,
        ),
        (
            {"security.protocol": "sasl_ssl", "sasl.mechanism": "PLAIN", **SASL},
            faust.SASLCredentials,
            AuthProtocol.SASL_SSL,
            SASLMechanism.PLAIN,
        ),
        (
            {"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-256", **SASL},
            faust.SASLCredentials,
            AuthProtocol.SASL_SSL,
            SASLMechanism.SCRAM_SHA_256,
        ),
    ],
)
def test_security_settings_become_faust_credentials(
    settings: dict[str, str],
    kind: type[Any],
    protocol: AuthProtocol,
    mechanism: SASLMechanism | None,
) -> None:
    credentials = broker_credentials(ClientConfig("b:9092", {**settings, "linger.ms": "5"}))
    assert isinstance(credentials, kind)
    assert credentials.protocol == protocol
    if mechanism is not None:
        assert (credentials.mechanism, credentials.username) == (mechanism, "app")
        assert credentials.password == "s3cret"


def test_plaintext_needs_no_credentials() -> None:
    settings = app_settings(ClientConfig("b:9092"))
    assert "broker_credentials" not in settings
    assert settings["broker"] == ["kafka://b:9092"]


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER", **SASL}, "OAUTHBEARER"),
        ({"security.protocol": "SASL_PLAINTEXT", **SASL}, "GSSAPI"),  # librdkafka's default
        ({"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN"}, "sasl.username"),
        ({"security.protocol": "SASL_PLAINTEXT", "sasl.kerberos.service.name": "k"}, "kerberos"),
        ({"security.protocol": "TLS"}, "TLS"),
    ],
)
def test_what_aiokafka_cannot_do_is_refused_in_one_line(
    settings: dict[str, str], named: str
) -> None:
    with pytest.raises(ClientConfigError, match=named) as refused:
        broker_credentials(ClientConfig("b:9092", settings))
    assert "\n" not in str(refused.value)
    assert "s3cret" not in str(refused.value)


def test_the_namespace_prefixes_the_apps_id_its_group_and_topics() -> None:
    app = make_app("summary", ClientConfig("b:9092"), namespace="ns1.", topic_partitions=2)
    assert isinstance(app, MQApp)
    assert app.conf.id == "ns1.summary"
    assert app.conf.topic_partitions == 2  # an override wins over the project's default
    assert [str(url) for url in app.conf.broker] == ["kafka://b:9092"]
