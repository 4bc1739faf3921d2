"""The signature headers and how they are computed.

A signed record carries two headers besides the MQMD's:

| header          | value                                                        |
|-----------------|--------------------------------------------------------------|
| ``mqk.Signer``  | the userid whose key signed (UTF-8)                          |
| ``mqk.Signature`` | ``<version>:<unix time in ms>:<HMAC-SHA256, 64 hex digits>`` |

The HMAC, keyed with the signer's key, is over the UTF-8 text::

    mqk-signature-<version>\n<signer>\n<time ms>\n<Kafka topic>\n<SHA-256 of the value, hex>\n
    <name>=<value as hex>\n  for each signed header, sorted by name (then value)

Version 2 (what clients write) signs the ``mqmd.*``, ``mqprop.*``, ``mqtype.*`` and ``mqpsc.*``
headers: the userid claimed (``mqmd.UserIdentifier``), the MsgId, the ReplyToQ, every other
MQMD field, every message property and its type, a Kafka-native publication's command (its
topic, options: issue 37; an RFH2 command has none, so its text is as before), the
destination and the body; none can be changed, added or taken away, nor the record sent to
another queue, without the key. Version 1 (the
first clients, and raw producers following the README of the time) signed the ``mqmd.*``
headers only: it is still accepted, and its message properties and ``mqpsc.*`` headers, which
anyone could have added on the way, are taken off before the message is processed. A MsgId is
required (the replay guard remembers it).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence

SIGNER = "mqk.Signer"
SIGNATURE = "mqk.Signature"
VERSION = "2"  # what signature_headers writes
VERSIONS = frozenset({"1", VERSION})  # what the service accepts
MSG_ID = "mqmd.MsgId"
USER_IDENTIFIER = "mqmd.UserIdentifier"

Header = tuple[str, bytes]


def as_bytes(value: str | bytes | None) -> bytes:
    if value is None:
        return b""
    return value.encode() if isinstance(value, str) else bytes(value)


_SIGNED = {"1": ("mqmd.",), "2": ("mqmd.", "mqprop.", "mqtype.", "mqpsc.")}
# a message property and its MQRFH2 type, and a Kafka-native command: unsigned in version 1
PROPERTY_HEADERS = ("mqprop.", "mqtype.", "mqpsc.")


def signed_text(
    signer: str,
    time_ms: int,
    topic: str,
    value: bytes,
    headers: Iterable[Header],
    version: str = VERSION,
) -> bytes:
    signed = sorted((n, v) for n, v in headers if n.startswith(_SIGNED[version]))
    parts = [
        f"mqk-signature-{version}",
        signer,
        str(time_ms),
        topic,
        hashlib.sha256(value).hexdigest(),
        *(f"{name}={v.hex()}" for name, v in signed),
    ]
    return ("\n".join(parts) + "\n").encode()


def mac(key: bytes, text: bytes) -> str:
    return hmac.new(key, text, hashlib.sha256).hexdigest()


def signature_headers(
    signer: str, key: bytes, time_ms: int, topic: str, value: bytes, headers: Sequence[Header]
) -> list[Header]:
    """The two headers to add to a record with these (``mqmd.*`` and other) headers."""
    digest = mac(key, signed_text(signer, time_ms, topic, value, headers))
    return [(SIGNER, signer.encode()), (SIGNATURE, f"{VERSION}:{time_ms}:{digest}".encode())]


__all__ = [
    "MSG_ID",
    "PROPERTY_HEADERS",
    "SIGNATURE",
    "SIGNER",
    "USER_IDENTIFIER",
    "VERSION",
    "VERSIONS",
    "as_bytes",
    "mac",
    "signature_headers",
    "signed_text",
]
