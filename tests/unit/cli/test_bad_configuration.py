"""A malformed ACL file or topic catalogue stops ``mqk`` as users run it: one line on stderr
naming the file, the line and the problem, exit code 2, no traceback - and before Kafka is
asked anything (nothing listens at the bootstrap address given here)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

MQK = str(Path(sys.executable).with_name("mqk"))  # the installed entry point
NOWHERE = ["--bootstrap-servers", "127.0.0.1:1"]


def mqk(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MQK, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=False,
    )


def test_serve_with_a_malformed_acl_file_says_where_in_one_line_and_exits_2(
    tmp_path: Path,
) -> None:
    acl = tmp_path / "bad.txt"
    acl.write_text("# rules\nallow put * *\nallow red * *\n", encoding="utf-8")
    ran = mqk("serve", "--acl", str(acl), *NOWHERE, "--in-memory-state")
    assert ran.returncode == 2
    assert ran.stderr == (
        f"mqk: {acl}:3: unknown action 'red' (one of put, browse, subscribe, publish, setid or *)\n"
    )


def test_serve_refuses_a_shell_pattern_for_a_topic_in_one_line_and_exits_2(
    tmp_path: Path,
) -> None:
    """Issue 35: ``Secret/*`` was a literal topic and denied nothing; now it stops the start."""
    acl = tmp_path / "rules.txt"
    acl.write_text("allow put * *\ndeny subscribe carol Secret/*\n", encoding="utf-8")
    ran = mqk("serve", "--acl", str(acl), *NOWHERE, "--in-memory-state")
    assert ran.returncode == 2 and ran.stderr.count("\n") == 1
    assert ran.stderr.startswith(f"mqk: {acl}:2: topic 'Secret/*' is not an MQ topic filter")


def test_a_malformed_catalogue_says_where_in_one_line_and_exits_2(tmp_path: Path) -> None:
    catalogue = tmp_path / "catalogue.toml"
    catalogue.write_text('[[queue]]\nname = "Q1"\npartitions = 0\n', encoding="utf-8")
    expected = f"mqk: {catalogue}:3: partitions is a whole number from 1, not 0\n"
    for args in (["topics", "list"], ["serve", *NOWHERE, "--in-memory-state"]):
        ran = mqk(*args, env={"MQK_TOPICS": str(catalogue)})
        assert (ran.returncode, ran.stderr) == (2, expected), args
