"""A secured local broker: SASL/SCRAM-SHA-512 on the client listener, Kafka's
``StandardAuthorizer`` with nothing allowed unless an ACL says so, and three users:

- ``admin``: everything (``super.users``): the broker itself, ``mqk topics apply``, ACLs.
- ``mqk-service``, the broker service: every topic (it delivers to any subscriber queue and
  creates those missing), groups and transactional ids ``mqk-*``, idempotent writes.
- ``mqk-app``, an MQ application: write the control queue and the default stream; read, write,
  create and delete its own queues ``APP.*`` (and ``MQK.CLIENT.REPLY``, where ``mqk``'s client
  takes replies); the MQI's catalogue and heartbeats; the broker's state topics read-only; its
  own groups and transactional ids only (``kafka/groups.py``): not the service's group, which
  it could otherwise describe, join or fence; Kafka's share-group state read-only (browse).

The controller listener speaks SASL/PLAIN with the admin user (KRaft controllers cannot
authenticate SCRAM: its credentials live in the metadata they serve). Passwords are drawn once
per broker home and kept in ``security.json`` (mode 600) and in one client properties file per
user (``clients/<user>.properties``, mode 600), ready for ``--kafka-config``.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    ResourcePatternType,
    ResourceType,
)

from mqkafka.kafka import sharelog
from mqkafka.kafka.groups import APP_GROUP_PREFIX, APP_TRANSACTIONS, SHARE_GROUP_PREFIX
from mqkafka.state.kinds import MQI_CHANGELOGS, STATE_KINDS

MECHANISM = "SCRAM-SHA-512"
ADMIN, SERVICE, APP = "admin", "mqk-service", "mqk-app"
APP_QUEUE_PREFIX = "APP."
CLIENT_LISTENER = "SASL_PLAINTEXT"
TLS_LISTENER = "SASL_SSL"  # the same users over TLS, with a certificate made for the home
SECURITY_FILE = "security.json"

_SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"
_PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"


@dataclass(frozen=True)
class Credentials:
    passwords: Mapping[str, str]

    @classmethod
    def of_home(cls, home: Path) -> Credentials:
        """This home's users, drawn on first use and kept."""
        path = home / SECURITY_FILE
        try:
            return cls(json.loads(path.read_text())["passwords"])
        except (OSError, ValueError, KeyError):
            pass
        made = cls({user: secrets.token_urlsafe(18) for user in (ADMIN, SERVICE, APP)})
        home.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"mechanism": MECHANISM, "passwords": dict(made.passwords)}))
        path.chmod(0o600)
        return made

    def client_settings(self, user: str) -> dict[str, str]:
        return {
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": MECHANISM,
            "sasl.username": user,
            "sasl.password": self.passwords[user],
        }


def tls_files(home: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (made once per home, by openssl): the
    broker's PEM keystore (key and certificate) and the certificate clients trust."""
    folder = home / "tls"
    keystore, certificate = folder / "keystore.pem", folder / "ca.pem"
    if keystore.exists() and certificate.exists():
        return keystore, certificate
    folder.mkdir(parents=True, exist_ok=True)
    key = folder / "key.pem"
    done = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "3650",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-keyout", str(key), "-out", str(certificate)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"openssl could not make a certificate: {done.stderr.strip()}")
    keystore.write_text(key.read_text() + certificate.read_text())
    keystore.chmod(0o600)
    key.unlink()
    return keystore, certificate


def broker_config(
    credentials: Credentials, port: int, cport: int, tls_port: int, keystore: Path
) -> dict[str, str]:
    admin_password = credentials.passwords[ADMIN]
    return {
        "listeners": (
            f"{CLIENT_LISTENER}://127.0.0.1:{port},CONTROLLER://127.0.0.1:{cport},"
            f"{TLS_LISTENER}://127.0.0.1:{tls_port}"
        ),
        "advertised.listeners": (
            f"{CLIENT_LISTENER}://127.0.0.1:{port},{TLS_LISTENER}://127.0.0.1:{tls_port}"
        ),
        "listener.security.protocol.map": (
            f"CONTROLLER:SASL_PLAINTEXT,{CLIENT_LISTENER}:SASL_PLAINTEXT,{TLS_LISTENER}:SASL_SSL"
        ),
        f"listener.name.{TLS_LISTENER.lower()}.{MECHANISM.lower()}.sasl.jaas.config": (
            f"{_SCRAM} required;"
        ),
        f"listener.name.{TLS_LISTENER.lower()}.ssl.keystore.type": "PEM",
        f"listener.name.{TLS_LISTENER.lower()}.ssl.keystore.location": str(keystore),
        "inter.broker.listener.name": CLIENT_LISTENER,
        "sasl.enabled.mechanisms": MECHANISM,
        "sasl.mechanism.inter.broker.protocol": MECHANISM,
        f"listener.name.{CLIENT_LISTENER.lower()}.{MECHANISM.lower()}.sasl.jaas.config": (
            f'{_SCRAM} required username="{ADMIN}" password="{admin_password}";'
        ),
        "sasl.mechanism.controller.protocol": "PLAIN",
        "listener.name.controller.sasl.enabled.mechanisms": "PLAIN",
        "listener.name.controller.plain.sasl.jaas.config": (
            f'{_PLAIN} required username="{ADMIN}" password="{admin_password}" '
            f'user_{ADMIN}="{admin_password}";'
        ),
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": f"User:{ADMIN}",
        "allow.everyone.if.no.acl.found": "false",
    }


def storage_arguments(credentials: Credentials) -> list[str]:
    """``kafka-storage format`` arguments that create the SCRAM users with the cluster."""
    args: list[str] = []
    for user, password in credentials.passwords.items():
        args += ["--add-scram", f"{MECHANISM}=[name={user},password={password}]"]
    return args


def write_client_files(
    home: Path, credentials: Credentials, bootstrap: str, tls_bootstrap: str, ca: Path
) -> dict[str, Path]:
    """One properties file per user, for ``--kafka-config`` / ``MQK_KAFKA_CONFIG``, and one
    per user for the TLS listener (``<user>-tls.properties``)."""
    folder = home / "clients"
    folder.mkdir(parents=True, exist_ok=True)
    tls = {"security.protocol": "SASL_SSL", "ssl.ca.location": str(ca)}
    written = {}
    for user in credentials.passwords:
        short = {SERVICE: "service", APP: "app"}.get(user, user)
        for suffix, where, extra in (("", bootstrap, {}), ("-tls", tls_bootstrap, tls)):
            path = folder / f"{short}{suffix}.properties"
            lines = [f"# Kafka client settings for {user} (written by mqk kafka start)"]
            lines += [f"bootstrap.servers={where}"]
            settings = credentials.client_settings(user) | extra
            lines += [f"{k}={v}" for k, v in settings.items()]
            path.write_text("\n".join(lines) + "\n")
            path.chmod(0o600)
            written[user + suffix] = path
    return written


def _allow(kind: Any, name: str, pattern: Any, user: str, operations: list[Any]) -> list[Any]:
    return [
        AclBinding(kind, name, pattern, f"User:{user}", "*", op, AclPermissionType.ALLOW)
        for op in operations
    ]


def acl_bindings(
    namespace: str = "",
    service: str = SERVICE,
    app: str = APP,
    app_queues: str = APP_QUEUE_PREFIX,
    share_state: bool = True,
) -> list[Any]:
    """The ACLs of the service and application users (idempotent to create again). Give each
    application principal its own ``app_queues`` prefix (``ALICE.``): Kafka then keeps one
    application's queues from another's, as the service's ACL file does for what it writes.
    ``share_state``: the application may read Kafka's ``__share_group_state``."""
    T, G, X, C = (
        ResourceType.TOPIC,
        ResourceType.GROUP,
        ResourceType.TRANSACTIONAL_ID,
        ResourceType.BROKER,
    )
    LIT, PRE = ResourcePatternType.LITERAL, ResourcePatternType.PREFIXED
    op = AclOperation
    ns = namespace
    bindings: list[Any] = []
    # the service: every topic (subscriber queues are any topic), its groups and transactions
    everything = [op.READ, op.WRITE, op.CREATE, op.DELETE, op.DESCRIBE]
    bindings += _allow(T, "*", LIT, service, [*everything, op.DESCRIBE_CONFIGS, op.ALTER_CONFIGS])
    bindings += _allow(G, "mqk-", PRE, service, [op.READ, op.DESCRIBE])
    bindings += _allow(G, f"{ns}mqk-", PRE, service, [op.READ, op.DESCRIBE, op.ALTER_CONFIGS])
    bindings += _allow(X, "mqk-", PRE, service, [op.WRITE, op.DESCRIBE])
    bindings += _allow(X, f"{ns}mqk-", PRE, service, [op.WRITE, op.DESCRIBE])
    bindings += _allow(C, "kafka-cluster", LIT, service, [op.IDEMPOTENT_WRITE, op.DESCRIBE_CONFIGS])
    # an application: commands and publications in, its own queues both ways
    for queue in ("SYSTEM.BROKER.CONTROL.QUEUE", "SYSTEM.BROKER.DEFAULT.STREAM"):
        bindings += _allow(T, ns + queue, LIT, app, [op.WRITE, op.DESCRIBE])
    # the queue manager's system objects exist (the MQI looks before it defines them)
    bindings += _allow(T, ns + "SYSTEM.", PRE, app, [op.DESCRIBE])
    own = [op.READ, op.WRITE, op.CREATE, op.DELETE, op.DESCRIBE, op.DESCRIBE_CONFIGS]
    for prefix in (app_queues, "MQK.CLIENT.REPLY"):
        bindings += _allow(T, ns + prefix, PRE, app, own)
    # the MQI keeps the queue catalogue and connection heartbeats (it defines queues itself)
    for topic in (changelog.topic for changelog in MQI_CHANGELOGS):
        bindings += _allow(
            T, ns + topic, LIT, app, [op.READ, op.WRITE, op.DESCRIBE, op.DESCRIBE_CONFIGS]
        )
    # the broker's state: readable (mqk sub list, retained list), never writable
    for topic in (kind.topic for kind in STATE_KINDS):
        bindings += _allow(T, ns + topic, LIT, app, [op.READ, op.DESCRIBE, op.DESCRIBE_CONFIGS])
    # its own groups: the MQI's share groups and assign-only readers; no prefix of these
    # covers the service's group (<ns>mqk-broker) or transactional ids (<ns>mqk-serve-)
    share = [op.READ, op.DESCRIBE, op.ALTER_CONFIGS]
    bindings += _allow(G, ns + SHARE_GROUP_PREFIX, PRE, app, share)
    bindings += _allow(G, APP_GROUP_PREFIX, PRE, app, [op.READ, op.DESCRIBE])
    bindings += _allow(X, APP_TRANSACTIONS, PRE, app, [op.WRITE, op.DESCRIBE])
    bindings += _allow(C, "kafka-cluster", LIT, app, [op.IDEMPOTENT_WRITE, op.DESCRIBE_CONFIGS])
    # Kafka's record-by-record state of every share group (offsets and delivery states, no
    # messages; not namespaced), read-only as monitoring tools are given __consumer_offsets:
    # with it a browse knows which records were acknowledged, a crashed getter's too; without
    # it a browse counts them from the lag and the getters' answers, which name nothing a
    # getter acknowledged after its last answer before it crashed (issue 35 point 4)
    if share_state:
        bindings += _allow(T, sharelog.STATE_TOPIC, LIT, app, [op.READ, op.DESCRIBE])
    return bindings


def apply_acls(admin: Any, bindings: list[Any] | None = None, timeout: float = 30.0) -> int:
    """Create the ACLs (as an admin user) and return, with how many bindings were set, once
    the broker lists them all: the controller commits ACLs before a broker's authorizer has
    them, and an application started at once was refused (TOPIC_AUTHORIZATION_FAILED)."""
    unique = {str(b): b for b in bindings or acl_bindings()}  # an empty namespace repeats some
    bindings = list(unique.values())
    for future in admin.create_acls(bindings, request_timeout=timeout).values():
        future.result()
    _await_listed(admin, set(unique), time.monotonic() + timeout)
    return len(bindings)


def _await_listed(admin: Any, wanted: set[str], deadline: float) -> None:
    everything = AclBindingFilter(
        ResourceType.ANY, None, ResourcePatternType.ANY, None, None,
        AclOperation.ANY, AclPermissionType.ANY,
    )  # fmt: skip
    while True:
        listed = {str(b) for b in admin.describe_acls(everything).result()}
        missing = wanted - listed
        if not missing:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"the broker lists {len(wanted) - len(missing)} of {len(wanted)} ACLs"
            )
        time.sleep(0.1)


def describe(bindings: list[Any]) -> list[str]:
    """One line per binding, as ``kafka-acls --list`` would say it."""
    lines = {
        f"{b.principal:18} {b.operation.name:16} {b.restype.name.lower():16} "
        f"{b.name}{'*' if b.resource_pattern_type.name == 'PREFIXED' else ''}"
        for b in bindings
    }
    return sorted(lines)


def home_security(home: Path) -> str:
    """The security a broker home was formatted with ("plaintext" or "sasl")."""
    return "sasl" if (home / SECURITY_FILE).exists() else "plaintext"


__all__ = [
    "ADMIN",
    "APP",
    "APP_QUEUE_PREFIX",
    "MECHANISM",
    "SERVICE",
    "Credentials",
    "acl_bindings",
    "apply_acls",
    "broker_config",
    "describe",
    "home_security",
    "storage_arguments",
    "write_client_files",
]
