"""A connection's counters as DISPLAY CHSTATUS counts: every answered call, messages put and
got only when they were (MQCC_FAILED and 2080 move nothing), in either byte order."""

from __future__ import annotations

import pytest

from mqkafka.channel.codec import verbs
from mqkafka.channel.codec.segments import SegType
from mqkafka.channel.counters import ChannelCounters


@pytest.mark.parametrize("order", [">", "<"])
@pytest.mark.parametrize(
    ("seg_type", "comp", "reason", "puts", "gets"),
    [
        (SegType.MQPUT, 0, 0, 1, 0),
        (SegType.MQPUT1, 0, 0, 1, 0),
        (SegType.MQPUT, 2, 2053, 0, 0),  # queue full: nothing put
        (SegType.MQGET, 0, 0, 0, 1),
        (SegType.MQGET, 1, 2079, 0, 1),  # truncated, accepted: the message is got
        (SegType.MQGET, 1, 2080, 0, 0),  # truncated, refused: it stays on the queue
        (SegType.MQGET, 2, 2033, 0, 0),  # no message
        (SegType.MQINQ, 0, 0, 0, 0),
        (SegType.MQCONN, 2, 2058, 0, 0),  # a failed call is a call all the same
    ],
)
def test_a_call_counts(
    order: str, seg_type: SegType, comp: int, reason: int, puts: int, gets: int
) -> None:
    counters = ChannelCounters()
    counters.verb(seg_type, order, verbs.reply_body(order, comp, reason, 1, b"rest"))
    assert (counters.calls, counters.puts, counters.gets) == (1, puts, gets)
    assert counters.last_verb == seg_type.name and counters.last_time > 0


def test_an_unknown_verb_is_named_by_its_number() -> None:
    counters = ChannelCounters()
    counters.verb(0x9F, ">", verbs.reply_body(">", 2, 2298, 0, b""))
    assert (counters.calls, counters.last_verb) == (1, "0x9f")
