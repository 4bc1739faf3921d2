"""The local broker's cluster id is one Kafka's storage tool accepts on its command line."""

from __future__ import annotations

import uuid

import pytest

from mqkafka.kafka.localbroker import random_cluster_id

# 0xF8 = 0b111110..: the first base64 character is the 62nd of the URL-safe alphabet, "-"
STARTS_WITH_DASH = uuid.UUID(bytes=b"\xf8" + bytes(15))
PLAIN = uuid.UUID(bytes=b"\x04" + bytes(15))


def test_an_id_that_would_start_with_a_dash_is_drawn_again(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = iter([STARTS_WITH_DASH, PLAIN])
    monkeypatch.setattr(uuid, "uuid4", lambda: next(drawn))  # the module localbroker draws from
    assert random_cluster_id() == "BAAAAAAAAAAAAAAAAAAAAA"


def test_ids_are_22_url_safe_characters_never_led_by_a_dash() -> None:
    for _ in range(2000):  # a dash would lead ~31 of them without the redraw
        cluster_id = random_cluster_id()
        assert len(cluster_id) == 22 and not cluster_id.startswith("-")
