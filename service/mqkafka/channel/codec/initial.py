"""The initial data (``ID  ``) both sides exchange first, and the user-id segment (``UID ``).

The server answers with its own ID in which every negotiable value is already the agreed
one (notes a.4, b): FAP level = min(client's, ours), conversations per socket 0 (plain TSH,
no multiplexing: the client then runs in v6 style) unless the channel offers 1 (``TSHM``
headers, one conversation per socket; ``docs/channel-protocol.md``), heartbeat 300 s, the
sizes capped by ours, the SPI/XA bits of CF2 and the multiplexed-sync-get bit of CF3 cleared, the
password-protection list echoed (a list of only NULL makes the 9.4 client refuse), no error
flags. The ID's size follows its FAP level: < 4 → 44 bytes, 4-8 → 102, 9-10 → 208, else 240.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final

from mqkafka.channel.codec.segments import STATUS_FAP_LEVEL, STATUS_NEGOTIATION_FAILED, ChannelError

ID_ID: Final = b"ID  "
UID_ID: Final = b"UID "
OUR_FAP: Final = 17  # the level the 9.4 client offers; lower client levels are followed
MIN_FAP: Final = 4  # below: no CCSID, QM name or heartbeat in the ID (not supported)
HEARTBEAT_S: Final = 300
CF2_KEEP: Final = 0xAF  # drop SPI request (0x40) and XA runtime (0x10)
CF3_KEEP: Final = 0xF7  # drop multiplexed sync get (0x08)
MIN_SEGMENT: Final = 4096  # below this the client's segment size is not accepted


def id_length(fap: int) -> int:
    """The ID structure's size at a FAP level (dissector's rule)."""
    if fap < 4:
        return 44
    if fap <= 8:
        return 102
    if fap <= 10:
        return 208
    return 240


@dataclass(frozen=True)
class InitialData:
    """The fields a server reads or changes; ``raw`` keeps the rest to echo it."""

    raw: bytes
    fap: int
    max_segment: int
    max_message: int
    channel: str
    qmgr: str
    heartbeat: int
    sharecnv: int | None  # present from FAP 9 (the 208-byte form)

    @property
    def cf1(self) -> int:
        return self.raw[5]

    @property
    def cf2(self) -> int:
        return self.raw[44] if len(self.raw) > 44 else 0

    @property
    def cf3(self) -> int:
        return self.raw[132] if len(self.raw) > 132 else 0


def _text(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("latin-1").rstrip(" ")


def parse_initial(body: bytes, order: str) -> InitialData:
    """The client's ID; too short for its own FAP level → :class:`ChannelError`."""
    if len(body) < 44 or body[:4] != ID_ID:
        raise ChannelError(STATUS_NEGOTIATION_FAILED, "initial data is not an ID structure")
    fap = body[4]
    need = id_length(fap)
    if len(body) < need:
        raise ChannelError(STATUS_NEGOTIATION_FAILED, f"ID of FAP {fap} needs {need} bytes")
    max_segment, max_message = struct.unpack_from(order + "II", body, 12)
    channel = _text(body[24:44])
    qmgr, heartbeat, sharecnv = "", 0, None
    if need >= 102:
        qmgr = _text(body[48:96])
        (heartbeat,) = struct.unpack_from(order + "I", body, 96)
    if need >= 208:
        (sharecnv,) = struct.unpack_from(order + "I", body, 128)
    return InitialData(
        raw=bytes(body[:need]),
        fap=fap,
        max_segment=max_segment,
        max_message=max_message,
        channel=channel,
        qmgr=qmgr,
        heartbeat=heartbeat,
        sharecnv=sharecnv,
    )


@dataclass(frozen=True)
class Agreed:
    """What both sides go on with."""

    fap: int
    max_segment: int
    max_message: int
    heartbeat: int
    sharecnv: int = 0  # conversations per socket: >= 1 means TSHM headers from now on


def negotiate(
    client: InitialData,
    order: str,
    *,
    qmgr: str,
    max_segment: int,
    max_message: int,
    heartbeat: int = HEARTBEAT_S,
    sharecnv: int = 0,
) -> tuple[Agreed, bytes]:
    """The agreed values and the answering ID's bytes (same layout as the client's, at the
    agreed FAP level's size); ``sharecnv``: the most conversations per socket the channel
    offers (the client's own offer is the other bound). A client below :data:`MIN_FAP` or
    with a segment size below :data:`MIN_SEGMENT` cannot be served: :class:`ChannelError`."""
    if client.fap < MIN_FAP:
        raise ChannelError(STATUS_FAP_LEVEL, f"FAP level {client.fap} < {MIN_FAP}")
    if client.max_segment < MIN_SEGMENT:
        raise ChannelError(STATUS_NEGOTIATION_FAILED, f"segment size {client.max_segment}")
    agreed = Agreed(
        fap=min(client.fap, OUR_FAP),
        max_segment=min(client.max_segment, max_segment),
        max_message=min(client.max_message or max_message, max_message),
        heartbeat=max(client.heartbeat, heartbeat) if heartbeat else 0,
        sharecnv=min(client.sharecnv or 0, max(sharecnv, 0)) if client.fap >= 9 else 0,
    )
    out = bytearray(client.raw[: id_length(agreed.fap)])
    out[4] = agreed.fap
    out[7] = 0  # no initial error flags: every value is already the agreed one
    struct.pack_into(order + "II", out, 12, agreed.max_segment, agreed.max_message)
    if len(out) >= 102:
        out[44] &= CF2_KEEP
        out[48:96] = qmgr.encode("latin-1")[:48].ljust(48, b" ")
        struct.pack_into(order + "I", out, 96, agreed.heartbeat)
    if len(out) >= 208:
        out[102] = 0  # IEF2
        struct.pack_into(order + "I", out, 128, agreed.sharecnv)
        out[132] &= CF3_KEEP
    return agreed, bytes(out)


def parse_user(body: bytes) -> str:
    """The user id a ``UID `` segment asserts (the long user id when the short one is blank);
    anything else is a :class:`ChannelError`."""
    if len(body) < 28 or body[:4] != UID_ID:
        raise ChannelError(STATUS_NEGOTIATION_FAILED, "user-id segment is not a UID structure")
    user = _text(body[4:16])
    if not user and len(body) >= 92:
        user = _text(body[28:92])
    return user


def user_segment(user: str, password: str = "", long_user: str = "") -> bytes:
    """A 132-byte ``UID `` body (tests and tools: the client's side)."""
    return (
        UID_ID
        + user.encode("latin-1")[:12].ljust(12, b" ")
        + password.encode("latin-1")[:12].ljust(12, b" ")
        + long_user.encode("latin-1")[:64].ljust(64, b" ")
        + bytes(40)
    )


__all__ = [
    "HEARTBEAT_S",
    "OUR_FAP",
    "Agreed",
    "InitialData",
    "id_length",
    "negotiate",
    "parse_initial",
    "parse_user",
    "user_segment",
]
