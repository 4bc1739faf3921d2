"""The service suite's test_operator_queues.py on ``--runtime faust`` (servicesuite.py)."""

from tests.integration.faust.servicesuite import on_faust
from tests.integration.service import test_operator_queues

globals().update(on_faust(test_operator_queues))
