"""Asynchronous put (MQPMO_ASYNC_RESPONSE): IBM's client puts without waiting for an answer,
on a channel with conversations per socket 0 (``TSH``) as on one with 1 (``TSHM``).

What the 9.4 Java client does (observed against this listener):

- before its first async put it asks SPI RESERVE for a pool of *tags* (message ids), and
  makes each put's MsgId from the pool itself, so its MQPUT returns at once with the MsgId
  in the MQMD as a synchronous put would; it asks again when the pool is spent;
- each MQPUT (or MQPUT1) then flows with MQPMO_ASYNC_RESPONSE and **no reply** is sent: a
  reply makes the client fail (FFDC "Unexpected flow received from server", then 2195);
- ``getAsyncStatus()`` is MQSTAT of type MQSTAT_TYPE_ASYNC_ERROR: the first failure or
  warning since the last MQSTAT and the counts of successful, warned and failed puts, and
  the counts start again.

The listener does each async put as it reads it, in the connection's thread, so the puts
happen in the order sent, once each, before anything the client sends after them (an
MQCMIT, MQDISC, a get); only the answer is left out.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field, replace
from typing import Final

from mqkafka.channel.codec import spi
from mqkafka.channel.codec.mqstructs import OD_KIND, parse_struct
from mqkafka.channel.codec.segments import SegType
from mqkafka.channel.codec.stat import STAT_TYPE_ASYNC_ERROR, PutStatus
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.rules.structs import mqchars

TAGS_PER_RESERVE: Final = 1 << 16  # a pool per 65,536 puts: one more round trip each
# the client counts up the tag's 20th byte (offset 20, 1-based); it refuses a pool whose
# count would wrap, and it read bytes after that one into the count (a tag ending in 4
# random bytes was refused as wrapping, all zeros were not): the last 8 bytes start at zero
TAG_COUNTER_OFFSET: Final = 20
_MQPUT: Final = int(SegType.MQPUT)  # plain ints: an IntEnum comparison costs ~1 us a put
_MQPUT1: Final = int(SegType.MQPUT1)
_MD_V1: Final = 324
_MD_V2: Final = 364


def tag_pool(wanted: int) -> spi.Reservation:
    """A fresh pool: ``AMQ ``, 12 random bytes (each pool's own), 8 zero bytes counted up."""
    count = max(1, min(wanted, TAGS_PER_RESERVE))
    first = b"AMQ " + os.urandom(12) + bytes(8)
    return spi.Reservation(count, TAG_COUNTER_OFFSET, first)


def is_async_put(seg_type: int, rest: bytes, order: str) -> bool:
    """Whether an MQPUT or MQPUT1 body (after its API header) asks MQPMO_ASYNC_RESPONSE;
    read from the MQPMO's options without parsing the rest (a short body: False, and the
    put's own parsing says what is wrong)."""
    at = 0
    if seg_type == _MQPUT1:
        if len(rest) < 8:
            return False
        at = _od_size(struct.unpack_from(order + "i", rest, 4)[0])
    elif seg_type != _MQPUT:
        return False
    if len(rest) < at + 8:
        return False
    md_version = struct.unpack_from(order + "i", rest, at + 4)[0]
    at += _MD_V1 if md_version == 1 else _MD_V2
    if len(rest) < at + 12:
        return False
    options: int = struct.unpack_from(order + "i", rest, at + 8)[0]
    return options & C.MQPMO_ASYNC_RESPONSE != 0 and options & C.MQPMO_SYNC_RESPONSE == 0


def _od_size(version: int) -> int:
    return OD_KIND.size(version) if 1 <= version <= 4 else OD_KIND.size(1)


def put1_object(rest: bytes, order: str) -> str:
    """The queue an MQPUT1 names (for the status of a failed async put)."""
    od = parse_struct(OD_KIND, rest, order)
    name = od["ObjectName"]
    return mqchars(name) if isinstance(name, bytes) else ""


# the API header each outcome would have had, by byte order (the connection's counters read it)
_HEADERS: Final = {
    (order, failed): struct.pack(order + "Iiii", 16, 2 if failed else 0, 0, 0)
    for order in "<>"
    for failed in (False, True)
}


@dataclass
class AsyncPuts:
    """One connection's async put outcomes since its last MQSTAT (its own thread's alone:
    plain counts, as an async put's cost is the listener's throughput)."""

    last_failed: bool = False
    succeeded_count: int = 0
    _refused: PutStatus = field(default_factory=PutStatus)  # the first failure, the others

    def last_header(self, order: str) -> bytes:
        """The API header the last async put would have been answered with."""
        return _HEADERS[order, self.last_failed]

    def succeeded(self, count: int = 1) -> None:
        if count:
            self.last_failed = False
            self.succeeded_count += count

    def refused(self, comp: int, reason: int, queue: str, qmgr: str) -> None:
        """A put that failed (``comp`` 2) or warned (1); the first such is the one told."""
        self.last_failed = comp >= 2
        status = self._refused
        if comp >= 2:
            status = replace(status, failed=status.failed + 1)
        else:
            status = replace(status, warned=status.warned + 1)
        if status.comp == 0:
            status = replace(
                status, comp=comp, reason=reason, object_name=queue, object_qmgr=qmgr,
                resolved_name=queue, resolved_qmgr=qmgr,
            )  # fmt: skip
        self._refused = status

    def take(self, stat_type: int) -> PutStatus:
        """What MQSTAT of ``stat_type`` answers; the async error status starts again (a
        reconnection status is always empty: the listener's clients do not reconnect)."""
        if stat_type != STAT_TYPE_ASYNC_ERROR:
            return PutStatus(object_type=0)
        status = replace(self._refused, succeeded=self.succeeded_count)
        self._refused, self.succeeded_count = PutStatus(), 0
        return status


__all__ = [
    "TAGS_PER_RESERVE",
    "AsyncPuts",
    "is_async_put",
    "put1_object",
    "tag_pool",
]
