"""What every mqk subcommand shares: where Kafka is and how to reach it, the namespace, and
the error type."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from mqkafka.kafka.clientconfig import (
    CONFIG_FILE_ENV,
    ClientConfig,
    ClientConfigError,
    load_client_config,
)
from mqkafka.kafka.localbroker import LocalBroker
from mqkafka.kafka.probe import check_cluster


class UserError(RuntimeError):
    """A failure to report to the user as one plain message (exit code 2 unless given)."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class Interrupted(KeyboardInterrupt):
    """Ctrl-C that the command has already answered with its one line (exit code 130)."""


def add_bootstrap(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bootstrap-servers",
        metavar="HOST:PORT",
        help="Kafka bootstrap servers (default: $MQK_BOOTSTRAP_SERVERS, else the local broker)",
    )
    parser.add_argument(
        "--kafka-config",
        metavar="FILE",
        type=Path,
        help="a properties file of Kafka client settings (security.protocol, sasl.*, ssl.*), "
        f"like the --command-config of Kafka's tools (${CONFIG_FILE_ENV}; single settings: "
        "$MQK_KAFKA_<SETTING>, e.g. MQK_KAFKA_SASL_USERNAME)",
    )
    parser.add_argument(
        "--namespace",
        default=os.environ.get("MQK_NAMESPACE", ""),
        help="prefix of every topic, so several queue managers share a cluster ($MQK_NAMESPACE)",
    )


def client_of(args: argparse.Namespace, *, check: bool = True) -> ClientConfig:
    """The Kafka client configuration of this command; with ``check``, Kafka was asked and
    answered (a refused login or an unreachable cluster is a :class:`UserError`)."""
    local = None
    explicit = getattr(args, "bootstrap_servers", None) or os.environ.get("MQK_BOOTSTRAP_SERVERS")
    if not explicit:
        info = LocalBroker().info()
        local = info.bootstrap if info is not None else None
    try:
        config = load_client_config(
            explicit, getattr(args, "kafka_config", None), fallback_bootstrap=local
        )
    except ClientConfigError as error:
        if "no Kafka bootstrap servers" in str(error):
            raise UserError(
                "no Kafka to talk to: pass --bootstrap-servers, set MQK_BOOTSTRAP_SERVERS, "
                "or start the local broker with 'mqk kafka start'"
            ) from None
        raise UserError(str(error)) from None
    if check:
        check_cluster(config)
    return config


def bootstrap_of(args: argparse.Namespace) -> str:
    return client_of(args, check=False).bootstrap
