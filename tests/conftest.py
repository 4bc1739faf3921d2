"""Session-wide fixtures: one real, throw-away Apache Kafka broker for every test that needs it.

The broker is started in a temporary directory from the same jars ``mqk kafka start`` uses and
stopped at the end of the session. A test that asks for it never skips: when the broker cannot
start, the test fails with the reason and the tail of the broker log.

``MQK_TEST_BOOTSTRAP_SERVERS`` points the suite at a broker that already runs instead. Where a
Docker engine answers, ``MQK_TEST_KAFKA=testcontainers`` runs the apache/kafka image through
testcontainers' Kafka module (not possible on machines without Docker).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, settings

from mqkafka.kafka.brokerjars import BrokerError
from mqkafka.kafka.localbroker import LocalBroker

# Hypothesis's per-example deadline and too-slow check are timing assertions: on a loaded
# machine (make test runs three workers beside Kafka) they failed tests whose code was right.
settings.register_profile("mqk", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("mqk")

# The brokers tests start (the session's, a module's own, mqk's) run on the C1 compiler only
# (KAFKA_OPTS, as Kafka's scripts take it): a start takes half the time and CPU on two cores,
# and a test broker lives minutes, too short for C2's faster code to pay for its compiling.
os.environ.setdefault("KAFKA_OPTS", "-XX:TieredStopAtLevel=1")


# make test's --dist loadfile hands files to its workers in collection order (with
# --no-loadscope-reorder: xdist's default order, most tests first, put these minutes-long files
# of few tests last, and one worker ran them alone at the end): the longest first (clean-clone
# durations), then the other integration files, then the unit tests, which fill the gaps.
LONGEST_FIRST = (
    "tests/integration/faust/test_faust_service_resilience.py",
    "tests/integration/faust/test_faust_kafka_restart.py",
    "tests/integration/service/test_service_resilience.py",
    "tests/integration/service/test_kafka_restart.py",
    "tests/integration/pipeline/test_cli.py",
    "tests/integration/service/test_readme_examples.py",
    "tests/integration/channel/test_channel_jms.py",
    "tests/integration/cluster/test_replicated_cluster.py",
    "tests/integration/faust/test_faust_service_scaleout.py",
    "tests/integration/service/test_service_scaleout.py",
    "tests/integration/pipeline/test_stream_job.py",
    "tests/integration/faust/test_faust_runtime_differential.py",
    "tests/integration/test_cli_local_broker.py",
    "tests/integration/pipeline/test_stream_restart.py",
    "tests/integration/service/test_service_takeover.py",
    "tests/integration/faust/test_faust_service_takeover.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        if path in LONGEST_FIRST:
            return LONGEST_FIRST.index(path)
        return len(LONGEST_FIRST) + (0 if path.startswith("tests/integration/") else 1)

    items.sort(key=rank)  # stable: a file's tests keep their order


@pytest.fixture(scope="session")
def kafka_bootstrap(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    external = os.environ.get("MQK_TEST_BOOTSTRAP_SERVERS")
    if external:
        yield external
        return
    if os.environ.get("MQK_TEST_KAFKA") == "testcontainers":
        from testcontainers.kafka import KafkaContainer

        with KafkaContainer("apache/kafka:4.2.0").with_kraft() as container:
            yield container.get_bootstrap_server()
        return
    broker = LocalBroker(tmp_path_factory.mktemp("kafka-home"), heap="1g")
    try:
        info = broker.start(timeout=180)
    except BrokerError as error:
        broker.stop()
        pytest.fail(f"the test Kafka broker could not start:\n{error}", pytrace=False)
    try:
        yield info.bootstrap
    finally:
        broker.stop()


@pytest.fixture
def new_topic(kafka_bootstrap: str) -> Callable[..., str]:
    """Create a fresh uniquely named topic: ``new_topic(partitions=1, **config)``."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})

    def create(partitions: int = 1, prefix: str = "t", **config: str) -> str:
        name = f"{prefix}-{uuid.uuid4().hex[:12]}"
        topic = NewTopic(
            name, partitions, 1, config={k.replace("_", "."): v for k, v in config.items()}
        )
        admin.create_topics([topic], operation_timeout=30)[name].result()
        return name

    return create
