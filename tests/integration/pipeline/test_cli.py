"""Issue 24: ``mqk pipeline run``, ``snapshot`` and ``mqk report`` as an operator sees them in
a terminal: a line per stage, Spark's and Ivy's output in the log file only, Ctrl-C stopping
a run with one line, and what each command made named at the end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.pipeline.config import PipelineConfig
from tests.integration.pipeline import known_stream as ks
from tests.integration.pipeline.conftest import produce

pytestmark = pytest.mark.kafka
MQK = str(Path(sys.executable).parent / "mqk")
SPARK_NOISE = (":: resolving", "WARN", "log4j", "Traceback", "py4j", "at org.apache")


def test_run_shows_its_stages_keeps_spark_in_the_log_and_stops_on_ctrl_c(
    activity: PipelineConfig, tmp_path: Path
) -> None:
    produce(activity, [*ks.known_stream(), ks.pusher(10)])
    home = tmp_path / "home"
    command = [
        MQK, "pipeline", "run", "--bootstrap-servers", activity.bootstrap,
        "--namespace", activity.namespace, "--tables", activity.tables,
        "--checkpoints", activity.checkpoints, "--shuffle-partitions", "2",
        "--master", "local[2]", "--trigger", "1s",
    ]  # fmt: skip
    # its own session, so the signal goes to the whole group as a terminal's Ctrl-C does
    run = subprocess.Popen(
        command, env={**os.environ, "MQK_HOME": str(home)}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    written = Path(activity.table("minute_totals"))
    while not written.is_dir() and run.poll() is None:  # the first minutes are final
        time.sleep(0.5)
    os.killpg(run.pid, signal.SIGINT)
    out, err = run.communicate()

    assert run.returncode == 0, err
    lines = err.splitlines()
    log = home / "pipeline" / "logs" / "mqk-pipeline-stream.log"
    assert lines[0].startswith(f"Starting Spark (log: {log}) ... ")
    assert lines[1].startswith(f"Processing {activity.activity_topic}, a batch every 1s")
    assert [line for line in lines if "interrupted" in line] == [
        "mqk: interrupted: stopping (Ctrl-C again to quit at once)"
    ]
    for noise in SPARK_NOISE:
        assert noise not in out + err, noise
    assert ":: resolving dependencies" in log.read_text()  # Ivy said it there
    assert out.startswith("activity: ")
    made = {line.split(":")[0]: line.split()[-1] for line in out.splitlines()[1:]}
    assert made["minute_totals"] == str(written)
    assert made["checkpoint"] == activity.stream_checkpoint


def _mqk(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MQK, *args], capture_output=True, text=True, timeout=900, check=False,
        env={**os.environ, "MQK_HOME": str(home)},
    )  # fmt: skip


def _quiet(done: subprocess.CompletedProcess[str]) -> list[str]:
    """The stage lines of a command that succeeded, with no Spark, Ivy or py4j line among
    them and none of Python's tracebacks."""
    assert done.returncode == 0, done.stderr
    for noise in SPARK_NOISE:
        assert noise not in done.stdout + done.stderr, noise
    return done.stderr.splitlines()


@pytest.mark.timeout(1200)  # two Spark sessions of their own, as an operator starts them
def test_snapshot_only_then_report_say_what_they_made(
    kafka_bootstrap: str,
    namespace: str,
    start_service: Callable[..., Any],
    client: KafkaPubSub,
    tmp_path: Path,
) -> None:
    """Issue 24: 'snapshot' prints its id and paths; 'report' after 'snapshot --only' works
    (the issue saw a Java stack trace) and names the snapshots still to take."""
    start_service()
    assert client.register("Sport/#", queue="CLI.SUB").ok  # type: ignore[union-attr]
    home, tables = tmp_path / "home", tmp_path / "tables"
    where = [
        "--bootstrap-servers", kafka_bootstrap, "--namespace", namespace, "--tables", str(tables),
        "--master", "local[2]", "--shuffle-partitions", "2",
    ]  # fmt: skip

    snap = _mqk("pipeline", "snapshot", "--only", "subscriptions", *where, home=home)
    logs = home / "pipeline" / "logs"
    assert [line.split(" ... ")[0] for line in _quiet(snap)] == [
        f"Starting Spark (log: {logs / 'mqk-pipeline-snapshot.log'})",
        f"Snapshot of {namespace}mqk-subscriptions",
    ]
    first, *made = snap.stdout.splitlines()
    snapshot = first.removeprefix("snapshot ")
    root = tables / "snapshots" / "subscriptions"
    assert made == [f"subscriptions: 1 live key(s) -> {root}/snapshot={snapshot}"]
    assert (root / f"snapshot={snapshot}").is_dir()

    out = tmp_path / "report"
    shown = _mqk("report", *where, "--out", str(out), home=home)
    assert [line.split(" ... ")[0] for line in _quiet(shown)] == [
        f"Starting Spark (log: {logs / 'mqk-report.log'})",
        "Reading the tables and the open minutes",
        "Drawing the report",
    ]
    assert shown.stdout.splitlines()[0] == f"report: {out / 'index.html'}"
    page = (out / "index.html").read_text()
    assert f"1 subscriptions in snapshot {snapshot}" in page
    assert "No snapshot of retained, publishers yet" in page
    assert "CLI.SUB" in page  # the RegSub counted from the activity topic (not final yet)
