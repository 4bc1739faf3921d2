"""The channel listeners' connections as operators read them (query/listeners.py) and the
console's Connections page: CONNAME as MQ writes it, durations, status files of listeners
that run or were killed, and the page's rows."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from mqkafka.console.app import NAV, _environment
from mqkafka.console.pages import ConsoleSettings, connections_page
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.query.listeners import conname, duration, listener_view, running_listeners

CONN = {"number": 3, "peer": "127.0.0.1:50412", "channel": "SYSTEM.DEF.SVRCONN",
        "user": "alice", "appl": "JmsCheck", "since": 1_000.0}  # fmt: skip


@pytest.mark.parametrize(
    ("peer", "expected"),
    [
        ("127.0.0.1:50412", "127.0.0.1(50412)"),
        ("::1:6000", "::1(6000)"),
        ("[::1]:6000", "::1(6000)"),
        ("unix-socket", "unix-socket"),
        ("host:", "host:"),
    ],
)
def test_conname_is_written_as_mq_writes_it(peer: str, expected: str) -> None:
    assert conname(peer) == expected


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(-3, "0 s"), (0, "0 s"), (59.9, "59 s"), (60, "1 min 00 s"), (3599, "59 min 59 s"),
     (3600, "1 h 00 min"), (86_399, "23 h 59 min"), (90_061, "1 d 01 h")],
)  # fmt: skip
def test_duration_reads_at_a_glance(seconds: float, text: str) -> None:
    assert duration(seconds) == text


def write(home: Path, port: int, pid: int, *conns: dict[str, object], **more: object) -> None:
    body = {"pid": pid, "qmgr": "QM1", "address": f"127.0.0.1:{port}", "connections": conns,
            **more}  # fmt: skip
    (home / "listen").mkdir(parents=True, exist_ok=True)
    (home / "listen" / f"{port}.json").write_text(json.dumps(body))


def gone_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(done.stdout)


def test_running_listeners_skip_killed_ones_and_unreadable_files(tmp_path: Path) -> None:
    write(tmp_path, 14140, os.getpid(), CONN, {**CONN, "number": 4, "user": "", "appl": ""})
    write(tmp_path, 1414, os.getpid())
    write(tmp_path, 1415, gone_pid(), CONN)  # killed: its file stayed
    (tmp_path / "listen" / "1416.json").write_text('{"pid": ')  # being written
    (tmp_path / "listen" / "1417.json").write_text('{"pid": 1}')  # not a status
    views = running_listeners(tmp_path)
    assert [v.address for v in views] == ["127.0.0.1:1414", "127.0.0.1:14140"]
    assert views[0].connections == ()
    first, second = views[1].connections
    assert (first.number, first.conname, first.channel, first.user, first.appl, first.since) == (
        3, "127.0.0.1(50412)", "SYSTEM.DEF.SVRCONN", "alice", "JmsCheck", 1000.0)  # fmt: skip
    assert (second.user, second.appl) == ("", "")
    assert running_listeners(tmp_path / "nothing") == []


def test_a_malformed_connection_is_not_a_listener() -> None:
    body = {"pid": 1, "qmgr": "QM1", "address": "a:1", "connections": [{"peer": "x"}]}
    with pytest.raises(KeyError):
        listener_view(body)


def render(settings: ConsoleSettings, now: float) -> str:
    request = SimpleNamespace(url=SimpleNamespace(path="/connections"), query_params={})
    return _environment().get_template("connections.html").render(
        request=request, nav=NAV, path="/connections", settings=settings, notice="",
        failed="", **connections_page(settings, now),
    )  # fmt: skip


def test_the_connections_page_shows_each_listener_and_its_connections(tmp_path: Path) -> None:
    settings = ConsoleSettings(ClientConfig("127.0.0.1:9092"), home=tmp_path)
    assert "No channel listener is running" in render(settings, 0.0)
    write(tmp_path, 1414, os.getpid(), CONN)
    write(tmp_path, 1415, os.getpid())
    page = render(settings, 1_000.0 + 125)
    assert "Listener 127.0.0.1:1414 · queue manager QM1" in page
    for text in ("SYSTEM.DEF.SVRCONN", "127.0.0.1(50412)", "alice", "JmsCheck",
                 "1970-01-01 00:16:40 UTC", "2 min 05 s", "RUNNING"):  # fmt: skip
        assert text in page
    assert "No client is connected." in page  # the second listener's
    assert '<a href="/connections" class="here">Connections</a>' in page
    assert "other namespaces" not in page


COUNTED = {**CONN, "calls": 14, "puts": 5, "gets": 4, "bytes_sent": 9876, "bytes_received": 54321,
           "last_verb": "MQGET", "last_time": 1_100.0}  # fmt: skip


def test_the_page_shows_the_counters_and_only_its_namespace_s_listeners(tmp_path: Path) -> None:
    write(tmp_path, 1414, os.getpid(), COUNTED, namespace="prod.", bootstrap="kafka:19092",
          host=socket.gethostname(), written=1_199.0)  # fmt: skip
    write(tmp_path, 1415, os.getpid(), CONN, namespace="test.")
    write(tmp_path, 1416, os.getpid(), CONN)  # no namespace
    settings = ConsoleSettings(ClientConfig("kafka:19092"), namespace="prod.", home=tmp_path)
    page = render(settings, 1_200.0)
    assert "Listener 127.0.0.1:1414 · queue manager QM1" in page
    assert f"· Kafka kafka:19092 · pid {os.getpid()} · 1 connection(s)" in page  # this host's
    assert "127.0.0.1:1415" not in page and "127.0.0.1:1416" not in page
    for cell in (
        '<td class="num calls">14</td>',
        '<td class="num puts">5</td>',
        '<td class="num gets">4</td>',
        '<td class="num sent">9876</td>',
        '<td class="num received">54321</td>',
        '<td class="last">MQGET <span class="dim">1970-01-01 00:18:20 UTC</span></td>',
    ):
        assert cell in page
    assert "2 listener(s) of other namespaces (<code>(default)</code>, <code>test.</code>)" in page
    write(tmp_path, 1417, 1, namespace="z.", host="listener-1", written=1_190.0)
    assert "pid 1 on listener-1 · 0 connection(s)" in render(
        ConsoleSettings(settings.config, namespace="z.", home=tmp_path), 1_200.0
    )  # another container's
    (tmp_path / "listen" / "1417.json").unlink()
    settings.namespace = "z."
    assert "No channel listener is running on this machine for this namespace" in render(
        settings, 1_200.0
    )
