"""docker-compose.yml cannot run here (no Docker engine); check it is the real thing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from mqkafka.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


def load() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


def test_compose_runs_apache_kafka_with_share_groups_capable_version() -> None:
    kafka = load()["services"]["kafka"]
    image, tag = kafka["image"].split(":")
    assert image == "apache/kafka"
    assert tuple(int(x) for x in tag.split(".")[:2]) >= (4, 2)
    env = kafka["environment"]
    assert env["KAFKA_PROCESS_ROLES"] == "broker,controller"


def test_every_service_command_is_a_real_mqk_command() -> None:
    services = load()["services"]
    commands = [s["command"] for name, s in services.items() if name != "kafka"]
    # the service provisions its own topics; the console reads what it and Kafka hold
    # the listener serves IBM MQ client applications over the same Kafka (issue 33)
    assert [c[0] for c in commands] == ["serve", "console", "listen"]
    parser = build_parser()
    for command in commands:
        args = parser.parse_args(command)  # SystemExit here means a command that does not exist
        assert callable(args.func)
    broker = services["broker"]
    assert broker["environment"]["MQK_BOOTSTRAP_SERVERS"].split(":")[0] == "kafka"
    assert broker["environment"]["MQK_METRICS_HOST"] == "0.0.0.0"  # reachable from outside
    assert parser.parse_args(broker["healthcheck"]["test"][2:]).func.__name__ == "run_health"
    console = services["console"]
    assert console["environment"]["MQK_BOOTSTRAP_SERVERS"] == "kafka:19092"
    assert all(port.startswith("127.0.0.1:") for port in console["ports"])  # it has no login
    assert "--allow-actions" not in console["command"]  # read-only unless the operator says
    listener = services["listener"]
    assert listener["environment"]["MQK_BOOTSTRAP_SERVERS"] == "kafka:19092"
    assert listener["ports"] == ["127.0.0.1:1414:1414"]  # a plain channel trusts the client
    listen = parser.parse_args(listener["command"])
    assert (listen.host, listen.port, listen.qmgr) == ("0.0.0.0", 1414, "QM1")
    assert listener["depends_on"]["broker"]["condition"] == "service_healthy"


def test_the_image_installs_the_wheel_runs_as_a_user_and_checks_its_health() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["mqk"]' in dockerfile
    assert "pip install --no-cache-dir /wheels/*.whl" in dockerfile
    assert "\nUSER mqk\n" in dockerfile and "HEALTHCHECK" in dockerfile
    assert load()["services"]["broker"]["build"] == "."
    assert "broker-state" in load()["volumes"]


def test_every_named_volume_a_service_mounts_is_declared() -> None:
    """What `docker compose config` refuses: a service's NAME:/path whose NAME is not under
    the top-level volumes (a path that starts with . or / is a bind mount)."""
    compose = load()
    declared = set(compose["volumes"])
    for name, service in compose["services"].items():
        for mount in service.get("volumes", []):
            source, _, target = mount.partition(":")
            assert target.startswith("/"), (name, mount)
            assert source.startswith((".", "/")) or source in declared, (name, mount)


def test_the_console_reads_the_status_the_listener_writes() -> None:
    """The console's Connections page and `mqk listen --status` read $MQK_HOME/listen: the
    two containers share it as one named volume, made by the image as its user's."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    (home,) = re.findall(r"MQK_HOME=(\S+)", dockerfile)
    shared = f"listener-status:{home}/listen"
    services = load()["services"]
    assert shared in services["listener"]["volumes"]
    assert shared in services["console"]["volumes"]
    assert shared not in services["broker"].get("volumes", [])
    assert "listener-status" in load()["volumes"]
    user_at = dockerfile.index("\nUSER mqk\n")
    assert dockerfile.index(f"\nRUN mkdir {home}/listen\n") > user_at  # owned by mqk
