"""What a client's MQPUT gives the MQI: the put response type is the channel's, so the MQI
gets the put a Python program makes (its templated put), and the reply gives the client
its own options back."""

from __future__ import annotations

import struct

import pytest

from mqkafka.channel.codec import verbs
from mqkafka.channel.codec.mqstructs import (
    MD_V2_LENGTH,
    PMO_KIND,
    md_bytes_fast,
    new_struct,
    parse_struct,
)
from mqkafka.channel.msgverbs import do_put, mqi_put_options
from mqkafka.mqi import CMQC as C
from mqkafka.mqi.rules.structs import MD, PMO

SYNC, ASYNC = C.MQPMO_SYNC_RESPONSE, C.MQPMO_ASYNC_RESPONSE
NO_SYNC = C.MQPMO_NO_SYNCPOINT


@pytest.mark.parametrize(
    ("client", "mqi"),
    [
        (NO_SYNC | SYNC, NO_SYNC),  # what the Java classes send after MQOPEN's FOPA said SYNC
        (NO_SYNC | ASYNC, NO_SYNC),
        (NO_SYNC, NO_SYNC),
        (C.MQPMO_SYNCPOINT | SYNC | C.MQPMO_NEW_MSG_ID, C.MQPMO_SYNCPOINT | C.MQPMO_NEW_MSG_ID),
        (SYNC | ASYNC, SYNC | ASYNC),  # both: left for the MQI's 2046
    ],
)
def test_the_mqi_gets_no_put_response_type(client: int, mqi: int) -> None:
    assert mqi_put_options(client) == mqi


class RecordingQueue:
    """Stands in for the MQI's Queue: keeps what MQPUT was given, fills in a MsgId."""

    name = "Q"

    def __init__(self) -> None:
        self.options: list[int] = []

    def put(self, data: bytes, md: MD, pmo: PMO) -> None:
        self.options.append(pmo.Options)
        md.MsgId = b"M" * 24


def test_mqput_gives_the_mqi_its_options_without_the_response_type() -> None:
    order = ">"
    pmo = new_struct(PMO_KIND, 2, order, Options=NO_SYNC | SYNC)
    data = b"x" * 10
    rest = md_bytes_fast(MD(Persistence=0), order, 2) + pmo.to_bytes(order)
    rest += struct.pack(">i", len(data)) + data
    queue = RecordingQueue()
    reply = do_put(queue, order, verbs.ApiHeader(16 + len(rest), 0, 0, 7), rest, 1 << 20)  # type: ignore[arg-type]
    assert queue.options == [NO_SYNC]
    api, out = verbs.parse_api(reply, order)
    assert (api.comp, api.reason, api.hobj) == (0, 0, 7)
    assert out[48:72] == b"M" * 24  # the MQMD's MsgId as the put filled it in
    back = parse_struct(PMO_KIND, out, order, MD_V2_LENGTH)
    assert back.int("Options") == NO_SYNC | SYNC  # the client's own options
