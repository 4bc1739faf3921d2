"""``mqk pipeline run|snapshot|diff|packages`` and ``mqk report``: the Spark data pipeline.

The same handlers serve the ``pipeline/*.py`` entry scripts for ``spark-submit``; the only
difference is the master: ``local[*]`` here unless ``--master`` says otherwise, the cluster
manager's under spark-submit (``submit_main``).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from mqkafka.cli.common import UserError, add_bootstrap, client_of
from mqkafka.mq.errors import MQError

LOCAL: str = "local[*]"
SNAPSHOT_NAMES = ("retained", "subscriptions", "publishers")  # as snapshot_job.SNAPSHOTS


def _add_locations(parser: argparse.ArgumentParser) -> None:
    from mqkafka.pipeline.config import default_home

    add_bootstrap(parser)
    home = default_home()
    parser.add_argument("--tables", default=str(home / "tables"),
                        help=f"root of the Parquet tables (default {home / 'tables'})")  # fmt: skip
    parser.add_argument("--checkpoints", default=str(home / "checkpoints"),
                        help=f"streaming checkpoints (default {home / 'checkpoints'})")  # fmt: skip


def _add_spark(parser: argparse.ArgumentParser, master: str | None) -> None:
    parser.add_argument("--master", default=master,
                        help=f"Spark master (default {master or 'from spark-submit'})")  # fmt: skip
    parser.add_argument("--shuffle-partitions", type=int, default=4,
                        help="shuffle partitions (fixed by the first run)")  # fmt: skip
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="extra Spark configuration (repeatable)")  # fmt: skip


def _run_parser(parser: argparse.ArgumentParser, master: str | None) -> None:
    _add_locations(parser)
    _add_spark(parser, master)
    parser.add_argument("--once", action="store_true",
                        help="process what the topic holds now, then stop")  # fmt: skip
    parser.add_argument("--watermark", default="2m",
                        help="how late an event may be and still count (default 2m)")  # fmt: skip
    parser.add_argument("--trigger", default="10s", help="micro-batch interval (default 10s)")
    parser.add_argument("--max-events-per-batch", type=int, default=500_000)
    parser.add_argument("--state-store", choices=("rocksdb", "hdfs"), default="rocksdb")


def _snapshot_parser(parser: argparse.ArgumentParser, master: str | None) -> None:
    _add_locations(parser)
    _add_spark(parser, master)
    parser.add_argument("--at", help="ISO time: only records written by then (default: now)")
    parser.add_argument("--only", action="append", choices=SNAPSHOT_NAMES,
                        help="snapshot only this state topic (repeatable)")  # fmt: skip


def _report_parser(parser: argparse.ArgumentParser, master: str | None) -> None:
    _add_locations(parser)
    _add_spark(parser, master)
    parser.add_argument("--out", type=Path, help="output directory (default <tables>/../report)")


def register(sub: Any) -> None:
    pipeline = sub.add_parser("pipeline", help="the Spark jobs: aggregates and snapshots")
    actions = pipeline.add_subparsers(dest="action", required=True, metavar="ACTION")
    run = actions.add_parser("run", help="the streaming job: mqk-activity -> per-minute tables")
    _run_parser(run, LOCAL)
    run.set_defaults(func=run_cmd)
    snap = actions.add_parser("snapshot", help="the state topics -> Parquet snapshots")
    _snapshot_parser(snap, LOCAL)
    snap.set_defaults(func=snapshot_cmd)
    diff = actions.add_parser("diff", help="keys added, removed, changed between two snapshots")
    diff.add_argument("name", choices=SNAPSHOT_NAMES)
    diff.add_argument("old", help="snapshot id (see the snapshot=... directories)")
    diff.add_argument("new")
    _add_locations(diff)
    _add_spark(diff, LOCAL)
    diff.set_defaults(func=diff_cmd)
    pkgs = actions.add_parser(
        "packages", help="print the spark-submit arguments for the connectors"
    )
    pkgs.set_defaults(func=packages_cmd)
    report = sub.add_parser("report", help="HTML report with charts from the pipeline's tables")
    _report_parser(report, LOCAL)
    report.set_defaults(func=report_cmd)


# --------------------------------------------------------------------------------------------


def _config(args: argparse.Namespace, **extra: Any) -> Any:
    from mqkafka.pipeline.config import PipelineConfig

    try:
        return PipelineConfig(
            bootstrap=(client := client_of(args, check=False)).bootstrap,
            kafka_settings=client.settings,
            namespace=args.namespace,
            tables=args.tables,
            checkpoints=args.checkpoints,
            shuffle_partitions=args.shuffle_partitions,
            **extra,
        )
    except MQError as error:
        raise UserError(error.detail) from None


def _session(args: argparse.Namespace, name: str, state_store: str = "rocksdb") -> Any:
    from mqkafka.pipeline.session import build_session

    extra = {}
    for item in args.conf:
        key, sep, value = item.partition("=")
        if not sep:
            raise UserError(f"--conf {item!r}: expected KEY=VALUE")
        extra[key] = value
    return build_session(
        name, master=args.master, shuffle_partitions=args.shuffle_partitions,
        state_store=state_store, extra=extra,
    )  # fmt: skip


def run_cmd(args: argparse.Namespace) -> int:
    from mqkafka.pipeline import stream_job
    from mqkafka.pipeline.durations import parse_seconds

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    try:
        config = _config(
            args,
            watermark_s=parse_seconds(args.watermark),
            trigger_s=parse_seconds(args.trigger),
            max_events_per_batch=args.max_events_per_batch,
            state_store=args.state_store,
        )
    except MQError as error:
        raise UserError(error.detail) from None
    spark = _session(args, "mqk-pipeline-stream", config.state_store)
    try:
        summary = stream_job.run(spark, config, once=args.once)
    finally:
        spark.stop()
    print(f"activity: {summary.describe()}")
    print(f"tables: {config.tables}")
    return 0


def snapshot_cmd(args: argparse.Namespace) -> int:
    from mqkafka.pipeline import snapshot_job

    config = _config(args)
    try:
        at = datetime.fromisoformat(args.at) if args.at else None
    except ValueError:
        raise UserError(f"--at {args.at!r}: not an ISO date and time") from None
    spark = _session(args, "mqk-pipeline-snapshot")
    try:
        counts = snapshot_job.take(spark, config, tuple(args.only or snapshot_job.SNAPSHOTS), at)
    finally:
        spark.stop()
    for name, count in counts.items():
        print(f"{name}: {count} live key(s) -> {snapshot_job.snapshot_path(config, name)}")
    return 0


def diff_cmd(args: argparse.Namespace) -> int:
    from mqkafka.pipeline import snapshot_job

    config = _config(args)
    for snapshot in (args.old, args.new):
        _check_snapshot(snapshot_job.snapshot_path(config, args.name), snapshot)
    spark = _session(args, "mqk-pipeline-diff")
    try:
        changes = snapshot_job.diff(spark, config, args.name, args.old, args.new)
        rows = changes.orderBy("change", "key").collect()
    finally:
        spark.stop()
    for row in rows:
        print(f"{row['change']:8} {row['key'].replace(chr(0), ' | ')}")
    print(f"{len(rows)} change(s)", file=sys.stderr)
    return 0


def _check_snapshot(root: str, snapshot: str) -> None:
    """A snapshot id that is not there would read as an empty snapshot (every key "added" or
    "removed"): refuse it, naming those there are. Local tables only; a cluster's file
    system (``s3a://``, ``hdfs://``) is Spark's to read."""
    if "://" in root:
        return
    if not (Path(root) / f"snapshot={snapshot}").is_dir():
        there = sorted(p.name.partition("=")[2] for p in Path(root).glob("snapshot=*"))
        raise UserError(
            f"no snapshot {snapshot!r} in {root}; there are: {', '.join(there) or 'none'}"
        )


def packages_cmd(args: argparse.Namespace) -> int:
    from mqkafka.pipeline import packages

    version = packages.installed_spark_version()
    print(" ".join(packages.submit_arguments(version, packages.default_ivy_home())))
    return 0


def report_cmd(args: argparse.Namespace) -> int:
    from mqkafka.pipeline import report

    config = _config(args)
    out = args.out or Path(config.tables).parent / "report"
    spark = _session(args, "mqk-report")
    try:
        data = report.load(spark, config)
    finally:
        spark.stop()
    index = report.render(data, out)
    print(f"report: {index}")
    return 0


# --------------------------------------------------------------------------------------------

_SUBMIT = {
    "run": (_run_parser, run_cmd),
    "snapshot": (_snapshot_parser, snapshot_cmd),
    "report": (_report_parser, report_cmd),
}


def submit_main(job: str, argv: Sequence[str]) -> int:
    """Entry of ``pipeline/<job>.py`` under spark-submit: the master is spark-submit's."""
    build, handler = _SUBMIT[job]
    parser = argparse.ArgumentParser(prog=f"spark-submit pipeline/{job}.py")
    build(parser, None)
    args = parser.parse_args(argv)
    try:
        return handler(args)
    except UserError as error:
        print(f"mqk: {error}", file=sys.stderr)
        return 2
