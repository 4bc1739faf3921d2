"""What every mqk subcommand shares: where Kafka is, the namespace, and the error type."""

from __future__ import annotations

import argparse
import os

from mqkafka.kafka.localbroker import LocalBroker


class UserError(RuntimeError):
    """A failure to report to the user as one plain message (exit code 2)."""


def add_bootstrap(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bootstrap-servers",
        metavar="HOST:PORT",
        help="Kafka bootstrap servers (default: $MQK_BOOTSTRAP_SERVERS, else the local broker)",
    )
    parser.add_argument(
        "--namespace",
        default=os.environ.get("MQK_NAMESPACE", ""),
        help="prefix of every topic, so several queue managers share a cluster ($MQK_NAMESPACE)",
    )


def bootstrap_of(args: argparse.Namespace) -> str:
    explicit = getattr(args, "bootstrap_servers", None) or os.environ.get("MQK_BOOTSTRAP_SERVERS")
    if explicit:
        return str(explicit)
    info = LocalBroker().info()
    if info is None:
        raise UserError(
            "no Kafka to talk to: pass --bootstrap-servers, set MQK_BOOTSTRAP_SERVERS, "
            "or start the local broker with 'mqk kafka start'"
        )
    return info.bootstrap
