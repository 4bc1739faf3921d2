"""The service's side: is this record signed by a known user, fresh, not seen before, and
may its signer claim the userid it names?

| check                                                  | refusal                           |
|--------------------------------------------------------|-----------------------------------|
| no ``mqk.Signer``/``mqk.Signature``, or either twice    | dead letter, MQRC_NOT_AUTHORIZED 2035 |
| signer without a key, signature malformed or wrong     | dead letter, 2035                 |
| signed outside the replay window (either way)          | dead letter, 2035                 |
| no MsgId, or (signer, MsgId) seen within the window    | dead letter, 2035                 |
| UserIdentifier another's, signer without ``setid``     | 3081 MQRCCF_NOT_AUTHORIZED, replied |

An unauthenticated record gets no reply (its ReplyToQ is as unproven as the rest of it). A
blank UserIdentifier becomes the signer's; the signature headers are taken off, so what the
engine sees (and what a subscriber receives) is the message as its sender put it. A version 1
signature covers the MQMD only: that message's properties (``mqprop.*``, ``mqtype.*``) are
taken off too, so a property added after signing never reaches a selector or a subscriber.

Replays are remembered per worker for the window; a MsgId counts as seen once the batch that
carried it is committed (an aborted batch is read again and must not be its own replay).
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mqkafka.engine.authority import AuthorityPort
from mqkafka.identity.keys import UserKey
from mqkafka.identity.signature import (
    MSG_ID,
    PROPERTY_HEADERS,
    SIGNATURE,
    SIGNER,
    USER_IDENTIFIER,
    VERSIONS,
    Header,
    as_bytes,
    mac,
    signed_text,
)
from mqkafka.mq.reasons import RC

DEFAULT_WINDOW = 300.0  # seconds a signature is good for, either side of the service's clock


@dataclass(frozen=True, slots=True)
class Verified:
    headers: list[Header]  # without the signature headers, UserIdentifier filled in
    signer: str


@dataclass(frozen=True, slots=True)
class Refused:
    reason: int
    detail: str
    # set when the signer is proven and only its claim is refused: the command is answered
    headers: list[Header] | None = None


class IdentityGuard:
    def __init__(
        self,
        keys: Mapping[str, UserKey],
        authority: AuthorityPort,
        window: float = DEFAULT_WINDOW,
    ) -> None:
        self._keys = {user: k.key for user, k in keys.items()}
        self._authority = authority
        self.window = window
        self._seen: dict[tuple[str, bytes], float] = {}
        self._pending: dict[tuple[str, bytes], float] = {}

    def check(
        self, topic: str, value: bytes, headers: Sequence[tuple[str, object]] | None, now: float
    ) -> Verified | Refused:
        signer_value: bytes | None = None
        signature: bytes | None = None
        rest: list[Header] = []
        twice = False
        for name, raw in headers or ():
            data = raw if type(raw) is bytes else as_bytes(raw)  # type: ignore[arg-type]
            if name == SIGNER:
                twice |= signer_value is not None
                signer_value = data
            elif name == SIGNATURE:
                twice |= signature is not None
                signature = data
            else:
                rest.append((name, data))
        if signer_value is None or signature is None:
            return _refused("no signature (identity assurance is on)")
        if twice:
            return _refused("a signature header twice")
        signer = signer_value.decode("utf-8", "replace")
        key = self._keys.get(signer)
        if key is None:
            return _refused(f"signer {signer[:20]!r} has no key")
        parts = signature.decode("ascii", "replace").split(":")
        if len(parts) != 3 or parts[0] not in VERSIONS or not parts[1].isdigit():
            return _refused("malformed mqk.Signature")
        time_ms = int(parts[1])
        if abs(now - time_ms / 1000.0) > self.window:
            return _refused(f"signed {now - time_ms / 1000.0:.0f} s from now: outside the window")
        expected = mac(key, signed_text(signer, time_ms, topic, value, rest, parts[0]))
        if not hmac.compare_digest(expected, parts[2]):
            return _refused(f"signature of {signer!r} does not match the message")
        if parts[0] == "1":  # signed the MQMD only: its properties are nobody's word
            rest = [h for h in rest if not h[0].startswith(PROPERTY_HEADERS)]
        msg_ids = [v for n, v in rest if n == MSG_ID]
        if len(msg_ids) != 1 or not any(msg_ids[0]):
            return _refused("a signed message needs one MsgId")
        seen = (signer, msg_ids[0])
        if seen in self._seen or seen in self._pending:
            return _refused(f"MsgId {msg_ids[0].hex()} of {signer!r} replayed")
        self._pending[seen] = now
        claims = [v for n, v in rest if n == USER_IDENTIFIER]
        claimed = claims[0].decode("utf-8", "replace").rstrip() if claims else ""
        if not claimed:
            return Verified([*rest, (USER_IDENTIFIER, signer.encode())], signer)
        if claimed != signer and not self._authority.may_set_identity(signer, claimed):
            as_signer = [h for h in rest if h[0] != USER_IDENTIFIER]
            as_signer.append((USER_IDENTIFIER, signer.encode()))
            detail = f"{signer!r} may not put messages as {claimed[:20]!r} (no setid authority)"
            return Refused(RC.CF_NOT_AUTHORIZED, detail, as_signer)
        return Verified(rest, signer)

    def committed(self) -> None:
        """The batch is written: its MsgIds are seen; those older than the window forgotten
        (a message signed that long ago is refused by its time alone)."""
        self._seen.update(self._pending)
        self._pending.clear()
        if not self._seen:
            return
        horizon = max(self._seen.values()) - 2 * self.window
        for seen, at in list(self._seen.items()):  # insertion order is time order
            if at >= horizon:
                break
            del self._seen[seen]

    def aborted(self) -> None:
        self._pending.clear()


def _refused(detail: str) -> Refused:
    return Refused(RC.NOT_AUTHORIZED, detail)


__all__ = ["DEFAULT_WINDOW", "IdentityGuard", "Refused", "Verified"]
