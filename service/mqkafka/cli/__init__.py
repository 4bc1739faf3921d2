"""``mqk``: the command line of the product.

Each group of subcommands lives in its own module and registers itself through
``register(subparsers)``; this module only assembles them and turns failures into a plain
message and a non-zero exit code.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib import metadata

from mqkafka.cli import (
    common,
    console,
    identity,
    listen,
    local,
    logs,
    mqsc,
    ops,
    output,
    pipeline,
    queues,
    schemas,
    serve,
)
from mqkafka.kafka.clients import KafkaEdgeError, KafkaException


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mqk",
        description="The IBM WebSphere MQ queued publish/subscribe broker, emulated on Kafka.",
        epilog="exit codes:\n"
        + "\n".join(f"  {code:>3}  {meaning}" for code, meaning in output.EXIT_CODES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"mqk {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (local, serve, listen, ops, queues, mqsc, console, pipeline, identity, schemas):
        module.register(sub)
    return parser


def _version() -> str:
    try:
        return metadata.version("mqkafka")
    except metadata.PackageNotFoundError:  # imported from a source tree, not installed
        return "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logs.plain_setup()
    try:
        return int(args.func(args) or 0)
    except (common.UserError, KafkaEdgeError) as error:
        print(f"mqk: {error}", file=sys.stderr)
        return getattr(error, "exit_code", 2)
    except KafkaException as error:  # most often: nothing listens at the bootstrap address
        where = getattr(args, "bootstrap_servers", None) or os.environ.get("MQK_BOOTSTRAP_SERVERS")
        print(f"mqk: Kafka at {where or 'the local broker'} failed: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as interrupt:  # Ctrl-C: one line, unless the command said it
        if not isinstance(interrupt, common.Interrupted):
            print("mqk: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `mqk ... | head -1`: the reader has what it wanted
        return output.closed_pipe()


if __name__ == "__main__":
    sys.exit(main())
