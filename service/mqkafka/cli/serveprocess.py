"""``mqk serve`` as a child process, ready once it logs "broker ready": what the integration
tests and the benchmarks start (as ``kafka/localbroker.py`` starts Kafka for them), in one
place so that a change to how the service starts or says it is ready is made once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import TracebackType

MQK = str(Path(sys.executable).with_name("mqk"))


def _message(line: str) -> str:
    """The message of one log line: the service logs JSON (``cli/logs.py``), plain text
    before its logging is set up."""
    try:
        entry = json.loads(line)
    except ValueError:
        return line
    return str(entry.get("msg", "")) if isinstance(entry, dict) else line


class ServeProcess:
    """``mqk serve --bootstrap-servers B --namespace N --instance-id I --state-dir S *extra``,
    started and waited for; its stderr lines kept in ``lines``."""

    def __init__(
        self,
        bootstrap: str,
        namespace: str,
        state_dir: Path,
        *extra: str,
        instance_id: str = "1",
        timeout: float = 120.0,
    ) -> None:
        self.lines: list[str] = []
        self._ready = threading.Event()
        self.proc = subprocess.Popen(
            [MQK, "serve", "--bootstrap-servers", bootstrap, "--namespace", namespace,
             "--instance-id", instance_id, "--state-dir", str(state_dir), *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        threading.Thread(target=self._read, daemon=True).start()
        if not self._ready.wait(timeout):
            self.kill()
            tail = "\n".join(self.lines[-20:])
            raise RuntimeError(f"mqk serve did not become ready in {timeout:.0f} s:\n{tail}")

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line.rstrip())
            if _message(line).startswith("broker ready"):
                self._ready.set()

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM, then SIGKILL if it has not stopped within ``timeout`` seconds; its exit
        status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.proc.wait()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(30)

    def __enter__(self) -> ServeProcess:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()
