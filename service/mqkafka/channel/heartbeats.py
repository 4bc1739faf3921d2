"""Heartbeats on a channel with conversations (SHARECNV 1), as IBM's 9.4 Java client wants
them (observed against this listener; the protocol notes had them only for SHARECNV 0).

About a second into a call that has no answer yet the client sends a HEARTBEAT request in
the ``TSHC`` form (28 bytes, laid out as ``TSH ``, CONFIRM_REQUEST, no body), and ends the
connection (MQRC 2009) when no answer comes within about another second: a slow MQI call
(the first put to a queue, an MQGET's wait) must not stop the answers. The answer is the
same form with no body: a ``TSH `` one is "Invalid TSH received on multiplexed connection"
to it, a ``TSHM`` one on conversation 1 is taken for the verb's reply, and a heartbeat
request of the listener's own (what a SHARECNV 0 channel gets in a long MQGET) made it end
the connection at once. So while a call runs, the listener's heartbeat thread reads what
has come on the socket and answers the heartbeat requests at its head; the rest stays for
the connection's own thread, in order.
"""

from __future__ import annotations

from dataclasses import replace

from mqkafka.channel.codec.segments import (
    TSH_LENGTH,
    TSHC_ID,
    Flags1,
    Header,
    SegType,
    parse_header,
)


def heartbeat_answer(template: Header, request: Header) -> Header:
    """The header (no body) answering HEARTBEAT ``request`` in its own form."""
    form = replace(
        template,
        multiplexed=request.multiplexed,
        common=request.common,
        conversation=request.conversation,
        request=request.request,
    )
    return form.for_body(SegType.HEARTBEAT, 0, Flags1.FIRST | Flags1.LAST)


def take_heartbeats(inbox: bytearray) -> list[Header]:
    """The ``TSHC`` HEARTBEAT requests at the head of ``inbox``, taken out of it (a
    heartbeat's answer from the client, which needs none, is taken out too)."""
    asked: list[Header] = []
    while len(inbox) >= TSH_LENGTH and inbox[:4] == TSHC_ID:
        head = parse_header(bytes(inbox[:TSH_LENGTH]))
        if head.seg_type != SegType.HEARTBEAT or head.length != TSH_LENGTH:
            break
        del inbox[:TSH_LENGTH]
        if head.flags1 & Flags1.CONFIRM_REQUEST:
            asked.append(head)
    return asked


__all__ = ["heartbeat_answer", "take_heartbeats"]
