"""Issue 18 points 1 and 6: the wheel, installed by the image's own install step into a new
virtualenv, run from a directory outside the checkout, with the compose file's command and
environment for the broker service (no Docker engine runs here, so this is the image without
its container)."""

from __future__ import annotations

import glob
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.kafka
CHECKOUT = Path(__file__).resolve().parents[3]  # what is built; never imported from


@dataclass(frozen=True)
class Installed:
    venv: Path
    place: Path  # a directory outside the checkout, where commands run

    def env(self, **extra: str) -> dict[str, str]:
        clean = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("MQK_", "PYTHON", "VIRTUAL_ENV"))
        }
        clean["PATH"] = f"{self.venv / 'bin'}:{clean.get('PATH', '')}"
        return {**clean, "MQK_HOME": str(self.place / "home"), **extra}

    def run(
        self, *args: str, timeout: float = 120, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.venv / "bin" / args[0]), *args[1:]], capture_output=True, text=True,
            env=self.env(**(env or {})), cwd=self.place, timeout=timeout, check=False,
        )  # fmt: skip


def _dockerfile_install_steps() -> list[list[str]]:
    """The image's install step: each ``pip install`` of the RUN line that installs the
    built wheels."""
    text = (CHECKOUT / "Dockerfile").read_text()
    (line,) = [ln for ln in text.splitlines() if ln.startswith("RUN pip install") and ".whl" in ln]
    commands = [shlex.split(part) for part in line.removeprefix("RUN ").split("&&")]
    return [c for c in commands if c[:2] == ["pip", "install"]]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("installed")
    wheels = root / "wheels"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(wheels), str(CHECKOUT)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    steps = _dockerfile_install_steps()
    assert steps and any(w.endswith(".whl") for w in steps[0]), steps  # the wheel first
    for step in steps:
        args = [arg.replace("/wheels", str(wheels)) for arg in step[2:]]
        files = [w for arg in args if arg.endswith(".whl") for w in glob.glob(arg)]
        assert all(glob.glob(a) for a in args if a.endswith(".whl")), args
        done = subprocess.run(
            [str(venv / "bin" / "pip"), "install", "--quiet",
             *[a for a in args if not a.endswith(".whl")], *files],
            capture_output=True, text=True, timeout=900, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
    place = root / "elsewhere"
    place.mkdir()
    return Installed(venv, place)


def test_the_wheel_carries_its_data_and_says_its_version(installed: Installed) -> None:
    version = installed.run("mqk", "--version")
    assert version.returncode == 0 and re.fullmatch(r"mqk \d+\.\d+\.\d+\S*", version.stdout.strip())
    listing = installed.run("mqk", "topics", "list")
    assert listing.returncode == 0, listing.stderr
    assert "SYSTEM.BROKER.CONTROL.QUEUE" in listing.stdout and "mqk-subscriptions" in listing.stdout
    probe = installed.run(
        "python", "-c",
        "import mqkafka, mqkafka.mqi, mqkafka.resources as r; print(mqkafka.__file__); "
        "print(r.schema_names())",
    )  # fmt: skip
    assert probe.returncode == 0, probe.stderr
    assert str(installed.venv) in probe.stdout and str(CHECKOUT / "service") not in probe.stdout
    assert "subscription" in probe.stdout and "activity_event" in probe.stdout


@pytest.fixture(scope="module")
def local_kafka(installed: Installed) -> Iterator[str]:
    """``mqk kafka start`` of the installed package (its Maven pom is package data)."""
    started = installed.run("mqk", "kafka", "start", timeout=300)
    try:
        assert started.returncode == 0, started.stderr
        yield started.stdout.strip().splitlines()[-1]
    finally:
        installed.run("mqk", "kafka", "stop")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_compose_service_from_the_wheel_provisions_itself_and_serves(
    installed: Installed, local_kafka: str
) -> None:
    compose = yaml.safe_load((CHECKOUT / "docker-compose.yml").read_text())
    broker = compose["services"]["broker"]
    env = {k: str(v) for k, v in broker["environment"].items()}
    env["MQK_BOOTSTRAP_SERVERS"] = local_kafka  # the compose network's kafka:19092, here
    env["MQK_METRICS_PORT"] = str(_free_port())
    health = [str(a) for a in broker["healthcheck"]["test"][1:]]
    assert health == ["mqk", "health"]
    log = installed.place / "serve.log"
    service = subprocess.Popen(
        [str(installed.venv / "bin" / "mqk"), *broker["command"]],
        stdout=log.open("w"), stderr=subprocess.STDOUT, env=installed.env(**env),
        cwd=installed.place,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while installed.run(*health, env=env).returncode != 0:
            assert service.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.5)
        assert "created SYSTEM.BROKER.CONTROL.QUEUE" in log.read_text()  # it provisioned itself
        queue = f"APP.{uuid.uuid4().hex[:8].upper()}"
        common = {"MQK_BOOTSTRAP_SERVERS": local_kafka}
        subscribed = installed.run("mqk", "subscribe", "Deploy/#", "--queue", queue, env=common)
        assert subscribed.stdout.strip() == "ok", subscribed.stderr
        published = installed.run("mqk", "publish", "Deploy/Wheel", "installed", env=common)
        assert published.stdout.strip() == "ok", published.stderr
        listed = installed.run("mqk", "sub", "list", env=common)
        assert queue in listed.stdout and "Deploy/#" in listed.stdout
        program = (
            "import mqkafka.mqi as pymqi\n"
            "from mqkafka.mqi import CMQC\n"
            "qmgr = pymqi.connect('QM1')\n"
            f"q = pymqi.Queue(qmgr, '{queue}', CMQC.MQOO_INPUT_SHARED)\n"
            "gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=15000)\n"
            "print(q.get(None, pymqi.MD(), gmo)[-9:].decode())\n"
            "q.close(); qmgr.disconnect()\n"
        )
        got = installed.run("python", "-c", program, env=common)
        assert got.returncode == 0, got.stderr
        assert got.stdout.strip() == "installed"  # the publication, after its RFH2
    finally:
        service.terminate()
        assert service.wait(60) == 0, log.read_text()


def test_the_compose_console_from_the_wheel_serves_the_topic_tree(
    installed: Installed, local_kafka: str
) -> None:
    """The image carries the console extra: the compose file's console command serves."""
    compose = yaml.safe_load((CHECKOUT / "docker-compose.yml").read_text())
    console = compose["services"]["console"]
    command = [str(a) for a in console["command"]]
    port = _free_port()
    command[command.index("--port") + 1] = str(port)
    command[command.index("--host") + 1] = "127.0.0.1"  # the container's 0.0.0.0, here
    env = {k: str(v) for k, v in console["environment"].items()}
    env["MQK_BOOTSTRAP_SERVERS"] = local_kafka
    applied = installed.run("mqk", "topics", "apply", env=env)  # as the broker service does
    assert applied.returncode == 0, applied.stderr
    log = installed.place / "console.log"
    process = subprocess.Popen(
        [str(installed.venv / "bin" / "mqk"), *command], stdout=log.open("w"),
        stderr=subprocess.STDOUT, env=installed.env(**env), cwd=installed.place,
    )  # fmt: skip
    try:
        page = ""
        deadline = time.monotonic() + 120
        while not page:
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as answer:
                    page = answer.read().decode()
            except urllib.error.HTTPError as error:  # it answers, but not the tree
                raise AssertionError(error.read().decode()) from None
            except OSError:  # not listening yet
                time.sleep(0.5)
        assert "Topic tree" in page
        assert "read-only" in log.read_text()
    finally:
        process.terminate()
        process.wait(30)
