"""Kafka client settings from a properties file, the environment and code (issue 18 point 4):
what a user writes, what every client gets, and that a secret never shows."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.kafka.clientconfig import (
    ClientConfig,
    ClientConfigError,
    load_client_config,
    read_properties,
    settings_from_environment,
)
from mqkafka.kafka.clients import RepeatFilter, consumer_settings
from mqkafka.kafka.javaprops import java_client_settings

SCRAM_JAAS = (
    "org.apache.kafka.common.security.scram.ScramLoginModule required "
    'username="svc" password="s3cret";'
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("security.protocol=SASL_SSL\n", {"security.protocol": "SASL_SSL"}),
        ("# a comment\n! another\n\nsasl.username = app\n", {"sasl.username": "app"}),
        ("sasl.mechanism: PLAIN\n", {"sasl.mechanism": "PLAIN"}),
        ("sasl.mechanisms=SCRAM-SHA-256\n", {"sasl.mechanism": "SCRAM-SHA-256"}),
        ("ssl.ca.location=/etc/ca.pem\n", {"ssl.ca.location": "/etc/ca.pem"}),
        ("a.b=one \\\n    two\n", {"a.b": "one two"}),
        ("key value\n", {"key": "value"}),
        (
            f"sasl.jaas.config={SCRAM_JAAS}\n",
            {"sasl.username": "svc", "sasl.password": "s3cret"},
        ),
        (
            "ssl.truststore.type=PEM\nssl.truststore.location=/ca.pem\n",
            {"ssl.ca.location": "/ca.pem"},
        ),
        ("client.dns.lookup=use_all_dns_ips\n", {}),  # Java-only: dropped
    ],
    ids=[
        "equals", "comments", "colon", "old-mechanisms-name", "tls-ca", "continuation",
        "space-separator", "java-jaas", "pem-truststore", "java-only",
    ],
)  # fmt: skip
def test_a_properties_file_reads_as_librdkafka_settings(
    tmp_path: Path, text: str, expected: dict[str, str]
) -> None:
    path = tmp_path / "client.properties"
    path.write_text(text)
    assert read_properties(path) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ok=1\n=value\n", "client.properties:2: a setting needs a name"),
        ("ok=1\n\nlonely\n", "client.properties:3: 'lonely' has no '='"),
        ("a=1 \\\n", "client.properties:1: the file ends inside a continued line"),
        ("sasl.jaas.config=com.example.Kerberos required;\n", "PlainLoginModule or Scram"),
        ("ssl.truststore.location=/a.jks\n", "only a PEM truststore"),
    ],
    ids=["no-name", "no-value", "open-continuation", "kerberos-jaas", "jks-truststore"],
)
def test_a_bad_properties_file_is_one_line_naming_file_and_line(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "client.properties"
    path.write_text(text)
    with pytest.raises(ClientConfigError) as raised:
        read_properties(path)
    assert message in str(raised.value) and str(path) in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ClientConfigError, match=r"nothing\.properties: cannot read"):
        read_properties(tmp_path / "nothing.properties")


@pytest.mark.parametrize(
    ("variable", "setting"),
    [
        ("MQK_KAFKA_SECURITY_PROTOCOL", "security.protocol"),
        ("MQK_KAFKA_SASL_PASSWORD", "sasl.password"),
        ("MQK_KAFKA_SSL_CA_LOCATION", "ssl.ca.location"),
        ("MQK_KAFKA_LOG__LEVEL", "log_level"),
    ],
)
def test_environment_variables_name_single_settings(variable: str, setting: str) -> None:
    env = {variable: "v", "MQK_KAFKA_CONFIG": "/ignored", "OTHER": "x"}
    assert settings_from_environment(env) == {setting: "v"}


def test_precedence_file_then_environment_then_code_and_bootstrap_over_all(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.properties"
    path.write_text(
        "bootstrap.servers=file:9092\nsasl.username=from-file\nsasl.password=p\n"
        "security.protocol=SASL_PLAINTEXT\n"
    )
    env = {"MQK_KAFKA_CONFIG": str(path), "MQK_KAFKA_SASL_USERNAME": "from-env"}
    config = load_client_config(environ=env)
    assert config.bootstrap == "file:9092"  # the file may say where
    assert config.settings["sasl.username"] == "from-env"
    coded = load_client_config(environ=env, overrides={"sasl.username": "from-code"})
    assert coded.settings["sasl.username"] == "from-code"
    explicit = load_client_config("flag:1", environ={**env, "MQK_BOOTSTRAP_SERVERS": "env:2"})
    assert explicit.bootstrap == "flag:1"
    assert load_client_config(environ={**env, "MQK_BOOTSTRAP_SERVERS": "env:2"}).bootstrap == (
        "env:2"
    )
    with pytest.raises(ClientConfigError, match="no Kafka bootstrap servers"):
        load_client_config(environ={})


def test_a_roles_settings_go_over_the_users_and_secrets_are_never_shown() -> None:
    config = ClientConfig("h:1", {"sasl.password": "hunter2", "isolation.level": "x", "a": "b"})
    merged = config.client_settings({"isolation.level": "read_committed"})
    assert merged["isolation.level"] == "read_committed" and merged["bootstrap.servers"] == "h:1"
    assert merged["sasl.password"] == "hunter2"  # the client gets it...
    for shown in (repr(config), str(config.redacted()), config.describe()):
        assert "hunter2" not in shown  # ...nothing a person reads does


@given(st.text(min_size=1, max_size=40).filter(lambda s: "\n" not in s and "\r" not in s))
def test_any_password_survives_the_java_client_translation_quoted(password: str) -> None:
    config = ClientConfig(
        "h:1",
        {"security.protocol": "sasl_ssl", "sasl.mechanism": "SCRAM-SHA-512",
         "sasl.username": "u", "sasl.password": password},
    )  # fmt: skip
    java = java_client_settings(config)
    assert java["security.protocol"] == "SASL_SSL"
    jaas = java["sasl.jaas.config"]
    assert jaas.startswith("org.apache.kafka.common.security.scram.ScramLoginModule required")
    quoted = '"' + password.replace("\\", "\\\\").replace('"', '\\"') + '"'
    assert f"password={quoted};" in jaas


def test_repeated_client_lines_are_held_back_and_counted() -> None:
    limiter = RepeatFilter(interval=3600)

    def record(text: str) -> logging.LogRecord:
        return logging.LogRecord("k", logging.WARNING, __file__, 1, text, None, None)

    first = record("Connect to 127.0.0.1:9092 failed (after 0ms)")
    assert limiter.filter(first)
    assert not limiter.filter(record("Connect to 127.0.0.1:9092 failed (after 3ms)"))
    assert limiter.filter(record("SASL authentication error"))  # another kind passes
    limiter.interval = 0
    again = record("Connect to 127.0.0.1:9092 failed (after 9ms)")
    assert limiter.filter(again) and "1 more like it held back" in again.getMessage()


def test_lines_are_held_back_by_their_own_time_the_one_their_stamp_shows() -> None:
    """The interval is counted between the lines' times, as their log stamps show them, not
    between the filter's calls, where a stamp taken before a thread switch could show two
    lines in 30 s (the restart test's check reads the stamps; they were 30.007 s apart)."""
    limiter = RepeatFilter(interval=30)
    start = time.time()

    def record(at: float) -> logging.LogRecord:
        made = logging.LogRecord("k", logging.ERROR, __file__, 1, "Connect to x failed", None, None)
        made.created = at
        return made

    assert limiter.filter(record(start))
    assert not limiter.filter(record(start + 29.999))
    assert limiter.filter(record(start + 30.0))
    assert limiter.said_unreachable(start + 59.999)  # say_away's line: by its own time too
    assert not limiter.said_unreachable(start + 60.0)


def test_the_lines_of_a_broker_that_stops_are_one_kind() -> None:
    """A stopping broker closes and resets connections: librdkafka's "Disconnected" and "Send
    failed: Connection reset by peer" lines of one moment are one line (the restart test saw
    both, and the error callback's copy of the second, within 3 ms)."""
    limiter = RepeatFilter(interval=3600)
    lines = [
        "GroupCoordinator: 127.0.0.1:1: Disconnected: connection closed by peer (after 3172ms)",
        "127.0.0.1:1/1: Send failed: Connection reset by peer (after 3237ms in state UP)",
        "Kafka client: 127.0.0.1:1/1: Send failed: Connection reset by peer (after 3237ms)",
        "127.0.0.1:1/1: Receive failed: Broken pipe",
    ]
    passed = [
        limiter.filter(logging.LogRecord("k", logging.ERROR, __file__, 1, line, None, None))
        for line in lines
    ]
    assert passed == [True, False, False, False]


@pytest.mark.parametrize(
    ("user", "role", "expected"),
    [
        ({}, None, 10),  # librdkafka's 1 s pause starved the service's loop (issue 21)
        ({"fetch.queue.backoff.ms": "250"}, None, "250"),  # the user's setting wins
        ({"fetch.queue.backoff.ms": "250"}, {"fetch.queue.backoff.ms": 3}, 3),  # the role's
    ],
)
def test_consumer_fetch_queue_backoff(user: dict[str, str], role: Any, expected: Any) -> None:
    config = ClientConfig("127.0.0.1:9092", user)
    assert consumer_settings(config, role)["fetch.queue.backoff.ms"] == expected
