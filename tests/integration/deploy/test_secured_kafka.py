"""Issue 18 point 5: every command against a Kafka that requires SASL, given a client
properties file; the service and an application each with only the ACLs of their user."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.integration.deploy.conftest import SecuredKafka, prepare_namespace, run_mqk

pytestmark = pytest.mark.kafka


@pytest.mark.parametrize("listener", ["sasl-plaintext", "sasl-ssl"])
def test_a_subscribe_publish_round_trip_runs_through_sasl_with_each_users_acls(
    secured_kafka: SecuredKafka, service_as: Any, listener: str
) -> None:
    ns = f"s{uuid.uuid4().hex[:6]}."
    home = secured_kafka.home
    prepare_namespace(secured_kafka, ns)
    tls = listener == "sasl-ssl"  # the same files, with a certificate the test broker made
    service_as(secured_kafka, ns, config=secured_kafka.tls["mqk-service"] if tls else None)
    app_config = secured_kafka.tls["mqk-app"] if tls else secured_kafka.app
    app = {"MQK_KAFKA_CONFIG": str(app_config), "MQK_NAMESPACE": ns}
    queue = f"APP.{uuid.uuid4().hex[:8].upper()}"
    subscribed = run_mqk("subscribe", "Sport/#", "--queue", queue, home=home, env=app)
    assert subscribed.returncode == 0 and subscribed.stdout.strip() == "ok", subscribed.stderr
    published = run_mqk("publish", "Sport/Soccer", "4-1", "--retain", home=home, env=app)
    assert published.returncode == 0 and published.stdout.strip() == "ok", published.stderr
    listed = run_mqk("sub", "list", home=home, env=app)
    assert listed.returncode == 0 and queue in listed.stdout and "Sport/#" in listed.stdout
    retained = run_mqk("retained", "list", home=home, env=app)
    assert "Sport/Soccer" in retained.stdout and "4-1" in retained.stdout


def test_an_mqi_put_and_get_runs_through_sasl_as_the_application_user(
    secured_kafka: SecuredKafka,
) -> None:
    program = (
        "import mqkafka.mqi as pymqi\n"
        "from mqkafka.mqi import CMQC\n"
        "qmgr = pymqi.connect('QM1')\n"
        "name = 'APP.' + __import__('uuid').uuid4().hex[:8].upper()\n"
        "qmgr.define_queue(name)\n"
        "pymqi.Queue(qmgr, name).put(b'over sasl')\n"
        "q = pymqi.Queue(qmgr, name, CMQC.MQOO_INPUT_SHARED)\n"
        "gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=15000)\n"
        "print(q.get(None, pymqi.MD(), gmo).decode())\n"
        "q.close(); qmgr.disconnect()\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQK_")}
    env["MQK_KAFKA_CONFIG"] = str(secured_kafka.app)  # bootstrap.servers comes from it too
    env["MQK_NAMESPACE"] = ns = f"m{uuid.uuid4().hex[:6]}."
    prepare_namespace(secured_kafka, ns)
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=120,
        cwd=secured_kafka.home, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "over sasl"
    assert done.stderr.strip() == ""  # no librdkafka chatter for an ordinary program


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"sasl.password": "wrong"}, "invalid credentials"),
        ({"sasl.mechanism": "PLAIN"}, "Unsupported SASL mechanism"),
        ({"sasl.mechanism": "NOSUCH"}, "Unsupported SASL mechanism: NOSUCH"),
        ({"security.protocol": "SSL"}, "PLAINTEXT broker listener"),
        ({"security.protocol": "SASL_SSL", "ssl.ca.location": "/nonexistent/ca.pem"}, "ca.pem"),
    ],
    ids=[
        "wrong-password",
        "mechanism-not-offered",
        "unknown-mechanism",
        "tls-to-plaintext",
        "missing-ca-file",
    ],
)
def test_a_client_kafka_refuses_is_one_line_naming_listener_and_cause_and_exit_2(
    secured_kafka: SecuredKafka, tmp_path: Path, change: dict[str, str], expected: str
) -> None:
    settings = dict(
        line.split("=", 1)
        for line in secured_kafka.app.read_text().splitlines()
        if line and not line.startswith("#")
    )
    settings |= change
    bad = tmp_path / "bad.properties"
    bad.write_text("".join(f"{k}={v}\n" for k, v in settings.items()))
    for command in (["sub", "list"], ["serve"]):
        result = run_mqk(*command, "--kafka-config", str(bad), home=secured_kafka.home)
        assert result.returncode == 2, result.stdout + result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert expected in lines[0] and secured_kafka.bootstrap in lines[0]
        assert "wrong" not in lines[0]  # the password is never shown


def test_a_certificate_not_trusted_is_one_line_and_exit_2(
    secured_kafka: SecuredKafka, tmp_path: Path
) -> None:
    text = secured_kafka.tls["mqk-app"].read_text()
    bad = tmp_path / "untrusted.properties"
    other_ca = tmp_path / "other-ca.pem"
    made = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
         "/CN=other", "-keyout", str(tmp_path / "k.pem"), "-out", str(other_ca)],
        capture_output=True, timeout=60, check=False,
    )  # fmt: skip
    assert made.returncode == 0
    lines = [
        f"ssl.ca.location={other_ca}" if line.startswith("ssl.ca.location=") else line
        for line in text.splitlines()
    ]
    bad.write_text("\n".join(lines) + "\n")
    result = run_mqk("sub", "list", "--kafka-config", str(bad), home=secured_kafka.home)
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert "certificate verify failed" in line and "sasl_ssl://127.0.0.1" in line


def test_the_service_without_create_rights_names_every_missing_topic_in_one_line(
    secured_kafka: SecuredKafka,
) -> None:
    ns = f"n{uuid.uuid4().hex[:6]}."
    result = run_mqk(
        "serve", "--namespace", ns, "--no-create-topics",
        "--kafka-config", str(secured_kafka.service), home=secured_kafka.home,
    )  # fmt: skip
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("mqk:")]
    assert len(lines) == 1 and "--no-create-topics" in lines[0], result.stderr
    for topic in ("SYSTEM.BROKER.CONTROL.QUEUE", "mqk-subscriptions", "mqk-retained"):
        assert ns + topic in lines[0]


def refusal(producer: Any, topic: str, key: bytes, value: bytes | None) -> str:
    """How Kafka answered one record: librdkafka says a refusal at delivery, or straight away
    from ``produce`` once its metadata holds the topic as unauthorized; "" if it was written."""
    from mqkafka.kafka.clients import KafkaException

    errors: list[Any] = []
    try:
        producer.produce(topic, key=key, value=value, on_delivery=lambda e, m: errors.append(e))
    except KafkaException as error:
        return str(error.args[0].name())
    producer.flush(30)
    assert errors, f"no delivery report for {topic} within 30 s"
    return "" if errors[0] is None else str(errors[0].name())


def test_an_application_may_not_write_the_subscription_state(
    secured_kafka: SecuredKafka, service_as: Any
) -> None:
    """The state topics are the service's alone: an application's tombstone is refused by
    Kafka and the subscription stays (issue 20 point 4)."""
    from mqkafka.kafka import clients
    from mqkafka.kafka.clientconfig import load_client_config
    from mqkafka.kafka.compacted import read_compacted

    ns = f"t{uuid.uuid4().hex[:6]}."
    prepare_namespace(secured_kafka, ns)
    service_as(secured_kafka, ns)
    app = {"MQK_KAFKA_CONFIG": str(secured_kafka.app), "MQK_NAMESPACE": ns}
    queue = f"APP.{uuid.uuid4().hex[:8].upper()}"
    assert run_mqk("subscribe", "News/#", "--queue", queue, home=secured_kafka.home, env=app)
    app_config = load_client_config(config_file=secured_kafka.app, environ={})
    topic = ns + "mqk-subscriptions"
    keys = list(read_compacted(app_config, topic))  # reading it is allowed
    assert len(keys) == 1
    producer = clients.producer(app_config)
    assert refusal(producer, topic, keys[0], None) == "TOPIC_AUTHORIZATION_FAILED"
    assert list(read_compacted(app_config, topic)) == keys
    # nor forge a record on any state topic (a subscription, a retained publication)
    for state in ("mqk-subscriptions", "mqk-retained", "mqk-publishers"):
        refused = refusal(producer, ns + state, b"forged", b"x")
        assert refused == "TOPIC_AUTHORIZATION_FAILED", state


def _refused_to_join(config: Any, settings: dict[str, str], topic: str) -> str:
    """The error a consumer of ``settings`` meets when it tries to join (subscribe, poll)."""
    from mqkafka.kafka import clients
    from mqkafka.kafka.clients import KafkaException

    consumer = clients.consumer(config, settings)
    try:
        consumer.subscribe([topic])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                message = consumer.poll(0.5)
            except KafkaException as error:
                return str(error.args[0].name())
            if message is not None and message.error() is not None:
                return str(message.error().name())
        return "joined"
    finally:
        consumer.close()


def test_an_application_may_neither_describe_nor_join_the_services_group(
    secured_kafka: SecuredKafka, service_as: Any
) -> None:
    """Issue 35 point 1: under the shipped ACLs the application user cannot describe the
    service's group, join it as a new member, or fence the service with its static member
    id (GROUP_AUTHORIZATION_FAILED each time); the service keeps serving."""
    from mqkafka.kafka import clients
    from mqkafka.kafka.clientconfig import load_client_config
    from mqkafka.kafka.clients import KafkaException

    ns = f"g{uuid.uuid4().hex[:6]}."
    prepare_namespace(secured_kafka, ns)
    service = service_as(secured_kafka, ns)
    app_config = load_client_config(config_file=secured_kafka.app, environ={})
    group = ns + "mqk-broker"
    admin = clients.admin(app_config)
    with pytest.raises(KafkaException) as described:
        admin.describe_consumer_groups([group], request_timeout=15)[group].result()
    assert described.value.args[0].name() == "GROUP_AUTHORIZATION_FAILED"
    readable = ns + "mqk-subscriptions"  # a topic the application may read
    member = f"{ns}mqk-serve-{socket.gethostname()}-1"  # mqk serve's default instance
    for extra in ({}, {"group.instance.id": member}):
        settings = {"group.id": group, "auto.offset.reset": "earliest", **extra}
        assert _refused_to_join(app_config, settings, readable) == "GROUP_AUTHORIZATION_FAILED"
    assert service.poll() is None  # not fenced
    app = {"MQK_KAFKA_CONFIG": str(secured_kafka.app), "MQK_NAMESPACE": ns}
    queue = f"APP.{uuid.uuid4().hex[:8].upper()}"
    # still serving: a command is answered
    done = run_mqk("subscribe", "Ops/#", "--queue", queue, home=secured_kafka.home, env=app)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_browse_on_a_secured_cluster_shows_only_what_is_on_the_queue(
    secured_kafka: SecuredKafka,
) -> None:
    """Issue 35 point 4 with SASL over TLS (SASL_PLAINTEXT is the same less the TLS): the
    share group's offsets are asked over the secured listener (they were not asked at all),
    so ``mqk browse`` as the application user leaves out the two messages got."""
    import json

    program = (
        "import sys, mqkafka.mqi as pymqi\n"
        "from mqkafka.mqi import CMQC\n"
        "qmgr = pymqi.connect('QM1')\n"
        "name = sys.argv[1]\n"
        "qmgr.define_queue(name)\n"
        "for body in (b'm0', b'm1', b'm2'):\n"
        "    pymqi.Queue(qmgr, name).put(body)\n"
        "q = pymqi.Queue(qmgr, name, CMQC.MQOO_INPUT_SHARED)\n"
        "gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=15000)\n"
        "print(q.get(None, pymqi.MD(), gmo), q.get(None, pymqi.MD(), gmo))\n"
        "q.close(); qmgr.disconnect()\n"
    )
    app_config = secured_kafka.tls["mqk-app"]
    ns = f"b{uuid.uuid4().hex[:6]}."
    prepare_namespace(secured_kafka, ns)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQK_")}
    env |= {"MQK_KAFKA_CONFIG": str(app_config), "MQK_NAMESPACE": ns}
    name = f"APP.{uuid.uuid4().hex[:8].upper()}"
    done = subprocess.run(
        [sys.executable, "-c", program, name], capture_output=True, text=True, env=env,
        timeout=120, cwd=secured_kafka.home, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and "b'm0' b'm1'" in done.stdout, done.stderr
    app = {"MQK_KAFKA_CONFIG": str(app_config), "MQK_NAMESPACE": ns}
    browsed = run_mqk("browse", name, "--json", home=secured_kafka.home, env=app)
    assert browsed.returncode == 0, browsed.stderr
    assert [m["body"]["text"] for m in json.loads(browsed.stdout)] == ["m2"]
