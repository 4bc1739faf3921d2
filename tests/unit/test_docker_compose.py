"""docker-compose.yml cannot run here (no Docker engine); check it is the real thing."""

from __future__ import annotations

from pathlib import Path

import yaml

from mqkafka.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


def load() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


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
    assert [c[0] for c in commands if c[0] == "serve"] == ["serve"]
    parser = build_parser()
    for command in commands:
        args = parser.parse_args(command)  # SystemExit here means a command that does not exist
        assert callable(args.func)
        bootstrap = command[command.index("--bootstrap-servers") + 1]
        assert bootstrap.split(":")[0] == "kafka"


def test_the_image_installs_this_project_and_runs_mqk() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["mqk"]' in dockerfile
    assert "pip install" in dockerfile
    for service in ("topics", "broker"):
        assert load()["services"][service]["build"] == "."
