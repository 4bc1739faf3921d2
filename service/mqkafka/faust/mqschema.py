"""MQ messages on Kafka as Faust values: a Faust :class:`MQSchema` that turns a subscriber
queue's records into :class:`Publication` values (MQMD from the ``mqmd.*`` headers, the MQRFH2
``<psc>`` and ``<usr>`` folders, the body), and the reverse for what an app puts.

The decoding is the product's own (``mqkafka.wire.headers``, ``mqkafka.mq.message``): one RFH2
parser for the service, the MQI and Faust. Faust's codecs see only the value's bytes, while the
MQMD (and so the RFH2's byte order) is in the headers: hence a schema, which sees the record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import faust
from faust.exceptions import ValueDecodeError

from mqkafka.mq.errors import MQError
from mqkafka.mq.folders import parse_folder, typed_value
from mqkafka.mq.message import decode_message
from mqkafka.mq.mqmd import MQFMT_RF_HEADER_1, MQFMT_RF_HEADER_2, MQMD
from mqkafka.wire.headers import KafkaHeader, mqmd_from_headers, mqmd_to_headers
from mqkafka.wire.kafkanative import has_psc, properties_folder, psc_pairs


@dataclass(frozen=True)
class Publication:
    """One message got from a queue: a delivered publication, or any MQ message put there.

    ``topics`` are the ``<psc>`` Topic values (empty for a message that is not a publication);
    ``properties`` are the ``<usr>`` folder's, typed by their ``dt``; ``psc`` is every
    ``<psc>`` pair in order; ``headers`` are the record's headers that are not MQMD fields
    (kept, as the wire contract asks, for forwarding); ``value`` is the whole record value
    (MQRFH2 and body, as MQGET returns it)."""

    md: MQMD
    body: bytes
    topics: tuple[str, ...] = ()
    properties: Mapping[str, object] = field(default_factory=dict)
    psc: tuple[tuple[str, str], ...] = ()
    headers: tuple[KafkaHeader, ...] = ()
    value: bytes = field(default=b"", repr=False)

    @property
    def topic(self) -> str | None:
        return self.topics[0] if self.topics else None

    @property
    def retained(self) -> bool:
        """A retained copy (``PubOpt IsRetainedPub``: subscribers with InformIfRet get it)."""
        return ("PubOpt", "IsRetainedPub") in self.psc

    @property
    def correl_id(self) -> bytes:
        return self.md.CorrelId


def decode_publication(value: bytes | None, headers: Sequence[KafkaHeader] | None) -> Publication:
    """The record's MQ message; :class:`MQError` (with its reason code) when it is malformed."""
    md, others = mqmd_from_headers(list(headers) if headers else None)
    data = value or b""
    if md.Format not in (MQFMT_RF_HEADER_2, MQFMT_RF_HEADER_1):
        if has_psc(others):  # a Kafka-native queue's (issue 37): <psc> and <usr> in headers
            return _native_publication(md, data, others)
        return Publication(md, data, headers=tuple(others), value=data)
    message = decode_message(data, md)
    psc = message.psc()
    pairs = tuple(psc.pairs()) if psc is not None else ()
    return Publication(
        md=md,
        body=message.body,
        topics=tuple(value for name, value in pairs if name == "Topic"),
        properties=message.usr_properties(),
        psc=pairs,
        headers=tuple(others),
        value=data,
    )


def _native_publication(md: MQMD, data: bytes, others: list[KafkaHeader]) -> Publication:
    pairs = tuple(psc_pairs(others))
    usr = properties_folder(others)
    leaves = parse_folder(usr).leaves() if usr is not None else []
    return Publication(
        md=md,
        body=data,
        topics=tuple(value for name, value in pairs if name == "Topic"),
        properties={path: typed_value(element) for element, path in leaves},
        psc=pairs,
        headers=tuple(others),
        value=data,
    )


def encode_record(md: MQMD, value: bytes) -> tuple[bytes, list[tuple[str, bytes]]]:
    """What an app puts: the value as MQGET would return it, the MQMD as headers."""
    return value, mqmd_to_headers(md)


def _header_pairs(headers: Any) -> list[KafkaHeader]:
    if headers is None:
        return []
    items = headers.items() if isinstance(headers, Mapping) else headers
    return [(str(name), None if raw is None else bytes(raw)) for name, raw in items]


class MQSchema(faust.Schema):  # type: ignore[misc]
    """Keys and values as raw bytes on the wire; a value read becomes a :class:`Publication`.

    A record that is no valid MQ message raises Faust's ``ValueDecodeError`` naming the MQ
    reason, which Faust logs in one line and skips: one bad record never stops an agent."""

    def __init__(self) -> None:
        super().__init__(key_serializer="raw", value_serializer="raw")

    def loads_value(self, app: Any, message: Any, **_: Any) -> Publication:
        try:
            return decode_publication(message.value, _header_pairs(message.headers))
        except MQError as error:
            raise ValueDecodeError(
                f"{message.topic}[{message.partition}]@{message.offset}: not an MQ message "
                f"(reason {int(error.reason)}: {error.detail})"
            ) from None


__all__ = ["MQSchema", "Publication", "decode_publication", "encode_record"]
