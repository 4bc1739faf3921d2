"""``mqk run`` returns once the service it started is ready, not on an older run's log line."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from mqkafka.cli.common import UserError
from mqkafka.cli.local import wait_until_ready

READY_AFTER = 1.0  # seconds the stand-in service takes to start


def start(log_path: Path, script: str) -> tuple[subprocess.Popen[bytes], int]:
    with log_path.open("ab") as log:
        since = log.tell()
        proc = subprocess.Popen([sys.executable, "-c", script], stdout=log)
    return proc, since


def test_an_older_ready_line_in_the_kept_log_is_not_this_start(tmp_path: Path) -> None:
    log_path = tmp_path / "serve.log"
    log_path.write_text("broker ready in 2.05s: 0 subscriptions\nbroker stopped cleanly\n")
    script = (
        f"import time; time.sleep({READY_AFTER}); print('broker ready in 1.00s', flush=True);"
        " time.sleep(60)"
    )
    proc, since = start(log_path, script)
    started = time.monotonic()
    try:
        wait_until_ready(proc, log_path, since, timeout=30)
        assert time.monotonic() - started >= READY_AFTER * 0.9  # it waited for the new line
        assert proc.poll() is None  # and returned while the service runs
    finally:
        proc.kill()
        proc.wait()


def test_a_service_that_exits_during_start_up_shows_its_own_log(tmp_path: Path) -> None:
    log_path = tmp_path / "serve.log"
    log_path.write_text("broker ready in 2.05s (an earlier run)\n")
    proc, since = start(log_path, "print('cannot reach Kafka'); raise SystemExit(1)")
    with pytest.raises(UserError) as failure:
        wait_until_ready(proc, log_path, since, timeout=30)
    assert "cannot reach Kafka" in str(failure.value)
    assert "earlier run" not in str(failure.value)
