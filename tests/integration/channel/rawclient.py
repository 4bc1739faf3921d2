"""A minimal client side of the channel protocol, built from the listener's own codec, for
what IBM's client cannot be made to do on purpose (drop its socket in a unit of work)."""

from __future__ import annotations

import socket
import ssl
import struct

from mqkafka.channel.codec import initial, spi, verbs
from mqkafka.channel.codec.mqstructs import (
    GMO_KIND,
    OD_KIND,
    PMO_KIND,
    md_bytes,
    new_struct,
    parse_md,
    parse_struct,
)
from mqkafka.channel.codec.segments import Flags1, Header, SegType, parse_header, split
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.rules.structs import MD
from tests.unit.channel.observed import client_initial_data

BIG = ">"


class RawClient:
    def __init__(self, port: int, tls: ssl.SSLContext | None = None, user: str = "RAWTEST") -> None:
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock = tls.wrap_socket(sock, server_hostname="localhost") if tls else sock
        self.sock.sendall(client_initial_data())
        self._read()
        uid = initial.user_segment(user)
        self.sock.sendall(Header(SegType.USERID_DATA, length=28 + len(uid)).to_bytes() + uid)

    def _read(self) -> tuple[Header, bytes]:
        parts, first = [], None
        while True:
            head = self._exactly(8)
            segment = head + self._exactly(int.from_bytes(head[4:8], "big") - 8)
            header = parse_header(segment)
            if header.seg_type == SegType.HEARTBEAT:  # the listener's, during a slow verb
                if header.flags1 & Flags1.CONFIRM_REQUEST:
                    self.sock.sendall(Header(SegType.HEARTBEAT).to_bytes())
                continue
            first = first or header
            parts.append(segment[header.size :])
            if header.flags1 & Flags1.LAST:
                return first, b"".join(parts)

    def _exactly(self, size: int) -> bytes:
        out = b""
        while len(out) < size:
            chunk = self.sock.recv(size - len(out))
            assert chunk, "the listener closed the connection"
            out += chunk
        return out

    def verb(self, seg_type: int, rest: bytes, hobj: int = 0) -> tuple[int, int, int, bytes]:
        body = verbs.ApiHeader(16 + len(rest), 0, 0, hobj).to_bytes(BIG) + rest
        for part in split(Header(seg_type), seg_type, body, 32_748):
            self.sock.sendall(part)
        _, reply = self._read()
        api, out = verbs.parse_api(reply, BIG)
        return api.comp, api.reason, api.hobj, out

    def conn(self) -> int:
        rest = b"QM1".ljust(48) + b"rawclient".ljust(28) + struct.pack(">i", 28) + bytes(40)
        return self.verb(SegType.MQCONN, rest)[1]

    def open(self, name: str, options: int) -> int:
        reason, hobj, _ = self.open_od(name, options)
        assert reason == 0, reason
        return hobj

    def open_od(self, name: str, options: int, object_type: int = C.MQOT_Q) -> tuple[int, int, str]:
        """MQOPEN with an MQOD v2: (reason, hobj, the object name the reply's MQOD gives)."""
        od = new_struct(OD_KIND, 2, BIG, ObjectName=name.encode(), ObjectType=object_type)
        _, reason, hobj, out = self.verb(
            SegType.MQOPEN, od.to_bytes(BIG) + struct.pack(">i", options)
        )
        given = parse_struct(OD_KIND, out, BIG)["ObjectName"]
        assert isinstance(given, bytes)
        return reason, hobj, given.rstrip(b" \0").decode()

    def close(self, hobj: int, options: int = 0) -> int:
        return self.verb(SegType.MQCLOSE, struct.pack(">i", options), hobj)[1]

    def inq(
        self, hobj: int, selectors: tuple[int, ...], ints: int, chars: int
    ) -> tuple[int, tuple[int, ...], bytes]:
        """MQINQ: (reason, integer values, character values)."""
        request = verbs.InqRequest(selectors, ints, chars)
        _, reason, _, out = self.verb(SegType.MQINQ, verbs.inq_bytes(request, BIG), hobj)
        answer = verbs.parse_inq(out, BIG, with_values=True)
        return reason, answer.ints, answer.chars

    def get_options(self, hobj: int, options: int, buffer: int) -> tuple[int, int, bytes]:
        """MQGET: (reason, the data-length field, the data bytes that came)."""
        md = md_bytes(MD(), BIG, 2)
        gmo = new_struct(GMO_KIND, 3, BIG, Options=options, WaitInterval=5_000)
        rest = md + gmo.to_bytes(BIG) + struct.pack(">i", buffer)
        _, reason, _, out = self.verb(SegType.MQGET, rest, hobj)
        length = struct.unpack_from(">i", out, 364 + 100)[0]
        return reason, length, out[364 + 100 + 4 :]

    def put(self, hobj: int, data: bytes, options: int, md_in: MD | None = None) -> int:
        md = md_bytes(md_in or MD(Format=b"MQSTR"), BIG, 2)
        pmo = new_struct(PMO_KIND, 2, BIG, Options=options).to_bytes(BIG)
        rest = md + pmo + struct.pack(">i", len(data)) + data
        return self.verb(SegType.MQPUT, rest, hobj)[1]

    def get(self, hobj: int, wait_ms: int, buffer: int = 4096) -> tuple[int, bytes]:
        """MQGET with wait: (reason, data)."""
        md = md_bytes(MD(), BIG, 2)
        options = C.MQGMO_WAIT | C.MQGMO_NO_SYNCPOINT
        gmo = new_struct(GMO_KIND, 3, BIG, Options=options, WaitInterval=wait_ms)
        rest = md + gmo.to_bytes(BIG) + struct.pack(">i", buffer)
        _, reason, _, out = self.verb(SegType.MQGET, rest, hobj)
        length = struct.unpack_from(">i", out, 364 + 100)[0]
        return reason, out[364 + 100 + 4 :][:length]

    def spi_put(self, hobj: int, data: bytes, sppi_options: int, pmo_options: int) -> MD:
        md = md_bytes(MD(Format=b"MQSTR"), BIG, 2)
        pmo = new_struct(PMO_KIND, 1, BIG, Options=pmo_options).to_bytes(BIG)
        sppu = spi.spi_struct(b"SPPU", BIG, md + pmo)
        sppi = spi.spi_struct(b"SPPI", BIG, struct.pack(">ii", sppi_options, len(data)))
        head = struct.pack(">iii", spi.SPI_PUT, 1, 12)
        comp, reason, _, out = self.verb(SegType.SPI, head + sppu + sppi + data, hobj)
        assert comp == 0, reason
        return parse_md(out, BIG, 12 + 12)[0]

    def spi_activate(self, hobj: int, msg_id: bytes) -> int:
        names = b"LOST.Q".ljust(48) + b"QM1".ljust(48)
        spai = spi.spi_struct(
            b"SPAI", BIG, struct.pack(">i", spi.ACTIVATE_DISABLE) + names + msg_id
        )
        head = struct.pack(">iii", spi.SPI_ACTIVATE, 1, 12)
        return self.verb(SegType.SPI, head + spi.spi_struct(b"SPAU", BIG) + spai, hobj)[1]

    def drop(self) -> None:
        """Lose the connection: no MQDISC, no closing STATUS."""
        self.sock.close()
