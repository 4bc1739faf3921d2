"""``mqk listen``: the MQ client channel listener in the foreground until SIGTERM/SIGINT.

IBM's MQ clients (the MQ classes for Java, JMS in migration mode) connect to it as to a
queue manager's listener (any SVRCONN channel name) and reach the same queues as the Python
MQI. Each connection ends with a quiescing STATUS on a stop. ``mqk listen --status`` shows
the connections of the listeners of its namespace running on this machine (channel, user,
application, address, and their counters), from the status each keeps under
``$MQK_HOME/listen/``.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
from pathlib import Path
from types import FrameType
from typing import Any

from mqkafka.channel.server import ConnectionInfo, Listener
from mqkafka.channel.settings import (
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_MESSAGE,
    DEFAULT_PORT,
    ListenerSettings,
)
from mqkafka.channel.status import status_dir, write_status
from mqkafka.channel.systemqueues import define_missing
from mqkafka.channel.tls import TlsSettings, TlsSetupError, server_context
from mqkafka.cli import logs
from mqkafka.cli.common import UserError, add_bootstrap, client_of
from mqkafka.identity.keys import IdentityError, load_own_key
from mqkafka.kafka.clientconfig import IDENTITY_SETTING
from mqkafka.kafka.localbroker import default_home
from mqkafka.query.listeners import format_listeners, of_namespace, running_listeners

log = logging.getLogger(__name__)


def register(sub: Any) -> None:
    listen = sub.add_parser(
        "listen", help="serve IBM MQ client applications (MQ classes for Java, JMS) over TCP"
    )
    add_bootstrap(listen)
    listen.add_argument(
        "--host",
        default=os.environ.get("MQK_LISTEN_HOST", "127.0.0.1"),
        help="address to bind (default 127.0.0.1: this machine only; $MQK_LISTEN_HOST)",
    )
    listen.add_argument(
        "--port",
        type=int,
        default=int(os.environ.get("MQK_LISTEN_PORT", DEFAULT_PORT)),
        help=f"TCP port (default {DEFAULT_PORT}, $MQK_LISTEN_PORT)",
    )
    listen.add_argument(
        "--qmgr",
        default=os.environ.get("MQK_QMGR", "QM1"),
        help="the queue manager name clients connect to; another is 2058 (default QM1, $MQK_QMGR)",
    )
    listen.add_argument(
        "--max-connections",
        type=int,
        default=DEFAULT_MAX_CONNECTIONS,
        help=f"client connections served at once (default {DEFAULT_MAX_CONNECTIONS})",
    )
    listen.add_argument(
        "--max-message",
        type=int,
        default=DEFAULT_MAX_MESSAGE,
        help=f"largest message in bytes (default {DEFAULT_MAX_MESSAGE})",
    )
    listen.add_argument(
        "--dev-queues",
        action="store_true",
        help="define the IBM MQ developer container's DEV.QUEUE.1-3 and DEV.DEAD.LETTER.QUEUE",
    )
    listen.add_argument(
        "--sharecnv",
        action="append",
        default=[],
        metavar="CHANNEL=N",
        help="conversations per socket of a SVRCONN channel (others: 0, plain TSH framing, "
        "which JMS migration mode wants); 1: TSHM framing, one conversation a socket "
        "(never shared: the most is 1). Asynchronous put works on either",
    )
    listen.add_argument("--tls-cert", help="TLS: the listener's certificate (PEM)")
    listen.add_argument("--tls-key", help="TLS: its private key (PEM)")
    listen.add_argument(
        "--tls-ca",
        help="TLS: require a client certificate signed by this CA (PEM); its subject's CN "
        "becomes the connection's MQ user id, whatever the client asserts",
    )
    listen.add_argument(
        "--identity-file",
        help="the listener's own identity key (a line with set-identity; $MQK_IDENTITY_FILE): "
        "with `mqk serve --identity hmac` it signs what its connections put, each for the "
        "user id the connection established",
    )
    listen.add_argument(
        "--status",
        action="store_true",
        help="show the connections of the listeners of this namespace running on this "
        "machine (channel, user, application, address, calls, messages, bytes), and exit",
    )
    listen.add_argument("--log-level", default="INFO")
    listen.set_defaults(func=run_listen)


def run_listen(args: argparse.Namespace) -> int:
    if args.status:  # the namespace's listeners, as DISPLAY CHSTATUS shows one queue manager's
        mine, others = of_namespace(running_listeners(default_home()), args.namespace)
        for line in format_listeners(mine, namespace=args.namespace, others=others):
            print(line)
        return 0
    if args.max_connections < 1 or args.max_message < 1:
        raise UserError("--max-connections and --max-message must be at least 1")
    logs.setup(args.log_level)
    tls = _tls_of(args)  # the options' mistakes before Kafka is asked
    sharecnv = _sharecnv_of(args.sharecnv)
    if args.identity_file:
        _check_edge_key(args.identity_file)
    client = client_of(args)
    kafka_config = {k: v for k, v in client.settings.items() if k != "bootstrap.servers"}
    identity = args.identity_file or client.identity_file
    if identity:
        if not args.identity_file:
            _check_edge_key(identity)
        kafka_config[IDENTITY_SETTING] = identity  # each connection's MQI signs with it
    settings = ListenerSettings(
        bootstrap_servers=client.bootstrap,
        qmgr=args.qmgr,
        host=args.host,
        port=args.port,
        namespace=args.namespace,
        kafka_config=kafka_config,
        max_connections=args.max_connections,
        max_message=args.max_message,
        tls=tls,
        signing=bool(identity),
        sharecnv=sharecnv,
    )
    made = define_missing(settings, dev_queues=args.dev_queues)
    if made:
        log.info("channel: defined %s", ", ".join(made))
    status: list[Path] = []

    def publish(infos: list[ConnectionInfo]) -> None:
        write_status(
            status[0], settings.qmgr, f"{host}:{port}", infos,
            namespace=settings.namespace, bootstrap=settings.bootstrap_servers,
        )  # fmt: skip

    try:
        listener = Listener(settings, publish)
    except TlsSetupError as error:
        raise UserError(str(error)) from None
    try:
        host, port = listener.start()
    except OSError as error:
        raise UserError(f"cannot listen on {args.host}:{args.port}: {error.strerror}") from None
    status.append(status_dir(default_home()) / f"{port}.json")
    try:
        publish([])
    except OSError as error:  # the listener serves all the same; its connections show in logs
        log.warning("channel: status not written: %s", error)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        listener.stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        listener.serve()
    finally:
        status[0].unlink(missing_ok=True)
    return 0


def _sharecnv_of(values: list[str]) -> dict[str, int]:
    """``--sharecnv CHANNEL=N`` options as {channel: N}; N 0 or 1."""
    out: dict[str, int] = {}
    for value in values:
        channel, _, count = value.rpartition("=")
        if not channel or count not in ("0", "1"):
            raise UserError(f"--sharecnv {value}: CHANNEL=0 or CHANNEL=1 (conversations are "
                            "not shared: SHARECNV 2 and more are not offered)")  # fmt: skip
        out[channel.strip()] = int(count)
    return out


def _tls_of(args: argparse.Namespace) -> TlsSettings | None:
    if not (args.tls_cert or args.tls_key or args.tls_ca):
        return None
    if not (args.tls_cert and args.tls_key):
        raise UserError("TLS needs both --tls-cert and --tls-key")
    tls = TlsSettings(args.tls_cert, args.tls_key, args.tls_ca)
    try:
        server_context(tls)
    except TlsSetupError as error:
        raise UserError(str(error)) from None
    return tls


def _check_edge_key(path: str) -> None:
    """The listener puts for many user ids: a key without set-identity would put every
    message as the key's own user, whatever connection it came from."""
    try:
        key = load_own_key(path)
    except IdentityError as error:
        raise UserError(f"identity: {error}") from None
    if not key.set_identity:
        raise UserError(
            f"identity: {path}: the listener's key needs set-identity (it signs for the user id "
            f"of each connection; the service's ACL must give {key.user} setid over them)"
        )
    log.info("channel: signing as %s for each connection's user id", key.user)
