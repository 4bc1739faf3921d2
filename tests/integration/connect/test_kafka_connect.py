"""Apache Kafka's own Connect worker against the service (issue 37): a FileStreamSink reads a
Kafka-native subscriber queue and writes exactly the published bodies; a FileStreamSource
writes plain lines to the default stream, with the topic as a header (the InsertHeader SMT),
and an MQ subscriber gets them as publications on that topic.

One standalone worker for the module, the broker's Kafka version, its jars from Maven Central
(``pom.xml`` beside this module, cached as the broker's are). The sink connector's file shows
values only, so the headers (topic, properties, MQMD) are read with a consumer.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer

import mqkafka.mqi as pymqi
from mqkafka.kafka.brokerjars import KAFKA_VERSION, default_cache
from mqkafka.kafka.localbroker import free_port
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.kafkaqm.pubsub import PubSub, Subscription, raise_for
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager

pytestmark = pytest.mark.kafka

POM = Path(__file__).with_name("pom.xml")
MQK = str(Path(sys.executable).with_name("mqk"))
SINK_QUEUE = "APP.CONNECT.SINK"
SINK_TOPIC = "Connect/Sink/Scores"
SOURCE_TOPIC = "Connect/Lines"
USR = "<usr><Team>Chelsea</Team><Goals dt='i4'>4</Goals></usr>"


def connect_jars(version: str = KAFKA_VERSION) -> Path:
    """Connect's jars (runtime, file connectors, JSON, transforms) at the broker's version."""
    libs = default_cache() / f"connect-{version}" / "libs"
    marker = libs.parent / "complete"
    if marker.exists():
        return libs
    mvn = shutil.which("mvn")
    if mvn is None or shutil.which("java") is None:
        pytest.skip("Kafka Connect needs mvn and java")
    libs.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="libs-", dir=libs.parent))
    done = subprocess.run(
        [mvn, "-q", "-B", "-f", str(POM), f"-Dkafka.version={version}",
         "dependency:copy-dependencies", f"-DoutputDirectory={staging}",
         "-DincludeScope=runtime"],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    if done.returncode != 0 or not any(staging.glob("connect-runtime-*.jar")):
        shutil.rmtree(staging, ignore_errors=True)
        raise AssertionError("Maven could not resolve Kafka Connect:\n" + done.stdout[-3000:])
    shutil.rmtree(libs, ignore_errors=True)
    staging.rename(libs)
    marker.write_text(version + "\n")
    return libs


def properties(path: Path, values: dict[str, str]) -> Path:
    path.write_text("".join(f"{key}={value}\n" for key, value in values.items()))
    return path


@dataclass
class Platform:
    namespace: str
    bootstrap: str
    qmgr: QueueManager
    subscription: Subscription
    sink_file: Path
    source_file: Path
    rest: str


def _status(rest: str, name: str) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(f"{rest}/connectors/{name}/status", timeout=5) as answer:
            return dict(json.load(answer))
    except OSError:
        return {}


def _running(status: dict[str, Any]) -> bool:
    tasks = status.get("tasks") or []
    return (
        status.get("connector", {}).get("state") == "RUNNING"
        and bool(tasks)
        and all(task.get("state") == "RUNNING" for task in tasks)
    )


@pytest.fixture(scope="module")
def platform(
    kafka_bootstrap: str, broker_service: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Platform]:
    namespace = broker_service
    libs = connect_jars()
    work = tmp_path_factory.mktemp("connect")
    qmgr = pymqi.connect("QM1", bootstrap_servers=kafka_bootstrap, namespace=namespace)
    # the subscriber queue made Kafka-native through MQSET, as any MQI program may
    qmgr.define_queue(SINK_QUEUE)
    queue = pymqi.Queue(qmgr, SINK_QUEUE, C.MQOO_SET | C.MQOO_INQUIRE)
    queue.set(C.MQKIA_MSG_FORMAT, C.MQKMF_KAFKA)
    assert queue.inquire(C.MQKIA_MSG_FORMAT) == C.MQKMF_KAFKA
    queue.close()
    # an MQ subscriber (MQSUB, managed queue) for what the source connector writes
    sd = pymqi.SD(
        Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_NON_DURABLE,
        ObjectString=SOURCE_TOPIC.encode(),
    )
    subscription = Subscription(qmgr)
    subscription.sub(sub_desc=sd)
    sink_file, source_file = work / "sink.txt", work / "source.txt"
    source_file.write_text("")
    port = free_port()
    string = "org.apache.kafka.connect.storage.StringConverter"
    worker = properties(work / "worker.properties", {
        "bootstrap.servers": kafka_bootstrap,
        "key.converter": string,
        "value.converter": string,
        "offset.storage.file.filename": str(work / "offsets"),
        "offset.flush.interval.ms": "500",
        "listeners": f"http://127.0.0.1:{port}",
    })  # fmt: skip
    sink = properties(work / "sink.properties", {
        "name": "mq-sink",
        "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
        "tasks.max": "1",
        "topics": namespace + SINK_QUEUE,
        "file": str(sink_file),
        "value.converter": string,
        "header.converter": "org.apache.kafka.connect.storage.SimpleHeaderConverter",
    })  # fmt: skip
    insert = "org.apache.kafka.connect.transforms.InsertHeader"
    source = properties(work / "source.properties", {
        "name": "mq-source",
        "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
        "tasks.max": "1",
        "file": str(source_file),
        "topic": namespace + "SYSTEM.BROKER.DEFAULT.STREAM",
        "value.converter": string,
        "transforms": "topic,format",
        "transforms.topic.type": insert,
        "transforms.topic.header": "mqpsc.Topic",
        "transforms.topic.value.literal": SOURCE_TOPIC,
        "transforms.format.type": insert,
        "transforms.format.header": "mqmd.Format",
        "transforms.format.value.literal": "MQSTR",
    })  # fmt: skip
    log4j = properties(work / "log4j2.properties", {
        "rootLogger.level": "WARN",
        "rootLogger.appenderRef.out.ref": "out",
        "appender.out.type": "Console",
        "appender.out.name": "out",
        "appender.out.layout.type": "PatternLayout",
        "appender.out.layout.pattern": "%d %p %c{1} %m%n",
    })  # fmt: skip
    log = (work / "connect.log").open("w")
    proc = subprocess.Popen(
        ["java", "-Xms64m", "-Xmx384m", "-cp", f"{libs}/*",
         f"-Dlog4j2.configurationFile={log4j}",
         "org.apache.kafka.connect.cli.ConnectStandalone", str(worker), str(sink), str(source)],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    rest = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while not all(_running(_status(rest, name)) for name in ("mq-sink", "mq-source")):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(
                    "Kafka Connect did not start:\n" + (work / "connect.log").read_text()[-4000:]
                )
            time.sleep(0.5)
        yield Platform(namespace, kafka_bootstrap, qmgr, subscription, sink_file, source_file, rest)
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        subscription.close()
        qmgr.disconnect()


def _lines(path: Path, count: int, timeout: float = 60) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = path.read_text().splitlines() if path.exists() else []
        if len(lines) >= count:
            return lines
        time.sleep(0.2)
    raise AssertionError(f"{path.name} holds {path.read_text() if path.exists() else None!r}")


def _records(bootstrap: str, topic: str, count: int, timeout: float = 30) -> list[Any]:
    consumer = Consumer({
        "bootstrap.servers": bootstrap, "group.id": uuid.uuid4().hex,
        "auto.offset.reset": "earliest", "isolation.level": "read_committed",
    })  # fmt: skip
    consumer.subscribe([topic])
    found: list[Any] = []
    deadline = time.monotonic() + timeout
    try:
        while len(found) < count and time.monotonic() < deadline:
            record = consumer.poll(0.5)
            if record is not None and record.error() is None:
                found.append(record)
    finally:
        consumer.close()
    return found


def test_a_sink_connector_reads_exactly_the_published_bodies(platform: Platform) -> None:
    pubsub = PubSub(platform.qmgr)
    raise_for(pubsub.register_subscriber([SINK_TOPIC], queue=SINK_QUEUE))
    bodies = [json.dumps({"home": "Chelsea", "goals": n}) for n in range(3)]
    for body in bodies:
        pubsub.publish([SINK_TOPIC], body.encode(), folders=[USR])
    pubsub.close()
    assert _lines(platform.sink_file, len(bodies)) == bodies  # one partition: in order
    records = _records(platform.bootstrap, platform.namespace + SINK_QUEUE, len(bodies))
    assert [r.value() for r in records] == [b.encode() for b in bodies]
    headers = dict(records[0].headers())
    assert headers["mqpsc.Topic"] == SINK_TOPIC.encode()
    assert (headers["mqprop.Team"], headers["mqprop.Goals"], headers["mqtype.Goals"]) == (
        b"Chelsea", b"4", b"i4",
    )  # fmt: skip
    assert headers["mqmd.Format"] == b"MQSTR"
    # an MQI program gets the data alone from it too (its properties, the mqprop.* headers,
    # as MQGET's property options say: none here)
    queue = pymqi.Queue(platform.qmgr, SINK_QUEUE, C.MQOO_INPUT_SHARED)
    md = pymqi.MD()
    gmo = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_NO_PROPERTIES, WaitInterval=20000)
    data = queue.get(None, md, gmo)
    queue.close()
    assert data in [b.encode() for b in bodies] and md.Format == C.MQFMT_STRING
    # PCF says the queue's format as MQINQ does
    pcf = pymqi.PCFExecute(platform.qmgr)
    (row,) = pcf.MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: SINK_QUEUE.encode()})
    assert row[C.MQKIA_MSG_FORMAT] == C.MQKMF_KAFKA
    other = {C.MQCA_Q_NAME: b"APP.CONNECT.OTHER"}
    pcf.MQCMD_CREATE_Q({**other, C.MQKIA_MSG_FORMAT: C.MQKMF_KAFKA})
    pcf.MQCMD_CHANGE_Q({**other, C.MQKIA_MSG_FORMAT: C.MQKMF_MQ})
    (row,) = pcf.MQCMD_INQUIRE_Q(other)
    assert row[C.MQKIA_MSG_FORMAT] == C.MQKMF_MQ
    # and so does mqk queue show
    shown = subprocess.run(
        [MQK, "queue", "show", SINK_QUEUE, "--json", "--namespace", platform.namespace,
         "--bootstrap-servers", platform.bootstrap],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert json.loads(shown.stdout)["message_format"] == "KAFKA"


def test_a_source_connector_publishes_plain_lines_to_mq_subscribers(platform: Platform) -> None:
    lines = ["first line from a file", "second line"]
    with platform.source_file.open("a") as out:
        out.write("".join(line + "\n" for line in lines))
    queue = platform.subscription.get_sub_queue()
    assert queue is not None
    force = pymqi.GMO(Options=C.MQGMO_WAIT | C.MQGMO_PROPERTIES_FORCE_MQRFH2, WaitInterval=60000)
    got = []
    for _ in lines:
        md = pymqi.MD()
        data = queue.get(None, md, force)
        assert f"<Topic>{SOURCE_TOPIC}</Topic>".encode() in data
        assert md.Format == C.MQFMT_RF_HEADER_2
        got.append(data)
    # after the queued interface's MQRFH2 (StrucLength, native encoding) the line, as written
    assert sorted(d[int.from_bytes(d[8:12], "little") :] for d in got) == sorted(
        line.encode() for line in lines
    )
