"""``mqk pipeline run|snapshot|diff|packages`` and ``mqk report``: the Spark data pipeline.

The same handlers serve the ``pipeline/*.py`` entry scripts for ``spark-submit``; the only
difference is the master: ``local[*]`` here unless ``--master`` says otherwise, the cluster
manager's under spark-submit (``submit_main``).
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqkafka.cli.common import Interrupted, UserError, add_bootstrap, client_of
from mqkafka.mq.errors import MQError

if TYPE_CHECKING:
    from mqkafka.pipeline.console import Interrupts

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


def _kafka_topics(args: argparse.Namespace, wanted: Sequence[str], *, required: bool) -> bool:
    """Kafka answers and has ``wanted``: asked before Spark starts, since Spark's Kafka source
    would retry an absent broker or topic for minutes, logging as it goes. With ``required``
    a problem is a UserError; without, it is False."""
    from mqkafka.kafka.clients import KafkaEdgeError
    from mqkafka.kafka.probe import check_cluster

    client = client_of(args, check=False)
    try:
        metadata = check_cluster(client, timeout=10.0 if required else 5.0)
    except KafkaEdgeError:
        if required:
            raise
        return False
    missing = [t for t in wanted if t not in metadata.topics]
    if missing and required:
        raise UserError(
            f"no topic {', '.join(missing)} in Kafka at {client.describe()}: the broker service "
            "creates it ('mqk run', or 'mqk topics apply' then 'mqk serve')"
        )
    return not missing


def _session(args: argparse.Namespace, name: str, state_store: str = "rocksdb") -> Any:
    """The Spark session, started with its output (and Ivy's) in the command's log file."""
    from mqkafka.pipeline.console import jvm_output_to, log_path, log_to, stage
    from mqkafka.pipeline.session import build_session

    extra = {}
    for item in args.conf:
        key, sep, value = item.partition("=")
        if not sep:
            raise UserError(f"--conf {item!r}: expected KEY=VALUE")
        extra[key] = value
    log = log_path(name)
    log_to(log)
    with stage(f"Starting Spark (log: {log})"), jvm_output_to(log):
        return build_session(
            name, master=args.master, shuffle_partitions=args.shuffle_partitions,
            state_store=state_store, extra=extra,
        )  # fmt: skip


def _spark_work(
    spark: Any, name: str, work: Callable[[Interrupts], Any], *, streaming: bool = False
) -> Any:
    """Run ``work`` with Ctrl-C handled (one line, the Spark jobs cancelled) and a Spark
    failure told in one line pointing at the log; the session is stopped in any case.

    A batch command's work is many Spark jobs one after the other: after Ctrl-C every job is
    cancelled until the work gives up, so one started between two cancels is not run through.
    The streaming job stops itself (it polls ``requested``) once its batch is cancelled."""
    from mqkafka.pipeline.console import Interrupts, log_path
    from mqkafka.pipeline.session import spark_errors

    failures = spark_errors()
    finished = threading.Event()

    def cancel() -> None:
        while not finished.is_set():
            spark.sparkContext.cancelAllJobs()
            if streaming:
                return
            finished.wait(0.5)

    interrupts = Interrupts(cancel)
    try:
        with interrupts:
            done = work(interrupts)
        if interrupts.requested and not streaming:
            raise Interrupted  # what it made is not whole: nothing to print
        return done
    except failures as error:
        if interrupts.requested:
            raise Interrupted from None
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise UserError(f"Spark failed: {first} (details in {log_path(name)})") from None
    finally:
        finished.set()
        if interrupts.stopping is not None:
            interrupts.stopping.join(10)
        log = logging.getLogger(__name__)
        log.info("stopping the Spark session")
        with suppress(*failures):  # a gateway already gone: nothing to stop
            spark.stop()
        log.info("Spark session stopped")


def _made(paths: Sequence[tuple[str, str]]) -> None:
    """What a command made: ``name: where`` lines on standard output."""
    width = max((len(name) for name, _ in paths), default=0)
    for name, where in paths:
        print(f"{name + ':':<{width + 1}} {where}")


def run_cmd(args: argparse.Namespace) -> int:
    from mqkafka.pipeline import stream_job
    from mqkafka.pipeline.console import stage
    from mqkafka.pipeline.durations import parse_seconds
    from mqkafka.pipeline.tables import TABLES

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
    _kafka_topics(args, [config.activity_topic], required=True)
    name = "mqk-pipeline-stream"
    spark = _session(args, name, config.state_store)

    def progress(last: dict[str, Any]) -> None:
        print(
            f"batch {last['batchId']}: {stream_job.rows_of(last):,} event(s) from "
            f"{last['numInputRows']:,} record(s), {last.get('processedRowsPerSecond', 0.0):,.0f}"
            " records/s",
            file=sys.stderr,
            flush=True,
        )

    def work(interrupts: Interrupts) -> stream_job.RunSummary:
        if args.once:
            with stage(f"Processing {config.activity_topic} so far"):
                return stream_job.run(
                    spark, config, once=True, stop_requested=lambda: interrupts.requested
                )
        print(
            f"Processing {config.activity_topic}, a batch every {args.trigger} "
            "(Ctrl-C stops; the next run resumes from the checkpoint)",
            file=sys.stderr,
            flush=True,
        )
        return stream_job.run(
            spark, config, once=False, on_progress=progress,
            stop_requested=lambda: interrupts.requested,
        )  # fmt: skip

    summary = _spark_work(spark, name, work, streaming=True)
    print(f"activity: {summary.describe()}")
    written = [(t, config.table(t)) for t in TABLES if Path(config.table(t)).is_dir()]
    _made([*written, ("checkpoint", config.stream_checkpoint)])
    if not any(Path(config.table(t)).is_dir() for t in TABLES) and "://" not in config.tables:
        print(
            "no minute is final yet: a minute is written once the watermark "
            f"({args.watermark}) passes its end; 'mqk report' shows the open ones meanwhile",
            file=sys.stderr,
        )
    return 0


def snapshot_cmd(args: argparse.Namespace) -> int:
    from mqkafka.pipeline import snapshot_job
    from mqkafka.pipeline.console import stage

    config = _config(args)
    try:
        at = datetime.fromisoformat(args.at) if args.at else None
    except ValueError:
        raise UserError(f"--at {args.at!r}: not an ISO date and time") from None
    if at is not None and at.tzinfo is None:
        at = at.astimezone()  # a time without a zone is the machine's local time
    names = tuple(args.only or snapshot_job.SNAPSHOTS)
    _kafka_topics(args, [config.state_topic(n) for n in names], required=True)
    taken_at = at or datetime.now(UTC)
    snapshot = snapshot_job.snapshot_id(taken_at)
    name = "mqk-pipeline-snapshot"
    spark = _session(args, name)

    def work(interrupts: Interrupts) -> dict[str, int]:
        counts = {}
        for each in names:
            if interrupts.requested:
                break
            with stage(f"Snapshot of {config.state_topic(each)}"):
                counts.update(snapshot_job.take(spark, config, (each,), taken_at))
        return counts

    counts = _spark_work(spark, name, work)
    print(f"snapshot {snapshot}")
    _made(
        [
            (each, f"{count} live key(s) -> {snapshot_job.snapshot_path(config, each)}"
                   f"/snapshot={snapshot}")
            for each, count in counts.items()
        ]
    )  # fmt: skip
    return 0


def diff_cmd(args: argparse.Namespace) -> int:
    from mqkafka.pipeline import snapshot_job
    from mqkafka.pipeline.console import stage

    config = _config(args)
    for snapshot in (args.old, args.new):
        _check_snapshot(snapshot_job.snapshot_path(config, args.name), snapshot)
    name = "mqk-pipeline-diff"
    spark = _session(args, name)

    def work(_: Interrupts) -> list[Any]:
        with stage(f"Comparing {args.name} {args.old} and {args.new}"):
            changes = snapshot_job.diff(spark, config, args.name, args.old, args.new)
            return list(changes.orderBy("change", "key").collect())

    rows = _spark_work(spark, name, work)
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
    from mqkafka.pipeline.console import stage

    config = _config(args)
    out = args.out or Path(config.tables).parent / "report"
    # without Kafka the report still draws the tables; only the open minutes are missing
    kafka = _kafka_topics(args, [config.activity_topic], required=False)
    name = "mqk-report"
    spark = _session(args, name)

    def work(_: Interrupts) -> Any:
        with stage("Reading the tables" + (" and the open minutes" if kafka else "")):
            return report.load(spark, config, kafka=kafka)

    data = _spark_work(spark, name, work)
    if not kafka:
        data = replace(
            data,
            notes=(
                *data.notes,
                f"Kafka at {config.bootstrap} did not answer or has no {config.activity_topic}:"
                " the minutes not final yet are not shown.",
            ),
        )
    with stage("Drawing the report"):
        index = report.render(data, out)
    _made([("report", str(index)), ("charts", ", ".join(f"{c}.png" for c in report.CHARTS))])
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
