"""``mqk serve``: the broker service in the foreground until SIGTERM/SIGINT (wire contract §4)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from mqkafka.cli import logs
from mqkafka.cli.common import UserError, add_bootstrap, client_of
from mqkafka.engine.authority import AclError
from mqkafka.identity.keys import IdentityError, load_keys
from mqkafka.kafka.clients import KafkaException
from mqkafka.kafka.failures import said
from mqkafka.kafka.provision import CatalogueError, load_catalogue
from mqkafka.mq.commands import DEFAULT_STREAM
from mqkafka.service.aclfile import load_acl_policy


def register(sub: Any) -> None:
    serve = sub.add_parser("serve", help="run the pub/sub broker service until SIGTERM")
    add_bootstrap(serve)
    serve.add_argument(
        "--qmgr", default=os.environ.get("MQK_QMGR", "QM1"), help="queue manager name"
    )
    serve.add_argument(
        "--instance-id",
        default=os.environ.get("MQK_INSTANCE_ID", "1"),
        help="this worker's name; give each concurrent worker its own (default 1)",
    )
    serve.add_argument(
        "--stream",
        action="append",
        default=[],
        metavar="QUEUE",
        help=f"a stream queue besides {DEFAULT_STREAM} (repeatable)",
    )
    serve.add_argument("--state-dir", type=Path, help="RocksDB state directory ($MQK_HOME/state)")
    port = os.environ.get("MQK_METRICS_PORT")
    serve.add_argument(
        "--metrics-port",
        type=int,
        default=int(port) if port else None,
        help="serve Prometheus metrics on this port ($MQK_METRICS_PORT)",
    )
    serve.add_argument(
        "--metrics-host",
        default=os.environ.get("MQK_METRICS_HOST", "127.0.0.1"),
        help="address the metrics port binds (0.0.0.0 in a container; $MQK_METRICS_HOST)",
    )
    serve.add_argument(
        "--no-create-topics",
        action="store_true",
        help="never create the system topics: name the missing ones and exit 2 (for clusters "
        "where the service may not create topics; run 'mqk topics apply' as an admin first)",
    )
    serve.add_argument("--acl", type=Path, help="authority rules file (default: allow all)")
    serve.add_argument(
        "--identity",
        choices=("off", "hmac"),
        default=os.environ.get("MQK_IDENTITY", "off"),
        help="off (default): the UserIdentifier header is believed as written; hmac: every "
        "command and publication must be signed by its sender's key ($MQK_IDENTITY)",
    )
    serve.add_argument(
        "--runtime",
        choices=("loop", "faust"),
        default=os.environ.get("MQK_RUNTIME", "loop"),
        help="loop (default): the confluent-kafka transactional loop; faust: the same service "
        "run by a Faust agent, exactly once with mqkafka.faust's correction ($MQK_RUNTIME)",
    )
    serve.add_argument(
        "--identity-keys",
        type=Path,
        default=os.environ.get("MQK_IDENTITY_KEYS"),
        help="every user's identity key, one 'USER KEY' line each ($MQK_IDENTITY_KEYS)",
    )
    serve.add_argument(
        "--identity-window",
        type=float,
        default=300.0,
        help="seconds a signature is good for either side of this clock (default 300)",
    )
    serve.add_argument(
        "--no-auto-create",
        action="store_true",
        help="do not create subscriber/reply queues that do not exist (dead-letter instead)",
    )
    serve.add_argument(
        "--no-activity", action="store_true", help="do not write activity events to mqk-activity"
    )
    serve.add_argument(
        "--in-memory-state", action="store_true", help="keep state in memory only (no RocksDB)"
    )
    serve.add_argument("--log-level", default="INFO")
    serve.set_defaults(func=run_serve)

    health = sub.add_parser(
        "health", help="exit 0 when the service on this machine serves (a container HEALTHCHECK)"
    )
    health.add_argument(
        "--metrics-port", type=int, default=int(os.environ.get("MQK_METRICS_PORT", "9464"))
    )
    health.set_defaults(func=run_health)

    workers = sub.add_parser(
        "workers", help="the service's workers and the partitions each one holds"
    )
    workers.add_argument("--json", action="store_true", help="JSON for scripts")
    add_bootstrap(workers)
    workers.set_defaults(func=run_workers)


def run_workers(args: argparse.Namespace) -> int:
    """Who serves this namespace: each worker (its client id names its instance, host and
    pid) and what it holds of the control queue and the streams."""
    from mqkafka.cli.output import Column, note, plain, print_json, print_table
    from mqkafka.query.service import service_state

    state = service_state(client_of(args), args.namespace)
    if args.json:
        print_json(plain(state))
        return 0
    if not state.running:  # a listing that found none, as mqk queue list on no queue
        note(f"no worker in consumer group {state.group} ({state.state})")
        return 0
    columns = (Column("WORKER", wrap=True), Column("HOST"), Column("PARTITIONS", wrap=True))
    print_table(columns, [(w.client_id, w.host, " ".join(w.partitions)) for w in state.workers])
    return 0


def run_health(args: argparse.Namespace) -> int:
    """Asks the service's metrics endpoint whether ``mqk_ready`` is 1."""
    import urllib.error
    import urllib.request

    url = f"http://127.0.0.1:{args.metrics_port}/metrics"
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            text = answer.read().decode()
    except (OSError, urllib.error.URLError) as error:
        raise UserError(f"no broker service answers at {url}: {error}") from None
    if "\nmqk_ready 1.0" not in "\n" + text:
        raise UserError("the broker service is not ready (starting, stopping or catching up)")
    print("ready")
    return 0


def run_serve(args: argparse.Namespace) -> int:
    from mqkafka.service.app import ServiceError, serve_until_signalled
    from mqkafka.service.config import ServiceConfig

    try:  # the operator's files, read before Kafka is asked anything: one line, exit 2
        load_catalogue()
        if args.acl is not None:
            load_acl_policy(args.acl)
        if args.identity == "hmac":
            if args.identity_keys is None:
                raise UserError("--identity hmac needs --identity-keys FILE")
            load_keys(args.identity_keys)
    except (AclError, CatalogueError, IdentityError) as error:
        raise UserError(str(error)) from None
    logs.setup(args.log_level)
    options: dict[str, Any] = {}
    if args.state_dir is not None:
        options["state_dir"] = args.state_dir
    client = client_of(args)
    config = ServiceConfig(
        bootstrap=client.bootstrap,
        kafka_settings=client.settings,
        create_topics=not args.no_create_topics,
        metrics_host=args.metrics_host,
        namespace=args.namespace,
        qmgr_name=args.qmgr,
        instance_id=args.instance_id,
        streams=tuple(dict.fromkeys([DEFAULT_STREAM, *args.stream])),
        auto_create_queues=not args.no_auto_create,
        metrics_port=args.metrics_port,
        acl_file=args.acl,
        identity=args.identity,
        identity_keys=Path(args.identity_keys) if args.identity_keys else None,
        identity_window=args.identity_window,
        in_memory_state=args.in_memory_state,
        activity=not args.no_activity,
        **options,
    )
    try:
        if args.runtime == "faust":
            from mqkafka.faust.brokerrun import serve_until_stopped

            serve_until_stopped(config)
        else:
            serve_until_signalled(config)
    except ServiceError as error:
        raise UserError(f"the broker service cannot start: {error}") from None
    except KafkaException as error:  # what retrying cannot cure: fenced, credentials refused
        raise UserError(f"the broker service stopped: {said(error)}", exit_code=3) from None
    return 0
