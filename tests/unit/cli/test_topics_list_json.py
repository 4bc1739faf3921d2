"""``mqk topics list --json``: the catalogue for scripts, with the namespace applied."""

from __future__ import annotations

import json

import pytest

from mqkafka.cli import main
from mqkafka.kafka.provision import load_catalogue


@pytest.mark.parametrize("namespace", ["", "team1."])
def test_the_catalogue_lists_as_json(namespace: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topics", "list", "--json", "--namespace", namespace]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [t["topic"] for t in listed] == [s.topic(namespace) for s in load_catalogue()]
    assert {t["kind"] for t in listed} == {"queue", "state"}
    assert all(t["partitions"] >= 1 and t["purpose"] for t in listed)
