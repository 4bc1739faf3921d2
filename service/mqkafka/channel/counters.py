"""One connection's counters, as DISPLAY CHSTATUS shows a server-connection channel's: MQI
calls (MSGS), messages put and got, bytes sent and received on the socket (BYTSSENT,
BYTSRCVD), the last call and when (LSTMSGDA, LSTMSGTI).

Only the connection's own thread adds to them (plain int additions, nothing locked); the
heartbeat thread adds its few bytes under the connection's send lock and reads them for the
status file, whose figures may so lag by a call: what an operator's look needs. Their cost,
measured with timeit on the 2-core VM: ~0.24 us a call counted (an MQPUT's round trip through
the listener is ~100 us), ~20 ns a socket read or write."""

from __future__ import annotations

import struct
import time
from dataclasses import dataclass

from mqkafka.channel.codec.segments import SegType

MQCC_FAILED = 2
MQRC_TRUNCATED_MSG_FAILED = 2080  # a warning, yet nothing got: the message stays
MQGET = int(SegType.MQGET)  # plain ints: an IntEnum's comparisons cost more
PUTS = frozenset({int(SegType.MQPUT), int(SegType.MQPUT1)})
MESSAGE_VERBS = PUTS | {MQGET}
VERB_NAMES = {int(t): t.name for t in SegType if t >= SegType.MQCONN}
_CC_RC = struct.Struct(">ii"), struct.Struct("<ii")


@dataclass
class ChannelCounters:
    calls: int = 0  # MQI calls answered (CHSTATUS MSGS of a SVRCONN channel)
    puts: int = 0  # MQPUT and MQPUT1 that put a message
    gets: int = 0  # MQGET that returned one (a browse too, as MQ counts it)
    bytes_sent: int = 0
    bytes_received: int = 0
    last_verb: str = ""  # MQPUT, MQGET, ...
    last_time: float = 0.0  # epoch seconds; 0: no call yet

    def verb(self, seg_type: int, order: str, reply: bytes) -> None:
        """A call answered with ``reply`` (its API header: completion and reason codes)."""
        self.calls += 1
        self.last_verb = VERB_NAMES.get(seg_type) or f"{seg_type:#x}"
        self.last_time = time.time()
        if seg_type in MESSAGE_VERBS:
            comp, reason = _CC_RC[order == "<"].unpack_from(reply, 4)
            if comp == MQCC_FAILED or reason == MQRC_TRUNCATED_MSG_FAILED:
                return
            if seg_type == MQGET:
                self.gets += 1
            else:
                self.puts += 1

    def key(self) -> tuple[int, int, int]:
        """What changes when anything does: the status is written again then."""
        return self.calls, self.bytes_sent, self.bytes_received


__all__ = ["ChannelCounters"]
