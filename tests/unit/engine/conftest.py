"""Fixtures for the engine tests: a fresh broker per test, in-process or over the wire."""

from __future__ import annotations

import pytest

from tests.unit.engine.driver import BrokerDriver


@pytest.fixture
def broker() -> BrokerDriver:
    return BrokerDriver()


@pytest.fixture(params=[False, True], ids=["in-process", "wire"])
def any_broker(request: pytest.FixtureRequest) -> BrokerDriver:
    """The same scenario through the engine directly and through the byte codec."""
    return BrokerDriver(wire=request.param)
