"""An operator's mqk against the real service: the commands of issue 24 point 2, run as the
installed `mqk` in a shell, read as a person (and a script) would read them."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.integration.service.conftest import MQK, ServiceProcess, wait_until

pytestmark = pytest.mark.kafka
CORREL = "0a0b" + "00" * 22


def runner(bootstrap: str, namespace: str) -> Callable[..., subprocess.CompletedProcess[str]]:
    env = {**os.environ, "MQK_BOOTSTRAP_SERVERS": bootstrap, "MQK_NAMESPACE": namespace}

    def mqk(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [MQK, *args], capture_output=True, text=True, env=env, timeout=120, check=False
        )

    return mqk


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


def test_an_operator_lists_reads_and_removes_what_the_broker_holds(
    kafka_bootstrap: str, namespace: str, start_service: Callable[..., ServiceProcess]
) -> None:
    start_service()
    mqk = runner(kafka_bootstrap, namespace)
    subscribe = ["subscribe", "Sport/#", "--queue", "OPS.Q", "--option", "CorrelAsId"]
    assert ok(mqk(*subscribe, "--correl-id", "0a0b", "--name", "results")).strip() == "ok"
    assert ok(mqk("publish", "Sport/Soccer", '{"home": 4, "away": 1}', "--retain")) == "ok\n"

    [listed] = json.loads(ok(mqk("sub", "list", "--json")))
    assert (listed["topic"], listed["queue"], listed["name"]) == ("Sport/#", "OPS.Q", "results")
    assert listed["correl_id"] == CORREL and listed["filter"] is None
    table = ok(mqk("sub", "list")).splitlines()  # into a pipe: one row a line
    assert table[0].split()[:3] == ["TOPIC", "QUEUE", "CORRELID"]
    assert CORREL in table[1] and "None" not in table[1]

    shown = ok(mqk("retained", "show", "Sport/Soccer"))
    assert "body (json, 22 bytes)" in shown and '"home": 4' in shown

    queues = {q["name"]: q for q in json.loads(ok(mqk("queue", "list", "--json")))}
    assert queues["OPS.Q"]["depth"] == 1 and queues["OPS.Q"]["kind"] == "local"
    assert queues["SYSTEM.BROKER.DEFAULT.STREAM"]["consumers"] == 1  # the service's worker
    assert "SYSTEM.DEAD.LETTER.QUEUE" in queues and not any("mqk-" in n for n in queues)

    browsed = ok(mqk("browse", "OPS.Q"))
    assert "<psc><Command>Publish</Command><Topic>Sport/Soccer</Topic></psc>" in browsed
    assert "MQMD CorrelId" in browsed and CORREL in browsed

    [got] = json.loads(ok(mqk("get", "OPS.Q", "--json")))
    assert json.loads(got["body"]["text"]) == {"home": 4, "away": 1}
    assert got["md"]["CorrelId"] == CORREL

    def depth() -> int:
        return int(json.loads(ok(mqk("queue", "show", "OPS.Q", "--json")))["depth"])

    assert wait_until(lambda: depth() == 0, 30)

    assert ok(mqk("put", "OPS.Q", "by hand")).startswith("put 7 bytes to OPS.Q")
    again = mqk("get", "OPS.Q", "--wait", "5")
    assert "body (text, 7 bytes)\nby hand" in ok(again)
    empty = mqk("get", "OPS.Q")
    assert empty.returncode == 5 and "0 message(s) got: queue OPS.Q is empty" in empty.stderr

    assert ok(mqk("sub", "delete", "results")).strip() == "Sport/# -> OPS.Q: ok"
    gone = mqk("sub", "show", "results")
    assert gone.returncode == 4 and "no subscription matches" in gone.stderr
    assert ok(mqk("retained", "delete", "Sport/Soccer")) == "ok\n"
    assert mqk("retained", "show", "Sport/Soccer").returncode == 4


def test_a_closed_pipe_ends_quietly_and_no_service_is_said_at_once(
    kafka_bootstrap: str, namespace: str, tmp_path: Path
) -> None:
    env = {**os.environ, "MQK_BOOTSTRAP_SERVERS": kafka_bootstrap, "MQK_NAMESPACE": namespace}
    closed = subprocess.run(
        f"'{MQK}' queue list | true; '{MQK}' kafka status | head -0",
        shell=True, capture_output=True, text=True, env={**env, "MQK_HOME": str(tmp_path)},
        timeout=120, check=False,
    )  # fmt: skip
    assert "Traceback" not in closed.stderr and "BrokenPipe" not in closed.stderr

    alone = runner(kafka_bootstrap, namespace)("publish", "Sport/Soccer", "1-0")
    assert alone.returncode == 2 and alone.stdout == ""
    [line] = alone.stderr.splitlines()
    assert "no broker service is running" in line and "'mqk run'" in line
    assert f"mqk serve --bootstrap-servers {kafka_bootstrap} --namespace {namespace}" in line
