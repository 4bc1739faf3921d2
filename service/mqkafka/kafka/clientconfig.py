"""Where Kafka is and how to talk to it: one value every client of every command is made from.

A user gives Kafka client settings the way Kafka's own tools take them (``--command-config``):

| source (later wins) | example |
|---|---|
| ``--kafka-config FILE`` or ``MQK_KAFKA_CONFIG`` | ``security.protocol=SASL_SSL`` |
| ``MQK_KAFKA_<SETTING>`` (``_`` is ``.``, ``__`` is ``_``) | ``MQK_KAFKA_SASL_PASSWORD=...`` |
| settings given in code (the MQI's ``kafka_config=``) | ``{"sasl.username": "app"}`` |
| ``--bootstrap-servers`` / ``MQK_BOOTSTRAP_SERVERS`` | ``broker1:9092,broker2:9092`` |

Settings are librdkafka's names. A Java client's ``sasl.jaas.config`` (Plain or Scram login
module) is read for its username and password, so one file serves Kafka's tools and these.
A role's own settings (a consumer's ``isolation.level``, a producer's ``transactional.id``)
are the product's and are applied over the user's. Secrets never leave this module in clear:
:meth:`ClientConfig.redacted` is what logs and messages show.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CONFIG_FILE_ENV = "MQK_KAFKA_CONFIG"
SETTING_ENV_PREFIX = "MQK_KAFKA_"
BOOTSTRAP_ENV = "MQK_BOOTSTRAP_SERVERS"
# A user's identity key file (issue 20): the environment, or this property in the file.
IDENTITY_ENV = "MQK_IDENTITY_FILE"
IDENTITY_SETTING = "mqk.identity.file"
REDACTED = "[redacted]"

# Words in a setting's name that mark its value as a secret.
_SECRET_WORDS = ("password", "secret", "jaas", "token", "key.pem", "oauthbearer.config")
# Java-only settings that have no librdkafka meaning; a file shared with Kafka's tools has them.
_JAVA_ONLY = frozenset(
    {
        "sasl.jaas.config",
        "ssl.truststore.type",
        "ssl.keystore.type",
        "ssl.truststore.password",
        "ssl.endpoint.identification.algorithm",
        "ssl.truststore.location",
        "client.dns.lookup",
        "default.api.timeout.ms",
    }
)
_JAAS_FIELD = re.compile(r'(username|password)\s*=\s*"((?:[^"\\]|\\.)*)"')


class ClientConfigError(ValueError):
    """A client setting that cannot be used; the message names the file and line if any."""


def is_secret(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in _SECRET_WORDS)


@dataclass(frozen=True)
class ClientConfig:
    """The bootstrap servers and the user's librdkafka settings (security, tuning)."""

    bootstrap: str
    settings: Mapping[str, str] = field(default_factory=dict, repr=False)  # may hold secrets
    # the user's identity key file: producers made from this sign what they write
    identity_file: str | None = None

    def __post_init__(self) -> None:
        if not self.bootstrap:
            raise ClientConfigError("no Kafka bootstrap servers given")

    def client_settings(self, role: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """librdkafka settings for one client: the user's, then the role's over them."""
        merged: dict[str, Any] = dict(self.settings)
        merged["bootstrap.servers"] = self.bootstrap
        if role:
            merged.update(role)
        return merged

    @property
    def security_protocol(self) -> str:
        return self.settings.get("security.protocol", "PLAINTEXT").upper()

    @property
    def secured(self) -> bool:
        return self.security_protocol != "PLAINTEXT"

    def __repr__(self) -> str:
        return f"ClientConfig({self.redacted()!r})"

    def redacted(self) -> dict[str, str]:
        shown = {k: (REDACTED if is_secret(k) else v) for k, v in self.settings.items()}
        return {"bootstrap.servers": self.bootstrap, **shown}

    def describe(self) -> str:
        """One line for logs: where and how, never a secret."""
        mechanism = self.settings.get("sasl.mechanism") or self.settings.get("sasl.mechanisms")
        how = self.security_protocol + (f" {mechanism}" if mechanism else "")
        user = self.settings.get("sasl.username")
        return f"{self.bootstrap} ({how}{f' as {user}' if user else ''})"


def read_properties(path: Path) -> dict[str, str]:
    """A Java properties file (``key=value`` or ``key: value``, ``#``/``!`` comments, ``\\``
    continuations) as librdkafka settings; a Java ``sasl.jaas.config`` becomes
    ``sasl.username``/``sasl.password``. Raises :class:`ClientConfigError` naming file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ClientConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ClientConfigError(f"{path}: not a text file (UTF-8 expected)") from None
    found: dict[str, str] = {}
    logical = ""
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip() if not logical else raw.lstrip()
        if not logical:
            start = number
            if not line or line[0] in "#!":
                continue
        if line.endswith("\\") and not line.endswith("\\\\"):
            logical += line[:-1]
            continue
        logical += line
        key, value = _split_property(logical)
        logical = ""
        if not key:
            raise ClientConfigError(f"{path}:{start}: a setting needs a name before '='")
        if value is None:
            raise ClientConfigError(f"{path}:{start}: '{_shown(key)}' has no '=' and no value")
        found[key] = value
    if logical:
        raise ClientConfigError(f"{path}:{start}: the file ends inside a continued line")
    try:
        return librdkafka_settings(found)
    except ClientConfigError as error:
        raise ClientConfigError(f"{path}: {error}") from None


def _split_property(line: str) -> tuple[str, str | None]:
    for index, char in enumerate(line):
        if char in "=:":
            return line[:index].strip(), line[index + 1 :].strip()
        if char.isspace():
            rest = line[index:].lstrip()
            if rest[:1] in ("=", ":"):
                rest = rest[1:]
            return line[:index].strip(), rest.strip() if rest.strip() else None
    return line.strip(), None


def _shown(key: str) -> str:
    return key if len(key) <= 60 else key[:57] + "..."


def librdkafka_settings(settings: Mapping[str, str]) -> dict[str, str]:
    """Java client settings made librdkafka's: the JAAS login read, Java-only names dropped."""
    out = {k: v for k, v in settings.items() if k not in _JAVA_ONLY}
    truststore = settings.get("ssl.truststore.location")
    if truststore:
        if settings.get("ssl.truststore.type", "JKS").upper() != "PEM":
            raise ClientConfigError(
                "ssl.truststore.location: only a PEM truststore (ssl.truststore.type=PEM) can "
                "be used; or give ssl.ca.location"
            )
        out.setdefault("ssl.ca.location", truststore)
    jaas = settings.get("sasl.jaas.config")
    if jaas:
        fields = dict(_JAAS_FIELD.findall(jaas))
        if "username" not in fields or "password" not in fields:
            raise ClientConfigError(
                "sasl.jaas.config: only a PlainLoginModule or ScramLoginModule with "
                'username="..." password="..." can be used; give sasl.username and '
                "sasl.password instead"
            )
        out.setdefault("sasl.username", fields["username"].replace('\\"', '"'))
        out.setdefault("sasl.password", fields["password"].replace('\\"', '"'))
    if "sasl.mechanisms" in out and "sasl.mechanism" not in out:
        out["sasl.mechanism"] = out.pop("sasl.mechanisms")
    return out


def settings_from_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``MQK_KAFKA_<SETTING>`` variables: ``MQK_KAFKA_SASL_USERNAME`` is ``sasl.username``."""
    env = os.environ if environ is None else environ
    found: dict[str, str] = {}
    for name, value in env.items():
        if not name.startswith(SETTING_ENV_PREFIX) or name == CONFIG_FILE_ENV:
            continue
        setting = name[len(SETTING_ENV_PREFIX) :].lower()
        if setting:
            found[setting.replace("__", "\0").replace("_", ".").replace("\0", "_")] = value
    return found


def load_client_config(
    bootstrap: str | None = None,
    config_file: Path | str | None = None,
    *,
    overrides: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
    fallback_bootstrap: str | None = None,
) -> ClientConfig:
    """The client configuration a command uses, from its options and the environment.

    ``bootstrap``: ``--bootstrap-servers`` (else ``MQK_BOOTSTRAP_SERVERS``, else the file's
    ``bootstrap.servers``, else ``fallback_bootstrap``). ``overrides``: settings given in code
    (the MQI's ``kafka_config=``), over everything but the bootstrap servers.
    """
    env = os.environ if environ is None else environ
    file = config_file or env.get(CONFIG_FILE_ENV)
    settings: dict[str, str] = read_properties(Path(file)) if file else {}
    settings.update(librdkafka_settings(settings_from_environment(env)))
    settings.update(librdkafka_settings({k: str(v) for k, v in (overrides or {}).items()}))
    from_settings = settings.pop("bootstrap.servers", None)
    chosen = bootstrap or env.get(BOOTSTRAP_ENV) or from_settings or fallback_bootstrap
    if not chosen:
        raise ClientConfigError("no Kafka bootstrap servers given")
    identity = settings.pop(IDENTITY_SETTING, None)  # ours, not librdkafka's
    return ClientConfig(chosen, settings, env.get(IDENTITY_ENV) or identity or None)


__all__ = [
    "BOOTSTRAP_ENV",
    "CONFIG_FILE_ENV",
    "IDENTITY_ENV",
    "IDENTITY_SETTING",
    "ClientConfig",
    "ClientConfigError",
    "is_secret",
    "librdkafka_settings",
    "load_client_config",
    "read_properties",
    "settings_from_environment",
]
