"""The operator's ACL file read from disk: the engine parses rules from text and reads no files."""

from __future__ import annotations

from pathlib import Path

from mqkafka.engine.authority import AclError, AclPolicy


def load_acl_policy(path: str | Path) -> AclPolicy:
    """The rules of the file at ``path``; an ``AclError`` of one line if it cannot be read."""
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise AclError(f"{path}: cannot read: {error.strerror or error}") from None
    try:
        text = raw.decode("utf-8-sig")  # a BOM, as some editors write, is not a rule
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise AclError(
            f"{path}:{line}: not UTF-8 text (byte {error.object[error.start]:#04x})"
        ) from None
    return AclPolicy.parse(text, str(path))
