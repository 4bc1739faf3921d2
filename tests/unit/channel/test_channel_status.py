"""``mqk listen --status``: each listener's connections in a file under $MQK_HOME/listen/,
read back as written (counters, namespace and Kafka included), its namespace's alone shown."""

from __future__ import annotations

import dataclasses
import json
import socket
from pathlib import Path

import pytest

from mqkafka.channel.counters import ChannelCounters
from mqkafka.channel.server import ConnectionInfo
from mqkafka.channel.status import status_body, status_dir, write_status
from mqkafka.cli import build_parser
from mqkafka.query.listeners import (
    ListenerView,
    format_listeners,
    is_running,
    listener_view,
    of_namespace,
    running_listeners,
)

COUNTED = ChannelCounters(calls=9, puts=3, gets=2, bytes_sent=1234, bytes_received=5678,
                          last_verb="MQGET", last_time=1040.5)  # fmt: skip
JAVA = ConnectionInfo(3, "127.0.0.1:50123", "DEV.APP.SVRCONN", "app", "JmsCheck", since=1000.0,
                      counters=COUNTED)  # fmt: skip


def test_a_listener_s_connections_are_read_back_and_shown(tmp_path: Path) -> None:
    write_status(status_dir(tmp_path) / "1414.json", "QM1", "127.0.0.1:1414", [JAVA],
                 namespace="prod.", bootstrap="kafka:19092")  # fmt: skip
    (status,) = running_listeners(tmp_path)
    lines = format_listeners([status], now=1042.0)
    assert lines[0].startswith(
        "127.0.0.1:1414 (queue manager QM1, namespace prod., Kafka kafka:19092, pid "
    )
    assert lines[0].endswith(": 1 connection")
    assert lines[1].split() == [
        "#3", "channel", "DEV.APP.SVRCONN", "user", "app", "application", "JmsCheck",
        "from", "127.0.0.1:50123", "42", "s",
    ]  # fmt: skip
    assert lines[2].split() == [
        "calls", "9", "put", "3", "got", "2", "bytes", "sent", "1234", "received", "5678",
        "last", "MQGET", "1", "s", "ago",
    ]  # fmt: skip


ROUND_TRIPS = [
    # (what the listener writes: namespace, bootstrap, its connections)
    ("", "", []),
    ("prod.", "kafka:19092", [JAVA]),
    ("", "127.0.0.1:9092", [ConnectionInfo(1, "[::1]:6000", since=5.0)]),  # before MQCONN
    ("t.", "a:1,b:2", [JAVA, dataclasses.replace(JAVA, number=4, user="", appl="",
                                                  counters=ChannelCounters(calls=1))]),
]  # fmt: skip


@pytest.mark.parametrize(("namespace", "bootstrap", "infos"), ROUND_TRIPS)
def test_the_status_file_reads_back_as_written(
    tmp_path: Path, namespace: str, bootstrap: str, infos: list[ConnectionInfo]
) -> None:
    write_status(status_dir(tmp_path) / "1414.json", "QM9", "0.0.0.0:1414", infos,
                 namespace=namespace, bootstrap=bootstrap)  # fmt: skip
    (view,) = running_listeners(tmp_path)
    assert (view.qmgr, view.address, view.namespace, view.bootstrap, view.host) == (
        "QM9",
        "0.0.0.0:1414",
        namespace,
        bootstrap,
        socket.gethostname(),
    )
    assert len(view.connections) == len(infos)
    for read, info in zip(view.connections, infos, strict=True):
        written = {name: getattr(info, name) for name in ("number", "peer", "channel", "user",
                                                          "appl", "since")}  # fmt: skip
        assert {name: getattr(read, name) for name in written} == written
        assert {name: getattr(read, name) for name in dataclasses.asdict(info.counters)} == (
            dataclasses.asdict(info.counters)
        )


def test_a_status_written_before_counters_and_namespaces_still_reads() -> None:
    body = {
        "pid": 7,
        "qmgr": "QM1",
        "address": "a:1",
        "connections": [
            {"number": 1, "peer": "h:2", "channel": "C", "user": "u", "appl": "a", "since": 1.0}
        ],
    }
    view = listener_view(body)
    assert (view.namespace, view.bootstrap, view.host) == ("", "", "")
    (conn,) = view.connections
    assert (conn.calls, conn.puts, conn.gets, conn.last_verb, conn.last_time) == (0, 0, 0, "", 0)
    assert format_listeners([view], now=3.0)[2].endswith("no call yet")


HERE = socket.gethostname()


@pytest.mark.parametrize(
    ("host", "pid_alive", "age", "running"),
    [
        ("", True, 10_000.0, True),  # an older file: its pid decides
        ("", False, 0.0, False),
        (HERE, True, 10_000.0, True),  # this host: the pid decides, not the age
        (HERE, False, 0.0, False),
        ("other", False, 89.0, True),  # another container's: fresh enough (3 x 30 s)
        ("other", True, 91.0, False),  # not rewritten for 3 refresh periods: killed
    ],
)
def test_whether_a_listener_runs(host: str, pid_alive: bool, age: float, running: bool) -> None:
    body = status_body("QM1", "a:1", [])
    pid = int(str(body["pid"])) if pid_alive else 2**22 + 12345
    view = dataclasses.replace(listener_view(body), host=host, pid=pid, written=1000.0)
    assert is_running(view, HERE, 1000.0 + age) is running


def view_of(namespace: str) -> ListenerView:
    return ListenerView("a:1", "QM1", 1, (), namespace=namespace)


@pytest.mark.parametrize(
    ("namespace", "mine", "others"),
    [("", [""], ["p.", "q."]), ("p.", ["p."], ["", "q."]), ("z.", [], ["", "p.", "q."])],
)
def test_a_namespace_s_listeners_and_the_others(
    namespace: str, mine: list[str], others: list[str]
) -> None:
    kept, rest = of_namespace([view_of(""), view_of("p."), view_of("q.")], namespace)
    assert [v.namespace for v in kept] == mine and [v.namespace for v in rest] == others
    lines = format_listeners(kept, namespace=namespace, others=rest)
    if not mine:
        assert lines[0] == "no mqk listen is running on this machine for namespace z."
    names = ", ".join(n or "(default)" for n in others)
    assert (
        lines[-1]
        == f"({len(others)} other listeners, of namespaces {names}: --namespace shows them)"
    )


@pytest.mark.parametrize(
    "content",
    [
        {"pid": 2**22 + 12345, "qmgr": "QM1", "address": "a", "connections": []},  # no process
        "not json",
    ],
)
def test_a_stopped_or_damaged_listener_is_not_shown(tmp_path: Path, content: object) -> None:
    status_dir(tmp_path).mkdir()
    text = content if isinstance(content, str) else json.dumps(content)
    (status_dir(tmp_path) / "1414.json").write_text(text)
    assert running_listeners(tmp_path) == []
    assert format_listeners([]) == ["no mqk listen is running on this machine"]


def test_mqk_listen_status_prints_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MQK_HOME", str(tmp_path))
    write_status(status_dir(tmp_path) / "1415.json", "QM1", "0.0.0.0:1415", [JAVA])
    write_status(status_dir(tmp_path) / "1416.json", "QM2", "0.0.0.0:1416", [JAVA],
                 namespace="other.")  # fmt: skip
    monkeypatch.delenv("MQK_NAMESPACE", raising=False)
    args = build_parser().parse_args(["listen", "--status"])
    assert args.func(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("0.0.0.0:1415 (queue manager QM1") and "JmsCheck" in out[1]
    assert "put 3  got 2" in out[2]
    assert out[3:] == ["(1 other listener, of namespace other.: --namespace shows them)"]
    args = build_parser().parse_args(["listen", "--status", "--namespace", "other."])
    assert args.func(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("0.0.0.0:1416 (queue manager QM2, namespace other.,")


@pytest.mark.parametrize(
    ("namespace", "line"),
    [
        (None, "no mqk listen is running on this machine"),
        ("", "no mqk listen is running on this machine for the default namespace"),
        ("z.", "no mqk listen is running on this machine for namespace z."),
    ],
)
def test_no_listener_is_said_for_the_namespace_asked(namespace: str | None, line: str) -> None:
    assert format_listeners([], namespace=namespace) == [line]
