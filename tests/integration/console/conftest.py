"""One broker service and one ``mqk console`` for the whole module, a headless Debian
chromium driven by Playwright, and a folder for the screenshots a person looks at."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from playwright.sync_api import expect

from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.kafka.provision import apply_catalogue
from mqkafka.wire.names import queue_to_topic
from tests.integration.service.conftest import MQK, ServiceProcess, wait_until

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Stack:
    bootstrap: str
    namespace: str
    url: str  # the console's
    client: KafkaPubSub
    screenshots: Path

    def create_queue(self, queue: str) -> None:
        """The service runs with --no-auto-create: a subscriber queue is made first."""
        admin = AdminClient({"bootstrap.servers": self.bootstrap})
        topic = queue_to_topic(queue, self.namespace)
        admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)


@pytest.fixture(scope="module")
def stack(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    namespace = f"c{uuid.uuid4().hex[:8]}."
    apply_catalogue(kafka_bootstrap, prefix=namespace)
    home = tmp_path_factory.mktemp("console")
    metrics = free_port()
    port = free_port()
    env = {**os.environ, "MQK_BOOTSTRAP_SERVERS": kafka_bootstrap, "MQK_NAMESPACE": namespace}
    log = home / "console.log"
    with log.open("w") as out:  # the console starts while the service does: it needs Kafka only
        console = subprocess.Popen(
            [MQK, "console", "--port", str(port), "--allow-actions", "--interval", "0.5",
             "--metrics-url", f"http://127.0.0.1:{metrics}/metrics"],
            env=env, stdout=out, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
    service = ServiceProcess(kafka_bootstrap, namespace, home / "state", "1")
    url = f"http://127.0.0.1:{port}"
    client = KafkaPubSub(kafka_bootstrap, namespace=namespace, user="operator")
    screenshots = Path(os.environ.get("MQK_SCREENSHOTS", home / "screenshots"))
    screenshots.mkdir(parents=True, exist_ok=True)
    try:
        service.start(120.0, "--metrics-port", str(metrics), "--no-auto-create")
        assert wait_until(lambda: _answers(url), 60), f"no console: {log.read_text()}"
        yield Stack(kafka_bootstrap, namespace, url, client, screenshots)
    finally:
        client.close()
        console.terminate()
        console.wait(30)
        if service.proc is not None and service.proc.poll() is None:
            service.stop(60)
        print(f"\nconsole screenshots: {screenshots}")
    assert "Traceback" not in log.read_text() and "ERROR" not in log.read_text(), log.read_text()


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/workers", timeout=5) as answer:
            return int(answer.status) == 200
    except OSError:
        return False


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip("no chromium (make install apt-installs Debian's)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def page(browser: Any, stack: Stack) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 900}, base_url=stack.url)
    page = context.new_page()
    page.set_default_timeout(30_000)
    expect.set_options(timeout=20_000)  # a loaded machine: the service answers in seconds
    yield page
    context.close()
