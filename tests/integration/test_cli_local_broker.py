"""`mqk kafka start | status | stop` as users run them (wire contract §4)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from mqkafka.kafka.localbroker import kafka_processes

pytestmark = pytest.mark.kafka
MQK = [str(Path(sys.executable).with_name("mqk"))]  # the installed entry point


def mqk(
    home: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "MQK_HOME": str(home), **(env or {})}
    return subprocess.run(
        [*MQK, *args], capture_output=True, text=True, env=environment, timeout=240, check=False
    )


def test_start_prints_bootstrap_last_status_reports_it_and_stop_leaves_no_java(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    try:
        started = mqk(home, "kafka", "start")
        assert started.returncode == 0, started.stderr
        last = started.stdout.strip().splitlines()[-1]
        assert re.fullmatch(r"127\.0\.0\.1:\d+", last), started.stdout
        host, port = last.split(":")
        with socket.create_connection((host, int(port)), timeout=5):
            pass

        again = mqk(home, "kafka", "start")  # idempotent: the same broker, the same address
        assert again.returncode == 0 and again.stdout.strip().splitlines()[-1] == last

        status = mqk(home, "kafka", "status")
        assert status.returncode == 0 and last in status.stdout and "running" in status.stdout
        assert kafka_processes(home.resolve())
    finally:
        stopped = mqk(home, "kafka", "stop")
    assert stopped.returncode == 0, stopped.stderr
    assert kafka_processes(home.resolve()) == []
    after = mqk(home, "kafka", "status")
    assert after.returncode == 3 and "not running" in after.stdout


def test_a_port_in_use_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = mqk(tmp_path / "home", "kafka", "start", "--port", str(port))
    assert result.returncode == 2
    assert f"port {port}" in result.stderr and "already in use" in result.stderr


def test_missing_java_is_named_in_the_message(tmp_path: Path) -> None:
    result = mqk(tmp_path / "home", "kafka", "start", env={"PATH": str(tmp_path)})
    assert result.returncode == 2
    assert "'java' was not found" in result.stderr


def test_a_broker_that_fails_to_start_reports_the_tail_of_its_log(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    # Storage formatted for another node: the broker refuses it and exits during start-up.
    (home / "data" / "meta.properties").write_text(
        "version=1\ncluster.id=AAAAAAAAAAAAAAAAAAAAAA\nnode.id=99\n"
        "directory.id=AAAAAAAAAAAAAAAAAAAAAA\n"
    )
    result = mqk(home, "kafka", "start", "--timeout", "60")
    assert result.returncode == 2
    assert "tail of" in result.stderr and "kafka.log" in result.stderr
    assert kafka_processes(home.resolve()) == []


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _ready_lines(home: Path) -> int:
    return (home / "serve.log").read_text(errors="replace").count("broker ready")


def _run(home: Path, metrics_port: int, developer_queues: str) -> dict[str, str]:
    """``mqk run``; the environment its next steps export."""
    started = mqk(home, "run", "--metrics-port", str(metrics_port))
    assert started.returncode == 0, started.stdout + started.stderr
    assert f"as IBM MQ's developer container has them: {developer_queues}\n" in started.stdout
    exports = re.search(r"export MQK_BOOTSTRAP_SERVERS=(\S+) MQK_HOME=(\S+)", started.stdout)
    assert exports is not None, started.stdout
    return {"MQK_BOOTSTRAP_SERVERS": exports.group(1), "MQK_HOME": exports.group(2)}


def test_run_starts_the_stack_its_next_steps_work_and_stop_ends_it(tmp_path: Path) -> None:
    home = (tmp_path / "home").resolve()
    metrics_port = _free_port()
    try:
        made = "DEV.QUEUE.1, DEV.QUEUE.2, DEV.QUEUE.3, DEV.DEAD.LETTER.QUEUE, DEV.APP.MODEL.QUEUE"
        env = _run(home, metrics_port, made)
        assert env["MQK_HOME"] == str(home)  # without it `mqk stop` would look in ~/.mqk
        queues = mqk(home, "queue", "list", env=env)
        assert "DEV.QUEUE.1" in queues.stdout and "DEV.DEAD.LETTER.QUEUE" in queues.stdout
        assert _ready_lines(home) == 1
        subscribed = mqk(home, "subscribe", "Sport/#", "--queue", "MY.QUEUE", env=env)
        assert subscribed.returncode == 0, subscribed.stderr
        assert "broker service stopped" in mqk(home, "stop").stdout

        first = env
        env = _run(home, metrics_port, "already defined")  # again, serve.log kept
        assert env == first  # the same address: what the user exported still holds
        assert _ready_lines(home) == 2  # it waited for this start's service, not the line before
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as r:
            metrics = r.read().decode()
        assert "\nmqk_subscriptions 1.0\n" in metrics  # what the state holds, from the start
        listed = mqk(home, "sub", "list", env=env)  # the subscription outlived the restart
        assert "Sport/#" in listed.stdout and "MY.QUEUE" in listed.stdout, listed.stdout
    finally:
        stopped = mqk(home, "stop")
    assert stopped.returncode == 0 and "Kafka stopped" in stopped.stdout, stopped.stdout
    assert kafka_processes(home) == []
    assert not (home / "serve.pid").exists()


def test_run_with_its_metrics_port_taken_fails_and_says_so(tmp_path: Path) -> None:
    home = (tmp_path / "home").resolve()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        try:
            started = mqk(home, "run", "--metrics-port", str(port))
        finally:
            stopped = mqk(home, "stop")
    assert started.returncode == 2, started.stdout + started.stderr
    assert f"metrics port {port}: Address already in use" in started.stderr, started.stderr
    assert stopped.returncode == 0 and kafka_processes(home) == []
