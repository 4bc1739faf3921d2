"""MQDLH, the dead-letter header (MQ's cmqc.h layout, version 1, 172 bytes).

A message that cannot be processed or delivered goes to SYSTEM.DEAD.LETTER.QUEUE as MQ puts
it there: the MQDLH, then the original message data; the MQMD Format becomes ``MQDEAD  `` and
the header's own Encoding / CodedCharSetId / Format describe the original data, so a
dead-letter handler can restore it.

| offset | field | type |
|---|---|---|
| 0 | StrucId ``DLH `` | 4 chars |
| 4 | Version 1 | int32 |
| 8 | Reason | int32 |
| 12 | DestQName | 48 chars |
| 60 | DestQMgrName | 48 chars |
| 108 | Encoding | int32 |
| 112 | CodedCharSetId | int32 |
| 116 | Format | 8 chars |
| 124 | PutApplType | int32 |
| 128 | PutApplName | 28 chars |
| 156 | PutDate | 8 chars |
| 164 | PutTime | 8 chars |
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from mqkafka.mq.errors import MQError
from mqkafka.mq.mqmd import is_big_endian
from mqkafka.mq.reasons import RC

MQFMT_DEAD_LETTER_HEADER = "MQDEAD  "
MQDLH_LENGTH = 172
_LAYOUT = {order: struct.Struct(order + "4sii48s48sii8si28s8s8s") for order in "<>"}


@dataclass(frozen=True, slots=True)
class DeadLetterHeader:
    reason: int
    dest_q_name: str
    dest_q_mgr_name: str = ""
    encoding: int = 546
    ccsid: int = 1208
    format: str = "        "
    put_appl_type: int = 26  # MQAT_BROKER
    put_appl_name: str = ""
    put_date: str = ""
    put_time: str = ""

    def encode(self, encoding: int = 546) -> bytes:
        """The 172 header bytes, integers in ``encoding`` (that of the MQMD before it)."""
        order = ">" if is_big_endian(encoding) else "<"
        return _LAYOUT[order].pack(
            b"DLH ",
            1,
            self.reason,
            _fixed(self.dest_q_name, 48),
            _fixed(self.dest_q_mgr_name, 48),
            self.encoding,
            self.ccsid,
            _fixed(self.format, 8),
            self.put_appl_type,
            _fixed(self.put_appl_name, 28),
            _fixed(self.put_date, 8),
            _fixed(self.put_time, 8),
        )


def decode_dlh(data: bytes, encoding: int = 546) -> tuple[DeadLetterHeader, bytes]:
    """The header and the original message data after it."""
    order = ">" if is_big_endian(encoding) else "<"
    if len(data) < MQDLH_LENGTH:
        raise MQError(RC.FORMAT_ERROR, "shorter than an MQDLH")
    fields = _LAYOUT[order].unpack_from(data)
    if fields[0] != b"DLH " or fields[1] != 1:
        raise MQError(RC.FORMAT_ERROR, "not an MQDLH version 1")
    text = [f.decode("utf-8", "replace").rstrip(" \x00") for f in (fields[3], fields[4])]
    header = DeadLetterHeader(
        reason=fields[2],
        dest_q_name=text[0],
        dest_q_mgr_name=text[1],
        encoding=fields[5],
        ccsid=fields[6],
        format=fields[7].decode("ascii", "replace"),
        put_appl_type=fields[8],
        put_appl_name=fields[9].decode("utf-8", "replace").rstrip(" \x00"),
        put_date=fields[10].decode("ascii", "replace").rstrip(),
        put_time=fields[11].decode("ascii", "replace").rstrip(),
    )
    return header, data[MQDLH_LENGTH:]


def _fixed(text: str, size: int) -> bytes:
    return text.encode("utf-8")[:size].ljust(size, b" ")
