"""IBM's MQ client for Java and our Java programs, for the channel tests and benchmarks alike:
the client's jars fetched by Maven (``pom.xml`` beside this module) from Maven Central into
the cache (never vendored), programs compiled against them (the tests' in
``tests/integration/channel/java``, the benchmarks' in ``bench/java``), and one run with its
``CHECK <name> OK|FAIL <why>`` lines.

Errors are :class:`JavaClientError` with what the tool said; the tests' fixtures turn them
into failures (conftest), the benchmarks stop with them.
"""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Sequence
from pathlib import Path

from mqkafka.kafka.brokerjars import default_cache

HERE = Path(__file__).resolve().parent
POM = HERE / "pom.xml"
CLIENT_VERSION = "9.4.4.0"


class JavaClientError(RuntimeError):
    """A tool missing, Maven unable to fetch the client, or javac refusing a program."""


def tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise JavaClientError(f"'{name}' is not on PATH: a JDK 17 and Maven run IBM's MQ client")
    return path


def client_jars() -> Path:
    """The MQ client's jars, fetched once into the cache (``$MQK_CACHE``); a half-done fetch
    is staged aside, so a concurrent or interrupted one never leaves a partial folder."""
    libs = default_cache() / f"mq-client-{CLIENT_VERSION}"
    if (libs / "complete").exists():
        return libs
    staging = libs.with_name(libs.name + f".{uuid.uuid4().hex[:6]}")
    cmd = [
        tool("mvn"), "-q", "-B", "-f", str(POM), "dependency:copy-dependencies",
        f"-DoutputDirectory={staging}", "-DincludeScope=runtime",
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0 or not any(staging.glob("com.ibm.mq.allclient-*.jar")):
        raise JavaClientError(
            f"Maven could not fetch IBM's MQ client:\n{done.stdout + done.stderr}"
        )
    (staging / "complete").write_text(CLIENT_VERSION + "\n")
    shutil.rmtree(libs, ignore_errors=True)
    staging.rename(libs)
    return libs


def compile_programs(jars: Path, out: Path, sources: Sequence[Path]) -> Path:
    """``sources`` (``.java`` files) compiled into ``out``."""
    files = [str(p) for p in sources]
    done = subprocess.run(
        [tool("javac"), "-nowarn", "-d", str(out), "-cp", f"{jars}/*", *files],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise JavaClientError(f"javac failed:\n{done.stdout + done.stderr}")
    return out


def java_command(
    jars: Path, classes: Path, main: str, *args: str, jvm: Sequence[str] = ()
) -> list[str]:
    """The command line that runs program ``main`` (``jvm``: options before the class)."""
    return [tool("java"), *jvm, "-cp", f"{jars}/*:{classes}", main, *args]


def run_java(
    jars: Path,
    classes: Path,
    main: str,
    *args: str,
    timeout: float = 400,
    jvm: Sequence[str] = (),
) -> subprocess.CompletedProcess[str]:
    """Run ``main`` to its end, in ``classes`` (the client writes its FFDC reports into
    ./FFDC: not into the checkout)."""
    return subprocess.run(
        java_command(jars, classes, main, *args, jvm=jvm),
        capture_output=True, text=True, timeout=timeout, check=False, cwd=classes,
    )  # fmt: skip


def checks_of(done: subprocess.CompletedProcess[str], classes: Path) -> dict[str, str]:
    """A run's CHECK lines as {name: "OK" or "FAIL why"}, with ``_output`` (its last 4,000
    characters) and ``_ffdc``: the text of the FFDC reports IBM's client wrote for what it
    took as a fault (e.g. XO00H001: a RegSub full response it cannot use)."""
    checks: dict[str, str] = {}
    for line in done.stdout.splitlines():
        if line.startswith("CHECK "):
            _, name, outcome = ([*line.split(" ", 2), ""])[:3]
            checks[name] = outcome
    checks["_output"] = (done.stdout + done.stderr)[-4000:]
    reports = sorted((classes / "FFDC").glob("*.FDC"))
    checks["_ffdc"] = "\n".join(r.read_text(errors="replace") for r in reports)
    return checks


__all__ = [
    "CLIENT_VERSION",
    "JavaClientError",
    "checks_of",
    "client_jars",
    "compile_programs",
    "java_command",
    "run_java",
    "tool",
]
