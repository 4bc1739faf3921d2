"""The service suite's test_large_messages.py on ``--runtime faust`` (servicesuite.py)."""

from tests.integration.faust.servicesuite import on_faust
from tests.integration.service import test_large_messages

globals().update(on_faust(test_large_messages))
