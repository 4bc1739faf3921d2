"""Who prints mqkafka's warnings: a program that imports the package and configures no
logging hears nothing from it (as from pymqi); an ``mqk`` command prints them as plain lines;
a program's own logging configuration gets them."""

from __future__ import annotations

import subprocess
import sys

import pytest

WARN = "import logging; logging.getLogger('mqkafka.kafka.librdkafka').warning('Kafka is away')"


@pytest.mark.parametrize(
    ("program", "stderr"),
    [
        ("import mqkafka.mqi; " + WARN, ""),
        ("import mqkafka.cli.logs as l; l.plain_setup(); " + WARN, "Kafka is away\n"),
        (
            "import mqkafka.cli.logs as l; l.plain_setup(); l.plain_setup(); " + WARN,
            "Kafka is away\n",  # once, however often it is set up
        ),
        (
            "import logging, sys; logging.basicConfig(stream=sys.stderr, format='app: %(message)s')"
            "; import mqkafka.mqi; import mqkafka.cli.logs as l; l.plain_setup(); " + WARN,
            "app: Kafka is away\n",  # the program's configuration, not the command's
        ),
    ],
    ids=["library-quiet", "command-speaks", "set-up-once", "program-configured"],
)
def test_who_prints_the_packages_warnings(program: str, stderr: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == stderr
