"""What IBM's 9.4.4 Java client sent to the probe (the protocol notes' transcripts), as
bytes to test the codec against."""

from __future__ import annotations

from pathlib import Path

NOTES = Path(__file__).resolve().parents[3].parent / "shared/design/mq-client-protocol"


def client_initial_data() -> bytes:
    """The client's first segment, 268 bytes (``transcripts/client-initial-data.hex``); the
    notes' copy is used when present, else the same bytes kept here."""
    path = NOTES / "transcripts/client-initial-data.hex"
    text = path.read_text() if path.exists() else _COPY
    out = bytearray()
    for line in text.splitlines():
        out += bytes.fromhex(line[6:53])  # offset, then 16 hex bytes, then ASCII
    return bytes(out)


_COPY = """\
0000  54 53 48 20 00 00 01 0c 01 01 31 00 00 00 00 00
0010  00 00 00 00 00 00 01 11 03 33 00 00 49 44 20 20
0020  11 26 00 00 00 00 00 00 00 00 7f ec 06 40 00 00
0030  00 00 00 00 44 45 56 2e 41 50 50 2e 53 56 52 43
0040  4f 4e 4e 20 20 20 20 20 51 00 03 33 51 4d 31 20
0050  20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20
0060  20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20
0070  20 20 20 20 20 20 20 20 20 20 20 20 00 00 00 01
0080  00 8a 00 00 00 ff 00 ff ff ff ff ff ff ff ff ff
0090  ff ff ff ff ff ff 00 00 00 00 00 00 00 00 00 0a
00a0  28 00 00 00 00 00 31 ca 00 00 00 01 00 00 00 01
00b0  4d 51 4a 42 30 39 30 34 30 34 30 30 43 41 4e 4e
00c0  45 44 5f 44 41 54 41 20 20 20 20 20 20 20 20 20
00d0  20 20 20 20 20 20 20 20 20 20 20 20 20 20 20 20
00e0  20 20 20 20 20 20 20 20 20 20 20 20 00 01 00 00
00f0  ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff
0100  8c 5f 3c 93 11 10 35 b0 d4 3a 68 21
"""
