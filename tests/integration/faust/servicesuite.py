"""The service's integration suite on ``mqk serve --runtime faust`` (issue 36 point 3).

Each ``test_faust_<module>.py`` beside this file takes every test of
``tests/integration/service/<module>.py``, with the fixtures that module defines, and runs it
with ``MQK_RUNTIME=faust`` (every ``mqk serve`` it starts, restarts included, is a Faust
worker). A module of its own per service module: the default runtime's test ids stay as they
are, and ``--dist loadfile`` spreads the Faust modules over the workers as it does the
default ones. A test added to a service module runs on Faust too; one that cannot is listed
here with its reason, and ``test_faust_service_suite.py`` checks that every service module
has its Faust module or a reason.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from tests.integration.service.conftest import client, namespace, start_service

# Tests of the service suite that do not run on Faust, each for its reason.
LOOP_ONLY = {
    "test_a_fenced_transactional_id_ends_the_service_in_one_line_with_exit_3": (
        "it fences the default loop's one transactional id; test_faust_runtime_fenced.py "
        "fences a Faust worker's"
    ),
    "test_a_consumer_fenced_by_a_successor_with_its_instance_id_is_closed": (
        "the default loop's own consumer lanes, no mqk serve"
    ),
    "test_a_fenced_lane_is_replaced_alone_and_the_other_lanes_keep_their_membership": (
        "the default loop's own consumer lanes, no mqk serve"
    ),
}
LOOP_ONLY_MODULES = {
    "test_readme_examples": "the README's examples, run as printed: the default runtime",
}


def on_faust(module: ModuleType) -> dict[str, Any]:
    """What a Faust module takes from ``module``: its tests (but ``LOOP_ONLY``), fixtures and
    helpers, the service conftest's fixtures, and an autouse fixture that runs every
    ``mqk serve`` on Faust."""
    taken = {
        name: value
        for name, value in vars(module).items()
        if not name.startswith("_") and name not in LOOP_ONLY
    }
    return {
        **taken,
        "client": client,
        "namespace": namespace,
        "start_service": start_service,
        "faust_runtime": faust_runtime,
    }


@pytest.fixture(autouse=True)
def faust_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``mqk serve`` the test starts runs on Faust."""
    monkeypatch.setenv("MQK_RUNTIME", "faust")


__all__ = ["LOOP_ONLY", "LOOP_ONLY_MODULES", "on_faust"]
