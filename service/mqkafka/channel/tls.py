"""TLS on the channel: the listener's server certificate and, with a CA, the client's.

With a CA the client must show a certificate it signed, and that certificate's subject
names the connection's MQ user id, whatever the client asserts in its USERID_DATA: what a
queue manager's SSLPEER / CHLAUTH SSLPEERMAP mapping to an MCAUSER does. The user id is the
subject's CN, cut to MQ's 12 characters.
"""

from __future__ import annotations

import ssl
from collections.abc import Sequence
from dataclasses import dataclass

from mqkafka.mqi import CMQC as C

HANDSHAKE_TIMEOUT_S = 10.0

# what getpeercert() gives for a subject: RDNs, each a tuple of (attribute, value) pairs
Subject = Sequence[Sequence[tuple[str, str]]]


class TlsSetupError(ValueError):
    """A certificate, key or CA file that cannot be used; one line."""


@dataclass(frozen=True)
class TlsSettings:
    cert: str
    key: str
    ca: str | None = None  # a client certificate signed by it is required

    @property
    def maps_user(self) -> bool:
        return self.ca is not None


def server_context(tls: TlsSettings) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(tls.cert, tls.key)
        if tls.ca is not None:
            context.load_verify_locations(cafile=tls.ca)
            context.verify_mode = ssl.CERT_REQUIRED
    except (OSError, ssl.SSLError) as error:
        detail = getattr(error, "strerror", None) or getattr(error, "reason", None) or error
        raise TlsSetupError(f"TLS certificate, key or CA not usable: {detail}") from None
    return context


def subject_user(subject: Subject) -> str | None:
    """The MQ user id a client certificate's subject maps to: its (last) CN, or None."""
    names = [value for rdn in subject for attribute, value in rdn if attribute == "commonName"]
    if not names or not names[-1].strip():
        return None
    return names[-1].strip()[: C.MQ_USER_ID_LENGTH]


__all__ = [
    "HANDSHAKE_TIMEOUT_S",
    "TlsSettings",
    "TlsSetupError",
    "server_context",
    "subject_user",
]
