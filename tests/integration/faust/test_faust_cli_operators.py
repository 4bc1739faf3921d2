"""The service suite's test_cli_operators.py on ``--runtime faust`` (servicesuite.py)."""

from tests.integration.faust.servicesuite import on_faust
from tests.integration.service import test_cli_operators

globals().update(on_faust(test_cli_operators))
