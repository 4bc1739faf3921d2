"""The console's Connections page over a running ``mqk listen`` on the test Kafka: MQ client
connections appear as DISPLAY CHSTATUS shows them (channel, CONNAME, user id, application,
MQI calls, messages put and got, bytes each way, the last call), one that ends disappears, a
stopped listener is gone; read over HTTP and seen in a browser (a screenshot a person looks
at)."""

from __future__ import annotations

import os
import re
import subprocess
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from mqkafka.kafka.provision import apply_catalogue
from mqkafka.mqi import CMQC as C
from tests.integration.channel.conftest import ListenerProcess
from tests.integration.channel.rawclient import RawClient
from tests.integration.console.conftest import free_port
from tests.integration.service.conftest import MQK, wait_until

pytestmark = pytest.mark.kafka


@dataclass
class Console:
    url: str
    listener: ListenerProcess
    screenshots: Path

    def page(self) -> str:
        with urllib.request.urlopen(self.url + "/connections", timeout=10) as answer:
            assert answer.status == 200
            return str(answer.read().decode())


@pytest.fixture(scope="module")
def console(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    """A listener and a console sharing one ``MQK_HOME`` (the listener's status files), and
    no broker service: the page needs neither the service nor its metrics."""
    namespace = f"l{uuid.uuid4().hex[:8]}."
    apply_catalogue(kafka_bootstrap, prefix=namespace)
    home = tmp_path_factory.mktemp("connections")
    env = {**os.environ, "MQK_HOME": str(home), "MQK_BOOTSTRAP_SERVERS": kafka_bootstrap,
           "MQK_NAMESPACE": namespace}  # fmt: skip
    port = free_port()
    log = home / "console.log"
    with log.open("w") as out:
        proc = subprocess.Popen([MQK, "console", "--port", str(port)], env=env, stdout=out,
                                stderr=subprocess.STDOUT, text=True)  # fmt: skip
    listener = ListenerProcess(kafka_bootstrap, namespace, home=home)
    screenshots = Path(os.environ.get("MQK_SCREENSHOTS", home / "screenshots"))
    screenshots.mkdir(parents=True, exist_ok=True)
    made = Console(f"http://127.0.0.1:{port}", listener, screenshots)
    try:
        assert wait_until(lambda: _answers(made), 60), f"no console: {log.read_text()}"
        yield made
    finally:
        if listener.proc.poll() is None:
            listener.stop()
        proc.terminate()
        proc.wait(30)
    assert "Traceback" not in log.read_text() and "ERROR" not in log.read_text(), log.read_text()


def _answers(console: Console) -> bool:
    try:
        return "Client connections" in console.page()
    except OSError:
        return False


def rows(html: str) -> list[str]:
    return re.findall(r'<tr data-number="\d+">.*?</tr>', html, re.S)


def cell(row: str, name: str) -> str:
    found = re.search(rf'<td class="(?:num )?{name}">(.*?)</td>', row, re.S)
    assert found, row
    return found.group(1)


def row_of(html: str, user: str) -> str:
    (row,) = [r for r in rows(html) if f'<td class="user">{user}</td>' in r]
    return row


def test_connections_show_as_chstatus_and_leave_when_they_end(console: Console) -> None:
    listener = f"127.0.0.1:{console.listener.port}"
    assert wait_until(lambda: listener in console.page(), 30), console.page()
    first, second = RawClient(console.listener.port), RawClient(console.listener.port, user="bob")
    assert first.conn() == 0 and second.conn() == 0
    # the status is written at the listener's next look after MQCONN has named the application
    assert wait_until(lambda: console.page().count(">rawclient</td>") == 2, 30), console.page()
    shown = rows(console.page())
    for row, user in zip(shown, ("RAWTEST", "bob"), strict=True):
        assert f'<td class="user">{user}</td>' in row
        assert '<td class="appl">rawclient</td>' in row
        assert re.search(r'<td class="conname">127\.0\.0\.1\(\d+\)</td>', row), row
        assert re.search(r'<td class="channel">[A-Z.]+SVRCONN</td>', row), row
        assert "UTC" in row and "RUNNING" in row
    first.drop()
    assert wait_until(lambda: len(rows(console.page())) == 1, 30), console.page()
    assert '<td class="user">bob</td>' in console.page()
    second.drop()


def test_a_connection_s_counters_move_with_its_calls(console: Console) -> None:
    client = RawClient(console.listener.port, user="carol")
    assert client.conn() == 0

    def connected() -> bool:  # its user id shows from the USERID segment, before MQCONN
        page = console.page()
        return '<td class="user">carol</td>' in page and cell(row_of(page, "carol"), "calls") == "1"

    assert wait_until(connected, 30), console.page()
    before = row_of(console.page(), "carol")
    assert (cell(before, "calls"), cell(before, "puts"), cell(before, "gets")) == ("1", "0", "0")
    assert cell(before, "last").startswith("MQCONN ")
    hobj = client.open("SYSTEM.DEFAULT.MODEL.QUEUE", C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT)
    for n in range(3):
        assert client.put(hobj, f"counted {n}".encode(), C.MQPMO_NO_SYNCPOINT) == 0
    assert client.get(hobj, 10_000) == (0, b"counted 0")
    assert client.get(hobj, 10_000) == (0, b"counted 1")

    def counted() -> bool:
        row = row_of(console.page(), "carol")
        return (cell(row, "puts"), cell(row, "gets")) == ("3", "2")

    assert wait_until(counted, 30), console.page()
    after = row_of(console.page(), "carol")
    assert cell(after, "calls") == "7"  # MQCONN, MQOPEN, 3 MQPUT, 2 MQGET
    assert cell(after, "last").startswith("MQGET ") and "UTC" in cell(after, "last")
    assert int(cell(after, "sent")) > int(cell(before, "sent"))
    # three MQPUTs carried their MQMD, MQPMO and data: well over 3 x 364 bytes came in
    assert int(cell(after, "received")) - int(cell(before, "received")) > 3 * 364
    client.drop()
    assert wait_until(lambda: '<td class="user">carol</td>' not in console.page(), 30)


def test_a_person_sees_the_connections_in_a_browser(browser: Any, console: Console) -> None:
    client = RawClient(console.listener.port, user="alice")
    assert client.conn() == 0
    hobj = client.open("SYSTEM.DEFAULT.MODEL.QUEUE", C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT)
    assert client.put(hobj, b"seen in a browser", C.MQPMO_NO_SYNCPOINT) == 0
    assert client.put(hobj, b"and this one", C.MQPMO_NO_SYNCPOINT) == 0
    assert client.get(hobj, 10_000) == (0, b"seen in a browser")
    # the page does not refresh itself: opened once the listener's status counts the get
    assert wait_until(lambda: '<td class="num gets">1</td>' in console.page(), 30), console.page()
    context = browser.new_context(viewport={"width": 1400, "height": 700}, base_url=console.url)
    page = context.new_page()
    try:
        page.goto("/connections")
        section = page.locator(
            f'section.listener[data-address="127.0.0.1:{console.listener.port}"]'
        )
        expect(section.locator("h2")).to_contain_text("queue manager QM1")
        row = section.locator("tr", has_text="alice")
        expect(row.locator("td.appl")).to_have_text("rawclient")
        expect(row.locator("td.puts")).to_have_text("2")
        expect(row.locator("td.gets")).to_have_text("1")
        expect(row.locator("td.calls")).to_have_text("5")
        expect(row.locator("td.last")).to_contain_text("MQGET")
        expect(section.locator("th", has_text="Bytes received")).to_be_visible()
        expect(page.locator("nav a.here")).to_have_text("Connections")
        page.screenshot(path=str(console.screenshots / "9-connections.png"), full_page=True)
    finally:
        client.drop()
        context.close()


def test_a_stopped_listener_leaves_the_page(console: Console) -> None:
    assert console.listener.stop() == 0
    assert wait_until(lambda: "No channel listener is running" in console.page(), 30)
