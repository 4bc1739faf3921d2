"""The broker service on the Faust runtime, started with the arguments the service tests give
``mqk serve`` (``--bootstrap-servers``, ``--namespace``, ``--instance-id``, ``--state-dir``)."""

import argparse
import logging
import sys
from pathlib import Path

from mqkafka.faust.brokerrun import serve_until_stopped
from mqkafka.service.config import ServiceConfig


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bootstrap-servers", required=True)
    parser.add_argument("--namespace", default="")
    parser.add_argument("--instance-id", default="1")
    parser.add_argument("--state-dir", type=Path, required=True)
    args, _ = parser.parse_known_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    serve_until_stopped(
        ServiceConfig(
            bootstrap=args.bootstrap_servers,
            namespace=args.namespace,
            instance_id=args.instance_id,
            state_dir=args.state_dir,
        )
    )


if __name__ == "__main__":  # the service's children (multiprocessing) import this module
    main()
