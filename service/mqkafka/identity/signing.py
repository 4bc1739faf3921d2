"""The client's side: what a producer holding a user's key adds to each record it writes.

Like a queue manager putting for a connection, the signer's userid goes into
``mqmd.UserIdentifier`` (unless its key line says ``set-identity``: then the application's
claim is kept, and the service's ACL decides) and a record with MQMD headers but no MsgId gets
a new one (the replay guard needs it). Records without MQMD headers (the MQI's catalogue and
heartbeats) are signed as they are.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence

from mqkafka.identity.keys import UserKey
from mqkafka.identity.signature import (
    MSG_ID,
    SIGNATURE,
    SIGNER,
    USER_IDENTIFIER,
    Header,
    as_bytes,
    signature_headers,
)

_MSG_ID_PREFIX = b"MQKS"  # 4 + 12 random + 8 counter bytes, like the broker's own ids
_INSTANCE = os.urandom(12)
_counter = [0]


def _new_msg_id() -> bytes:
    _counter[0] += 1
    return _MSG_ID_PREFIX + _INSTANCE + _counter[0].to_bytes(8, "big")


def signed_headers(
    key: UserKey,
    topic: str,
    value: bytes | str | None,
    headers: Sequence[tuple[str, object]] | Mapping[str, object] | None,
    now: float | None = None,
) -> list[Header]:
    items = headers.items() if isinstance(headers, Mapping) else (headers or ())
    out: list[Header] = [
        (name, as_bytes(raw))  # type: ignore[arg-type]
        for name, raw in items
        if name not in (SIGNER, SIGNATURE)
    ]
    if any(name.startswith("mqmd.") for name, _ in out):
        if not key.set_identity:
            out = [h for h in out if h[0] != USER_IDENTIFIER]
            out.append((USER_IDENTIFIER, key.user.encode()))
        if not any(name == MSG_ID and any(v) for name, v in out):
            out = [h for h in out if h[0] != MSG_ID]
            out.append((MSG_ID, _new_msg_id()))
    time_ms = int((time.time() if now is None else now) * 1000)
    return out + signature_headers(key.user, key.key, time_ms, topic, as_bytes(value), out)


__all__ = ["signed_headers"]
