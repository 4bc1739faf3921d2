"""``mqk listen --status``: each listener's connections in a file under $MQK_HOME/listen/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mqkafka.channel.server import ConnectionInfo
from mqkafka.channel.status import status_dir, write_status
from mqkafka.cli import build_parser
from mqkafka.query.listeners import format_listeners, running_listeners

JAVA = ConnectionInfo(3, "127.0.0.1:50123", "DEV.APP.SVRCONN", "app", "JmsCheck", since=1000.0)


def test_a_listener_s_connections_are_read_back_and_shown(tmp_path: Path) -> None:
    write_status(status_dir(tmp_path) / "1414.json", "QM1", "127.0.0.1:1414", [JAVA])
    (status,) = running_listeners(tmp_path)
    lines = format_listeners([status], now=1042.0)
    assert lines[0].startswith("127.0.0.1:1414 (queue manager QM1, pid ")
    assert lines[0].endswith(": 1 connection")
    assert lines[1].split() == [
        "#3", "channel", "DEV.APP.SVRCONN", "user", "app", "application", "JmsCheck",
        "from", "127.0.0.1:50123", "42", "s",
    ]  # fmt: skip


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
    args = build_parser().parse_args(["listen", "--status"])
    assert args.func(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("0.0.0.0:1415 (queue manager QM1") and "JmsCheck" in out[1]
