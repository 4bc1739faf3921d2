"""Every shell and Python example of README.md runs as printed, twice in a row, against the
test Kafka with the broker service running (issue 24 point 3).

A block that is no example to run here (``make run`` itself, a synopsis, a Spark cluster) has
``<!-- not run: why -->`` on the line before it; every other ```sh and ```python block runs:
shell blocks with ``bash -e`` (a failing line fails the block), Python blocks as a script.
The environment is what ``make run`` tells a user to export: ``MQK_BOOTSTRAP_SERVERS``, plus
the test's ``MQK_NAMESPACE`` so the service is this test's own.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.integration.service.conftest import ServiceProcess

pytestmark = pytest.mark.kafka
README = Path(__file__).resolve().parents[3] / "README.md"
BLOCK = re.compile(r"(?:^(<!--[^\n]*-->)\n)?^```(sh|python)\n(.*?)^```$", re.M | re.S)
NOT_RUN = re.compile(r"<!--\s*not run:")


@dataclass(frozen=True)
class Example:
    language: str
    code: str
    line: int


def examples(text: str) -> tuple[list[Example], int]:
    """The blocks to run and how many were marked not to."""
    found, skipped = [], 0
    for match in BLOCK.finditer(text):
        if match.group(1) and NOT_RUN.match(match.group(1)):
            skipped += 1
            continue
        line = text.count("\n", 0, match.start(2)) + 1
        found.append(Example(match.group(2), match.group(3), line))
    return found, skipped


def test_the_readme_marks_every_block_it_does_not_run() -> None:
    found, skipped = examples(README.read_text())
    assert {e.language for e in found} == {"sh", "python"}
    assert skipped >= 5  # make run/test, the local stack, synopses, Spark
    commands = [line for e in found for line in e.code.splitlines()]
    assert not any(line.startswith(("make ", "spark-submit")) for line in commands)


def test_every_readme_example_runs_as_printed_twice(
    kafka_bootstrap: str,
    namespace: str,
    start_service: Callable[..., ServiceProcess],
    tmp_path: Path,
) -> None:
    start_service()
    env = {
        **os.environ,
        "MQK_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "MQK_NAMESPACE": namespace,
        "MQK_HOME": str(tmp_path / "home"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    found, _ = examples(README.read_text())
    for round_ in (1, 2):
        for example in found:
            command = ["bash", "-e", "-c", example.code]
            if example.language == "python":
                command = [sys.executable, "-c", example.code]
            result = subprocess.run(
                command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=240,
                check=False,
            )  # fmt: skip
            where = f"README.md line {example.line}, run {round_}"
            assert result.returncode == 0, f"{where}:\n{result.stdout}\n{result.stderr}"
            assert "Traceback" not in result.stderr, f"{where}:\n{result.stderr}"
            if example.language == "python" and "# b'HELLO'" in example.code:  # the MQI's
                assert result.stdout.strip() == "b'HELLO'", where
