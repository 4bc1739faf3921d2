"""What ``mqk run`` tells the user to type next works from the shell that typed ``make run``."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqkafka.cli.local import next_steps

HOME = Path("/repo/.mqk")
BIN = Path("/repo/.venv/bin")


@pytest.mark.parametrize(
    ("mqk_on_path", "path_line"),
    [
        (str(BIN / "mqk"), False),  # the virtualenv is active: nothing to add
        (None, True),  # `make run` from a plain shell: mqk is not on PATH
        ("/usr/local/bin/mqk", True),  # another install would talk about another home
    ],
)
def test_next_steps_name_the_home_and_the_virtualenv_when_needed(
    mqk_on_path: str | None, path_line: bool
) -> None:
    steps = next_steps("127.0.0.1:9092", HOME, BIN, mqk_on_path)
    # `mqk stop` reads MQK_HOME: without it, it looks in ~/.mqk and stops nothing
    assert f"  export MQK_BOOTSTRAP_SERVERS=127.0.0.1:9092 MQK_HOME={HOME}" in steps
    assert (f'  export PATH="{BIN}:$PATH"' in steps) is path_line
    assert steps[-1].split("#")[0].strip() == "mqk stop"
