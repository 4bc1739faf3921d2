"""What one listener runs with: where it listens, which queue manager it is, its limits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from mqkafka.channel.tls import TlsSettings

DEFAULT_PORT = 1414
DEFAULT_MAX_CONNECTIONS = 200
DEFAULT_MAX_MESSAGE = 4 * 1024 * 1024  # the MQI's default MAXMSGL
MAX_SHARECNV = 1
MAX_SEGMENT = 32_748  # what the 9.4 client offers; answered with the smaller of the two


@dataclass(frozen=True)
class ListenerSettings:
    """``max_message`` bounds a message (and so a reassembled flow); ``max_connections``
    the sockets served at once (one more is ended with STATUS 37, max conns)."""

    bootstrap_servers: str
    qmgr: str = "QM1"
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    namespace: str = ""
    kafka_config: Mapping[str, str] = field(default_factory=dict, repr=False)
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    max_message: int = DEFAULT_MAX_MESSAGE
    max_segment: int = MAX_SEGMENT
    heartbeat: int = 300  # seconds: the least heartbeat interval the listener agrees to
    # seconds a connection's write may go nowhere (its client reads nothing) before the
    # connection is ended; 0: twice the heartbeat interval agreed with the client
    write_stall: float = 0.0
    tls: TlsSettings | None = None  # None: a plain channel, the user id the client asserts
    signing: bool = False  # the MQI signs for each connection's user id (an hmac edge)
    # SHARECNV by channel name (others: 0): 1 gives TSHM headers, one conversation per
    # socket; conversations are never shared (2+ is not offered: the client would start a
    # second one on the socket with SOCKET_ACTION). Async put works on either.
    sharecnv: Mapping[str, int] = field(default_factory=dict)

    def sharecnv_of(self, channel: str) -> int:
        """The conversations per socket the channel ``channel`` offers (0 or 1)."""
        return min(self.sharecnv.get(channel, 0), MAX_SHARECNV)

    @property
    def user_established(self) -> bool:
        """The user id is the listener's word (a client certificate's, or signed for by it),
        so a client may not set another's in a message's identity context: MQ's setid and
        setall authority, which no client of the listener has."""
        return self.signing or (self.tls is not None and self.tls.maps_user)

    @property
    def max_flow(self) -> int:
        """The largest verb body accepted: a message plus its MQOD, MQMD, MQPMO and headers."""
        return self.max_message + 4096
