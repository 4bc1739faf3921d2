"""Issue 6 end to end: content filters evaluated by the service through Kafka."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.mq.reasons import RC

pytestmark = pytest.mark.kafka


def usr(**props: int | str) -> str:
    items = "".join(
        f'<{k} dt="i4">{v}</{k}>' if isinstance(v, int) else f"<{k}>{v}</{k}>"
        for k, v in props.items()
    )
    return f"<usr>{items}</usr>"


def test_two_subscribers_with_different_filters_each_receive_only_their_publications(
    start_service: Callable[..., object], client: KafkaPubSub
) -> None:
    start_service()
    assert client.register("Scores/#", queue="APP.HOME", filter="HomeGoals > AwayGoals").ok  # type: ignore[union-attr]
    assert client.register("Scores/#", queue="APP.DERBY", filter="League = 'PL' AND Derby = 1").ok  # type: ignore[union-attr]
    sent = [
        ("home win", usr(HomeGoals=3, AwayGoals=1, League="PL", Derby=0)),
        ("derby draw", usr(HomeGoals=1, AwayGoals=1, League="PL", Derby=1)),
        ("derby home win", usr(HomeGoals=2, AwayGoals=0, League="PL", Derby=1)),
        ("no properties", ""),
    ]
    for body, folder in sent:
        folders = [folder] if folder else []
        assert client.publish("Scores/Match", body.encode(), folders=folders).ok  # type: ignore[union-attr]
    home = [m.body for m in client.read_queue("APP.HOME", timeout=5)]
    derby = [m.body for m in client.read_queue("APP.DERBY", timeout=5)]
    assert home == [b"home win", b"derby home win"]
    assert derby == [b"derby draw", b"derby home win"]


def test_a_json_body_filter_and_an_invalid_filter(
    start_service: Callable[..., object], client: KafkaPubSub
) -> None:
    start_service()
    assert client.register("Json/#", queue="APP.JSON", filter="Body.Score.Home > 2").ok  # type: ignore[union-attr]
    bad = client.register("Json/#", queue="APP.BAD", filter="Score >")
    assert bad is not None and bad.reason == RC.CF_FILTER_ERROR
    for body in (b'{"Score": {"Home": 3, "Away": 0}}', b'{"Score": {"Home": 1}}', b"not json"):
        assert client.publish("Json/Match", body).ok  # type: ignore[union-attr]
    assert [m.body for m in client.read_queue("APP.JSON", timeout=5)] == [
        b'{"Score": {"Home": 3, "Away": 0}}'
    ]
