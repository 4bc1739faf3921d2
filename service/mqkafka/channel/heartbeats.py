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

import struct
from dataclasses import replace
from typing import Final

from mqkafka.channel.codec.segments import (
    TSH_ID,
    TSH_LENGTH,
    TSHC_ID,
    TSHM_ID,
    TSHM_LENGTH,
    ChannelError,
    Flags1,
    Header,
    SegType,
    parse_header,
)

_IDS: Final = {TSH_ID: TSH_LENGTH, TSHM_ID: TSHM_LENGTH, TSHC_ID: TSH_LENGTH}  # header sizes
_LENGTH: Final = struct.Struct(">I")


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


def take_heartbeats(inbox: bytearray, limit: int = 0x7FFF_FFFF) -> list[Header]:
    """The ``TSHC`` HEARTBEAT requests anywhere in ``inbox`` (which starts at a segment's
    start), taken out of it, the other segments left in order: :func:`walk_heartbeats`
    from the start."""
    return walk_heartbeats(inbox, 0, limit)[0]


def walk_heartbeats(
    inbox: bytearray, start: int, limit: int, look_from: int = 0
) -> tuple[list[Header], int, int]:
    """The ``TSHC`` HEARTBEAT requests in ``inbox`` from ``start`` (a segment's start) on,
    taken out of it, the other segments left in order (a heartbeat's answer from the
    client, which needs none, is taken out too); where the walk stopped; and where the
    next look for a ``TSHC`` may begin. The walk follows the segments' lengths and stops at
    the end, a cut segment or one longer than ``limit`` or not a TSH (what is wrong with it
    is the connection's reader's to say). The next walk starts there: a backlog is walked
    once, not at every look, and only once a ``TSHC`` is in it (looked for from
    ``look_from`` at C speed: a walk costs ~0.4 us a segment, which every async put would
    pay, and each look from the start ~0.5 ms a MiB).

    Why anywhere: behind a backlog of async puts the client's heartbeat request waits
    for the answer to an MQSTAT that is itself behind them; answered only when the puts
    before it were done, it came too late (MQRC 2009 under load)."""
    asked: list[Header] = []
    if inbox.find(TSHC_ID, max(start, look_from)) < 0:  # nothing to find: walked when there is
        return asked, start, max(start, len(inbox) - len(TSHC_ID) + 1)
    at, end = start, len(inbox)
    while at + TSH_LENGTH <= end:
        struc_id = bytes(inbox[at : at + 4])
        if struc_id not in _IDS:
            break
        length = _LENGTH.unpack_from(inbox, at + 4)[0]
        if length < _IDS[struc_id] or length > limit or at + length > end:
            break
        if struc_id == TSHC_ID and length == TSH_LENGTH and inbox[at + 9] == SegType.HEARTBEAT:
            try:
                head = parse_header(bytes(inbox[at : at + TSH_LENGTH]))
            except ChannelError:
                break  # a bad byte order: the reader's to say
            del inbox[at : at + TSH_LENGTH]
            end -= TSH_LENGTH
            if head.flags1 & Flags1.CONFIRM_REQUEST:
                asked.append(head)
            continue
        at += length
    return asked, at, at


__all__ = ["heartbeat_answer", "take_heartbeats", "walk_heartbeats"]
