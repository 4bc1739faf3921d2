"""The signature headers (version 1) and how they are computed.

A signed record carries two headers besides the MQMD's:

| header          | value                                                        |
|-----------------|--------------------------------------------------------------|
| ``mqk.Signer``  | the userid whose key signed (UTF-8)                          |
| ``mqk.Signature`` | ``1:<unix time in ms>:<HMAC-SHA256, 64 hex digits>``       |

The HMAC, keyed with the signer's key, is over the UTF-8 text::

    mqk-signature-1\n<signer>\n<time ms>\n<Kafka topic>\n<SHA-256 of the value, hex>\n
    <name>=<value as hex>\n  for each mqmd.* header, sorted by name

So the userid claimed (``mqmd.UserIdentifier``), the MsgId, the ReplyToQ, every other MQMD
field, the destination and the body are all covered: none can be changed, nor the record sent
to another queue, without the key. A MsgId is required (the replay guard remembers it).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence

SIGNER = "mqk.Signer"
SIGNATURE = "mqk.Signature"
VERSION = "1"
MSG_ID = "mqmd.MsgId"
USER_IDENTIFIER = "mqmd.UserIdentifier"

Header = tuple[str, bytes]


def as_bytes(value: str | bytes | None) -> bytes:
    if value is None:
        return b""
    return value.encode() if isinstance(value, str) else bytes(value)


def signed_text(
    signer: str, time_ms: int, topic: str, value: bytes, headers: Iterable[Header]
) -> bytes:
    mqmd = sorted((n, v) for n, v in headers if n.startswith("mqmd."))
    parts = [
        "mqk-signature-1",
        signer,
        str(time_ms),
        topic,
        hashlib.sha256(value).hexdigest(),
        *(f"{name}={v.hex()}" for name, v in mqmd),
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
    "SIGNATURE",
    "SIGNER",
    "USER_IDENTIFIER",
    "as_bytes",
    "mac",
    "signature_headers",
    "signed_text",
]
