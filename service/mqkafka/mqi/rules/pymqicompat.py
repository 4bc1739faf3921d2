"""pymqi's module-level names that programs and test suites read besides the MQI itself:
the release and build markers, its bytes/str helpers and its queue-argument helpers.

``__mqbuild__`` is ``"client"``: every connection here is a client connection (to Kafka), so
code that branches on it (``if pymqi.__mqbuild__ == "server": QueueManager(name)``) takes
the client branch and connects with ``connect_tcp_client``, as against a remote MQ.
"""

from __future__ import annotations

from typing import Any

from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules.structs import MD, OD

PYMQI_VERSION = "1.12.10"  # the pymqi release whose API this follows
# The MQ command levels pymqi reports a client library for (programs test "7.0" in it).
MQ_LEVELS = (
    "5.0", "5.1", "5.2", "5.3", "6.0", "7.0", "7.1", "7.5", "8.0", "8.0.0", "9.0", "9.1",
    "9.2", "9.3", "9.4",
)  # fmt: skip
MQ_BUILD = "client"


class default:  # pymqi spells it in lower case
    """pymqi's defaults for str messages and structure encodings."""

    bytes_encoding = "utf8"
    ccsid = 1208
    encoding = C.MQENC_NATIVE


def is_unicode(value: object) -> bool:
    return isinstance(value, str)


def ensure_not_unicode(value: object) -> None:
    if isinstance(value, str):
        raise TypeError(
            f"Python 3 style string (unicode) found but not allowed here: `{value}`. "
            "Convert to bytes."
        )


def ensure_bytes(value: Any, encoding: str = "ascii") -> Any:
    return value.encode(encoding) if isinstance(value, str) else value


def py23long(value: int) -> int:
    return value


def padded_count(count: int, boundary: int = 4) -> int:
    """``count`` rounded up to a multiple of ``boundary`` (a power of two)."""
    return count + ((boundary - count & (boundary - 1)) & (boundary - 1))


def make_q_desc(q_desc: OD | str | bytes) -> OD:
    """An OD for a queue name, or the OD given (pymqi's helper)."""
    if isinstance(q_desc, str | bytes):
        return OD(ObjectName=q_desc)
    return q_desc


def common_q_args(*opts: Any) -> tuple[MD, Any]:
    """pymqi's (MD, options structure) from put/get's ``*opts``: a new MD when none."""
    if len(opts) > 2:
        raise TypeError("Too many args")
    md = opts[0] if opts and opts[0] is not None else MD()
    return md, opts[1] if len(opts) == 2 else None


makeQDesc, commonQArgs = make_q_desc, common_q_args  # pymqi's old names

__all__ = [
    "MQ_BUILD",
    "MQ_LEVELS",
    "PYMQI_VERSION",
    "commonQArgs",
    "common_q_args",
    "default",
    "ensure_bytes",
    "ensure_not_unicode",
    "is_unicode",
    "makeQDesc",
    "make_q_desc",
    "padded_count",
    "py23long",
]
