"""The user's librdkafka settings as a Java Kafka client's (Spark's Kafka source reads with
one), so the pipeline reaches a secured cluster from the same properties as every command.

| librdkafka | Java client |
|---|---|
| ``security.protocol``, ``sasl.mechanism`` | the same |
| ``sasl.username`` + ``sasl.password`` | ``sasl.jaas.config`` with the mechanism's login module |
| ``ssl.ca.location`` (PEM) | ``ssl.truststore.type=PEM``, ``ssl.truststore.location`` |
| ``ssl.certificate.location``, ``ssl.key.location`` | refused: give Spark a keystore |

Settings with no Java meaning (librdkafka tuning) are left out.
"""

from __future__ import annotations

from collections.abc import Mapping

from mqkafka.kafka.clientconfig import ClientConfig, ClientConfigError

_LOGIN_MODULES = {
    "PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
    "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
}
_SAME_NAME = ("security.protocol", "sasl.mechanism", "ssl.endpoint.identification.algorithm")


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def java_client_settings(config: ClientConfig) -> dict[str, str]:
    """The Java client's settings (without ``bootstrap.servers``) for this configuration."""
    settings: Mapping[str, str] = config.settings
    out = {name: settings[name] for name in _SAME_NAME if name in settings}
    if "security.protocol" in out:
        out["security.protocol"] = out["security.protocol"].upper()
    user, password = settings.get("sasl.username"), settings.get("sasl.password")
    if user is not None and password is not None:
        mechanism = settings.get("sasl.mechanism", "PLAIN").upper()
        module = _LOGIN_MODULES.get(mechanism)
        if module is None:
            raise ClientConfigError(f"sasl.mechanism {mechanism}: no Java login module known")
        out["sasl.jaas.config"] = (
            f"{module} required username={_quoted(user)} password={_quoted(password)};"
        )
    if "ssl.ca.location" in settings:
        out["ssl.truststore.type"] = "PEM"
        out["ssl.truststore.location"] = settings["ssl.ca.location"]
    if "ssl.certificate.location" in settings or "ssl.key.location" in settings:
        raise ClientConfigError(
            "client certificates (ssl.certificate.location) cannot be passed to Spark's Kafka "
            "source from here: give it a keystore with --conf"
        )
    return out


__all__ = ["java_client_settings"]
