"""Kafka Connect fixtures: the MQI's module namespace and ``mqk serve`` (tests/integration/mqi)
for the Connect test module (issue 37)."""

from tests.integration.mqi.conftest import broker_service, connect, namespace, qmgr

__all__ = ["broker_service", "connect", "namespace", "qmgr"]
