"""The local Kafka broker's jars: resolved from Maven Central through the small ``pom.xml``
beside this module, once, into a cache directory outside git (``$MQK_CACHE``, default
``~/.cache/mqkafka``) that a file lock keeps whole when several processes start at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

KAFKA_VERSION = "4.2.0"
POM = "pom.xml"  # package data beside this module


class BrokerError(RuntimeError):
    """The local broker could not be fetched, started, reached or stopped; says why."""


def default_cache() -> Path:
    return Path(os.environ.get("MQK_CACHE") or Path.home() / ".cache" / "mqkafka")


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def require_tool(name: str, purpose: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise BrokerError(
            f"'{name}' was not found on PATH; it is needed to {purpose}. "
            "Install a JDK (17 or newer) and Apache Maven, then try again."
        )
    return path


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_jars(version: str = KAFKA_VERSION, cache: Path | None = None) -> Path:
    """The directory of the broker's jars, resolved from Maven Central on first use."""
    libs = (cache or default_cache()) / f"kafka-{version}" / "libs"
    marker = libs.parent / "complete"
    if marker.exists():
        return libs
    mvn = require_tool("mvn", "resolve the Kafka broker's jars from Maven Central")
    require_tool("java", "run the Kafka broker")
    with _file_lock(libs.parent.parent / f".kafka-{version}.lock"):
        if marker.exists():  # another process fetched them while we waited
            return libs
        _say(f"mqk: fetching Apache Kafka {version} jars from Maven Central (first run only)...")
        staging = Path(tempfile.mkdtemp(prefix="libs-", dir=libs.parent.parent))
        with resources.as_file(resources.files(__package__).joinpath(POM)) as pom:
            cmd = [
                mvn, "-q", "-B", "-f", str(pom), f"-Dkafka.version={version}",
                "dependency:copy-dependencies", f"-DoutputDirectory={staging}",
                "-DincludeScope=runtime",
            ]  # fmt: skip
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False)
        if done.returncode != 0 or not any(staging.glob("kafka_2.13-*.jar")):
            shutil.rmtree(staging, ignore_errors=True)
            raise BrokerError(
                f"Maven could not resolve Apache Kafka {version} from Maven Central:\n"
                + (done.stdout + done.stderr)[-3000:]
            )
        shutil.rmtree(libs, ignore_errors=True)
        libs.parent.mkdir(parents=True, exist_ok=True)
        staging.rename(libs)
        marker.write_text(version + "\n")
    return libs
