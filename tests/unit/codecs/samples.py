"""Byte-exact sample messages shared by the codec tests."""

from __future__ import annotations

import struct

WORKED_FOLDER = (
    "<psc><Command>RegSub</Command><Topic>Sport/Soccer/#</Topic><RegOpt>CorrelAsId</RegOpt></psc>"
)
WORKED_HEADER_HEX = (
    "52464820 02000000 84000000 22020000 b8040000 2020202020202020 00000000 b8040000 5c000000"
)
WORKED_BYTES = bytes.fromhex(WORKED_HEADER_HEX.replace(" ", "")) + WORKED_FOLDER.encode()


# Reconstruction of pymqi tests/messages/single_rfh2.dat from its test's assertions: big-endian
# (273), CCSID 1208, Format MQSTR, StrucLength 284, three space-padded folders (152, 56, 28
# bytes), 333 bytes in all. The 49 body bytes are made up (the test does not show them).
PYMQI_PSC = (
    "<psc><Command>RegSub</Command><Topic>$topictree/topiccat/topic</Topic>"
    "<QMgrName>DebugQM</QMgrName><QName>PUBOUT</QName><RegOpt>PersAsPub</RegOpt></psc>"
)
PYMQI_TEST_FOLDER = "<testFolder><testVar>testValue</testVar></testFolder>"
PYMQI_MCD = "<mcd><Msd>xmlnsc</Msd></mcd>"
PYMQI_BODY = b"<Msg><text>pymqi single_rfh2 sample</text></Msg>\n"


def pymqi_single_rfh2() -> bytes:
    folders = b"".join(
        struct.pack(">i", len(padded)) + padded
        for padded in (
            PYMQI_PSC.encode() + b" ",
            PYMQI_TEST_FOLDER.encode() + b"   ",
            PYMQI_MCD.encode(),
        )
    )
    fixed = struct.pack(">4siiii8sii", b"RFH ", 2, 284, 273, 1208, b"MQSTR   ", 0, 1208)
    return fixed + folders + PYMQI_BODY
