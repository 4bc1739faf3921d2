"""``mqk console``: the web console in the foreground until Ctrl-C (uvicorn serves it)."""

from __future__ import annotations

import argparse
import os
import secrets
from typing import Any

from mqkafka.cli.common import UserError, add_bootstrap, client_of


def register(sub: Any) -> None:
    console = sub.add_parser(
        "console", help="the web console: topics, subscriptions, queues, rates, dead letters"
    )
    console.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    console.add_argument("--port", type=int, default=9480, help="port to serve on (9480)")
    port = os.environ.get("MQK_METRICS_PORT", "9464")
    console.add_argument(
        "--metrics-url",
        default=f"http://127.0.0.1:{port}/metrics",
        help="the broker service's Prometheus endpoint, for the live rates "
        f"(http://127.0.0.1:{port}/metrics; $MQK_METRICS_PORT)",
    )
    console.add_argument(
        "--allow-actions",
        action="store_true",
        help="offer re-putting dead letters and deleting subscriptions (read-only without)",
    )
    console.add_argument("--qmgr", default=os.environ.get("MQK_QMGR", "QM1"))
    console.add_argument(
        "--interval", type=float, default=2.0, help="seconds between live samples (2)"
    )
    add_bootstrap(console)
    console.set_defaults(func=run_console)


def run_console(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from mqkafka.console.app import create_app
        from mqkafka.console.pages import ConsoleSettings
    except ImportError as error:
        raise UserError(f"the console needs {error.name}: pip install 'mqkafka[console]'") from None
    settings = ConsoleSettings(
        client_of(args), namespace=args.namespace, metrics_url=args.metrics_url,
        allow_actions=args.allow_actions, qmgr=args.qmgr, interval=args.interval,
        token=secrets.token_urlsafe(16),
    )  # fmt: skip
    mode = "actions allowed" if args.allow_actions else "read-only"
    print(f"mqk console at http://{args.host}:{args.port}/ ({mode}); Ctrl-C stops it", flush=True)
    try:
        uvicorn.run(
            create_app(settings), host=args.host, port=args.port, log_level="warning",
            timeout_graceful_shutdown=2,
        )  # fmt: skip
    except SystemExit as stop:  # uvicorn exits 1 when it cannot bind
        if stop.code:
            raise UserError(f"cannot serve on {args.host}:{args.port} (in use?)") from None
    return 0
