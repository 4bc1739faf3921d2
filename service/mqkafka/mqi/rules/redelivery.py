"""When a message goes back to its queue: BackoutCount, the delivery limit, expiry (pure).

Kafka counts deliveries of a share-group record and *archives* (drops) a record that is
released on its ``limit``-th delivery (broker setting ``group.share.delivery.count.limit``,
5 by default, range 2-10). An MQ message must never vanish that way, so a getter giving a
message back chooses how:

| delivery count | given back by | because |
|---|---|---|
| below ``limit - 1`` | RELEASE: offered again in its place | it keeps its order |
| ``limit - 1`` or more | REQUEUE: copy written, original accepted | a release may archive it |

(Requeueing one delivery early leaves a delivery of slack for a getter that crashes.)

A requeued copy goes to the back of the queue (like a message put again) and carries the
count so far in its ``mqmd.BackoutCount`` header.

**BackoutCount** (MD.BackoutCount on MQGET) is therefore ``delivery count - 1 + carried``:
the number of earlier deliveries of this message that ended without removing it. That is a
syncpoint MQGET backed out (MQ's meaning), and also what MQ cannot see: a getter that
crashed or held the message past its lock, and a getter that read the message ahead or
skipped it while looking for another MsgId/CorrelId (MQ would not count those two).

**Expiry** counts down in tenths of a second from the put (the record's timestamp); an
expired message is discarded at MQGET, as MQ does, and MD.Expiry reports what is left.
"""

from __future__ import annotations

from enum import Enum

from mqkafka.mqi.rules import cmqc as C

BACKOUT_HEADER = "mqmd.BackoutCount"
# Where a requeued copy came from ("partition:offset"): whoever reads the copy knows that
# record is gone, which a getter looking for it by MsgId/CorrelId could not see otherwise.
ORIGIN_HEADER = "mqk.origin"


class GiveBack(Enum):
    RELEASE = "release"
    REQUEUE = "requeue"


def give_back(delivery_count: int, limit: int) -> GiveBack:
    return GiveBack.REQUEUE if delivery_count >= limit - 1 else GiveBack.RELEASE


def backout_count(delivery_count: int | None, carried: int) -> int:
    """MD.BackoutCount of a delivery: earlier deliveries plus what a requeued copy carries."""
    earlier = (delivery_count or 1) - 1
    return max(earlier, 0) + max(carried, 0)


def requeue_headers(
    headers: list[tuple[str, bytes]], backout: int, origin: tuple[int, int]
) -> list[tuple[str, bytes]]:
    """The headers of a requeued copy: everything kept, BackoutCount and origin replaced."""
    kept = [(n, v) for n, v in headers if n not in (BACKOUT_HEADER, ORIGIN_HEADER)]
    if backout:
        kept.append((BACKOUT_HEADER, str(backout).encode()))
    kept.append((ORIGIN_HEADER, b"%d:%d" % origin))
    return kept


def origin_of(value: bytes | None) -> tuple[int, int] | None:
    """The position an origin header names, or None when it names none."""
    try:
        partition, offset = (value or b"").split(b":")
        return int(partition), int(offset)
    except ValueError:
        return None


def remaining_expiry(expiry: int, put_ms: int, now_ms: int) -> int | None:
    """MD.Expiry left (tenths of a second), -1 for unlimited, None once expired."""
    if expiry == C.MQEI_UNLIMITED or expiry <= 0:
        return expiry
    left = expiry - max(now_ms - put_ms, 0) // 100
    return left if left > 0 else None


__all__ = [
    "BACKOUT_HEADER",
    "ORIGIN_HEADER",
    "GiveBack",
    "backout_count",
    "give_back",
    "origin_of",
    "remaining_expiry",
    "requeue_headers",
]
