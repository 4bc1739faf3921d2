"""Issue 24: ``mqk pipeline run`` as an operator sees it in a terminal: a line per stage,
Spark's and Ivy's output in the log file only, Ctrl-C stopping it with one line, and the
tables it made named at the end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

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
