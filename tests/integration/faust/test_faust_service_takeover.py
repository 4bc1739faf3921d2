"""The service suite's test_service_takeover.py on ``--runtime faust`` (servicesuite.py)."""

from tests.integration.faust.servicesuite import on_faust
from tests.integration.service import test_service_takeover

globals().update(on_faust(test_service_takeover))
