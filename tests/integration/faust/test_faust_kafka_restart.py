"""The service suite's test_kafka_restart.py on ``--runtime faust`` (servicesuite.py)."""

from tests.integration.faust.servicesuite import on_faust
from tests.integration.service import test_kafka_restart

globals().update(on_faust(test_kafka_restart))
