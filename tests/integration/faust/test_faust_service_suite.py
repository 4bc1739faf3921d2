"""The service's integration suite runs on ``mqk serve --runtime faust`` (issue 36 point 3):
every service test module has its Faust module here (``servicesuite.py`` says how), or a
reason not to, and the tests left out of one are the listed ones."""

from __future__ import annotations

import importlib
from pathlib import Path

from tests.integration.faust.servicesuite import LOOP_ONLY, LOOP_ONLY_MODULES

HERE = Path(__file__).resolve().parent
SERVICE = HERE.parent / "service"


def service_modules() -> list[str]:
    return sorted(path.stem for path in SERVICE.glob("test_*.py"))


def test_every_service_test_module_runs_on_faust_or_says_why_not() -> None:
    missing = [
        name
        for name in service_modules()
        if name not in LOOP_ONLY_MODULES
        and not (HERE / f"test_faust_{name.removeprefix('test_')}.py").exists()
    ]
    assert missing == [], f"no Faust module for {missing}: add one, or a reason not to"
    assert set(LOOP_ONLY_MODULES) <= set(service_modules())


def test_the_tests_left_out_on_faust_exist_and_each_has_a_reason() -> None:
    tests = {
        name
        for module in service_modules()
        for name in vars(importlib.import_module(f"tests.integration.service.{module}"))
        if name.startswith("test_")
    }
    assert set(LOOP_ONLY) <= tests, set(LOOP_ONLY) - tests
    assert all(reason.strip() for reason in (*LOOP_ONLY.values(), *LOOP_ONLY_MODULES.values()))
