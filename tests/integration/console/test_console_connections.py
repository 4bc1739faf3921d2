"""The console's Connections page over a running ``mqk listen`` on the test Kafka: MQ client
connections appear as DISPLAY CHSTATUS shows them (channel, CONNAME, user id, application),
one that ends disappears, a stopped listener is gone; read over HTTP and seen in a browser
(a screenshot a person looks at)."""

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
    with pytest.MonkeyPatch.context() as patch:  # the listener's environment, as it starts
        patch.setenv("MQK_HOME", str(home))
        listener = ListenerProcess(kafka_bootstrap, namespace)
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


def test_a_person_sees_the_connections_in_a_browser(browser: Any, console: Console) -> None:
    client = RawClient(console.listener.port, user="alice")
    assert client.conn() == 0
    # the page does not refresh itself: opened once the listener's status names the client
    assert wait_until(lambda: ">rawclient</td>" in console.page(), 30), console.page()
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
        expect(page.locator("nav a.here")).to_have_text("Connections")
        page.screenshot(path=str(console.screenshots / "9-connections.png"), full_page=True)
    finally:
        client.drop()
        context.close()


def test_a_stopped_listener_leaves_the_page(console: Console) -> None:
    assert console.listener.stop() == 0
    assert wait_until(lambda: "No channel listener is running" in console.page(), 30)
