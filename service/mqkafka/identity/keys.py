"""Identity keys: one line per user, ``USER KEY [set-identity]``.

The service reads a file of every user's line (``mqk serve --identity-keys FILE``); each user
holds a file of their own line only (``MQK_IDENTITY_FILE``, or ``mqk.identity.file`` in the
client properties). KEY is at least 16 random bytes in base64 (``openssl rand -base64 32``).
``set-identity`` on a user's own line tells its clients to keep the UserIdentifier the
application sets instead of putting the user's own (the service still decides, by the ACL's
``setid`` rules, whether the claim is accepted). ``#`` starts a comment line.
"""

from __future__ import annotations

import base64
import binascii
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

SET_IDENTITY = "set-identity"
MIN_KEY_BYTES = 16
_USER = re.compile(r"[^\s#]{1,12}")  # MQ_USER_ID_LENGTH: 12


class IdentityError(ValueError):
    """A key file that cannot be used: ``FILE:LINE: problem``, one line, never the key."""


@dataclass(frozen=True, repr=False)
class UserKey:
    user: str
    key: bytes
    set_identity: bool = False

    def __repr__(self) -> str:  # keys never reach a log
        return f"UserKey({self.user!r}, set_identity={self.set_identity})"

    def line(self) -> str:
        flag = f" {SET_IDENTITY}" if self.set_identity else ""
        return f"{self.user} {base64.b64encode(self.key).decode()}{flag}"


def new_key(user: str, *, set_identity: bool = False) -> UserKey:
    if not _USER.fullmatch(user):
        raise IdentityError(f"userid {user!r}: 1 to 12 characters, no blanks or #")
    return UserKey(user, secrets.token_bytes(32), set_identity)


def parse_keys(text: str, source: str = "keys") -> dict[str, UserKey]:
    found: dict[str, UserKey] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        words = line.split()
        where = f"{source}:{number}"
        if len(words) not in (2, 3) or (len(words) == 3 and words[2] != SET_IDENTITY):
            raise IdentityError(f"{where}: a line is 'USER KEY [{SET_IDENTITY}]'")
        user, encoded = words[0], words[1]
        if not _USER.fullmatch(user):
            raise IdentityError(f"{where}: userid {user[:20]!r}: 1 to 12 characters")
        try:
            key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
        except (binascii.Error, ValueError):
            raise IdentityError(f"{where}: the key of {user!r} is not base64") from None
        if len(key) < MIN_KEY_BYTES:
            raise IdentityError(f"{where}: the key of {user!r} is under {MIN_KEY_BYTES} bytes")
        if user in found:
            raise IdentityError(f"{where}: {user!r} has a key already")
        found[user] = UserKey(user, key, len(words) == 3)
    return found


def load_keys(path: str | Path) -> dict[str, UserKey]:
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as error:
        raise IdentityError(f"{path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise IdentityError(f"{path}: not UTF-8 text") from None
    return parse_keys(text, str(path))


def load_own_key(path: str | Path) -> UserKey:
    """A user's own file: exactly one key."""
    keys = load_keys(path)
    if len(keys) != 1:
        raise IdentityError(f"{path}: a user's identity file holds one line, not {len(keys)}")
    return next(iter(keys.values()))


__all__ = [
    "SET_IDENTITY",
    "IdentityError",
    "UserKey",
    "load_keys",
    "load_own_key",
    "new_key",
    "parse_keys",
]
