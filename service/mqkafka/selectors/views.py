"""``DictMessageView``: a MessageView built from plain values, for tests and simple callers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from mqkafka.mq.errors import MQError
from mqkafka.mq.reasons import RC

# The Python types a ``usr`` property can have once its ``dt`` is applied (ports.MessageView).
PROPERTY_TYPES = (str, int, float, bool, bytes, type(None))


def _frozen(mapping: Mapping[str, object]) -> Mapping[str, object]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True, slots=True, weakref_slot=True)
class DictMessageView:
    """A publication as plain values; validated and frozen when built.

    ``DictMessageView(properties={"colour": "red"}, mqmd_fields={"Priority": 5},
    body=b'{"Score": {"Home": 3}}')``
    """

    properties: Mapping[str, object] = field(default_factory=dict)
    mqmd_fields: Mapping[str, object] = field(default_factory=dict)
    body: bytes = b""
    body_format: str = ""
    msd: str | None = None

    def __post_init__(self) -> None:
        for name, value in self.properties.items():
            if not isinstance(name, str) or not name:
                raise MQError(RC.RFH_ERROR, f"property name must be non-empty text: {name!r}")
            if not isinstance(value, PROPERTY_TYPES):
                raise MQError(
                    RC.RFH_ERROR, f"property {name!r} has unsupported type {type(value).__name__}"
                )
        for name in self.mqmd_fields:
            if not isinstance(name, str):
                raise MQError(RC.MD_ERROR, f"MQMD field name must be text: {name!r}")
        if not isinstance(self.body, bytes):
            raise MQError(RC.FORMAT_ERROR, "body must be bytes")
        object.__setattr__(self, "properties", _frozen(self.properties))
        object.__setattr__(self, "mqmd_fields", _frozen(self.mqmd_fields))
