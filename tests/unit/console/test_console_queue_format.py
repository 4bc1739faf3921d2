"""The console's queue list shows each queue's message format (issue 37)."""

from __future__ import annotations

from types import SimpleNamespace

from mqkafka.console.app import NAV, _environment
from mqkafka.console.pages import ConsoleSettings
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.query.queues import QueueView


def test_the_queue_list_shows_each_queues_message_format() -> None:
    settings = ConsoleSettings(ClientConfig("127.0.0.1:9092"), token="t0k")
    request = SimpleNamespace(url=SimpleNamespace(path="/queues"), query_params={})
    queues = [
        QueueView("APP.EVENTS", "APP.EVENTS", 1, 3, "local", "", (), "KAFKA"),
        QueueView("APP.MQ", "APP.MQ", 1, 0, "local", "", ()),
    ]
    page = _environment().get_template("queues.html").render(
        request=request, nav=NAV, path="/queues", settings=settings, notice="", failed="",
        queues=queues,
    )  # fmt: skip
    assert "<th>Format</th>" in page
    rows = page.split('<tr data-queue="')[1:]
    assert "<td>KAFKA</td>" in rows[0] and "<td>MQ</td>" in rows[1]
