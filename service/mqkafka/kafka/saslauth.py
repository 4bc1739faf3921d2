"""TLS and SASL for the one raw Kafka connection this package speaks itself (the share-group
offsets of ``kafka/sharestate.py``, which confluent-kafka cannot ask), from the same
librdkafka settings every other client takes: ``security.protocol`` (SASL_PLAINTEXT,
SASL_SSL, SSL), ``sasl.mechanism`` (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512), ``sasl.username``,
``sasl.password``, ``ssl.ca.location``, ``ssl.endpoint.identification.algorithm``.

Without it a secured cluster's share offsets were never asked, and a browse there showed
every record from the log start, messages got long ago included (issue 35). GSSAPI and
OAUTHBEARER are not spoken (:class:`Unsupported`: callers fall back as before).

SCRAM is RFC 5802 (SHA-256 and SHA-512 as RFC 7677), client side only, no channel binding.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import socket
import ssl
import struct
from collections.abc import Mapping

from mqkafka.kafka.primitives import Reader, compact_bytes, request_header, string

SASL_HANDSHAKE, HANDSHAKE_VERSION = 17, 1
SASL_AUTHENTICATE, AUTHENTICATE_VERSION = 36, 2  # flexible
_HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}


class Unsupported(OSError):
    """Settings this connection cannot follow (a mechanism not spoken here)."""


class AuthenticationFailed(OSError):
    """The broker refused the credentials (or answered what SCRAM cannot accept)."""


class ScramClient:
    """One SCRAM exchange: :meth:`first`, :meth:`final` (given the server's first message),
    :meth:`verify` (given its final message)."""

    def __init__(self, mechanism: str, user: str, password: str, nonce: str | None = None):
        self._hash = _HASHES[mechanism]
        self._password = password.encode()
        name = user.replace("=", "=3D").replace(",", "=2C")
        self._nonce = nonce or base64.b64encode(os.urandom(24)).decode()
        self._first_bare = f"n={name},r={self._nonce}"
        self._server_key = b""
        self._auth_message = b""

    def first(self) -> bytes:
        return ("n,," + self._first_bare).encode()

    def final(self, server_first: bytes) -> bytes:
        fields = dict(part.split("=", 1) for part in server_first.decode().split(",") if part)
        nonce, salt, iterations = fields.get("r", ""), fields.get("s"), fields.get("i", "")
        if not nonce.startswith(self._nonce) or salt is None or not iterations.isdigit():
            raise AuthenticationFailed("SCRAM: the server's first message is not acceptable")
        salted = hashlib.pbkdf2_hmac(
            self._hash, self._password, base64.b64decode(salt), int(iterations)
        )
        client_key = self._mac(salted, b"Client Key")
        stored_key = hashlib.new(self._hash, client_key).digest()
        without_proof = f"c=biws,r={nonce}"
        self._auth_message = f"{self._first_bare},{server_first.decode()},{without_proof}".encode()
        signature = self._mac(stored_key, self._auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=True))
        self._server_key = self._mac(salted, b"Server Key")
        return f"{without_proof},p={base64.b64encode(proof).decode()}".encode()

    def verify(self, server_final: bytes) -> None:
        expected = base64.b64encode(self._mac(self._server_key, self._auth_message)).decode()
        if not hmac.compare_digest(server_final.decode(), f"v={expected}"):
            raise AuthenticationFailed("SCRAM: the server's signature does not match")

    def _mac(self, key: bytes, message: bytes) -> bytes:
        return hmac.new(key, message, self._hash).digest()


def connect(address: tuple[str, int], settings: Mapping[str, str], timeout: float) -> socket.socket:
    """A connection to ``address``, wrapped in TLS and authenticated as ``settings`` say."""
    protocol = settings.get("security.protocol", "PLAINTEXT").upper()
    sock = socket.create_connection(address, timeout=timeout)
    try:
        if protocol in ("SSL", "SASL_SSL"):
            sock = _tls(sock, address[0], settings)
        if protocol.startswith("SASL_"):
            _authenticate(sock, settings)
    except BaseException:
        sock.close()
        raise
    return sock


def _tls(sock: socket.socket, host: str, settings: Mapping[str, str]) -> socket.socket:
    context = ssl.create_default_context(cafile=settings.get("ssl.ca.location") or None)
    if settings.get("ssl.endpoint.identification.algorithm", "https").lower() == "none":
        context.check_hostname = False
    return context.wrap_socket(sock, server_hostname=host)


def _authenticate(sock: socket.socket, settings: Mapping[str, str]) -> None:
    mechanism = settings.get("sasl.mechanism") or settings.get("sasl.mechanisms") or "GSSAPI"
    mechanism = mechanism.upper()
    user, password = settings.get("sasl.username", ""), settings.get("sasl.password", "")
    if mechanism != "PLAIN" and mechanism not in _HASHES:
        raise Unsupported(f"SASL mechanism {mechanism} is not spoken here")
    answer = _exchange(sock, SASL_HANDSHAKE, HANDSHAKE_VERSION, string(mechanism), flexible=False)
    error = answer.int16()
    if error:
        raise AuthenticationFailed(f"SASL handshake: mechanism {mechanism} refused ({error})")
    if mechanism == "PLAIN":
        _authenticate_step(sock, f"\0{user}\0{password}".encode())
        return
    scram = ScramClient(mechanism, user, password)
    server_first = _authenticate_step(sock, scram.first())
    server_final = _authenticate_step(sock, scram.final(server_first))
    scram.verify(server_final)


def _authenticate_step(sock: socket.socket, data: bytes) -> bytes:
    body = compact_bytes(data) + b"\0"  # no tags
    answer = _exchange(sock, SASL_AUTHENTICATE, AUTHENTICATE_VERSION, body, flexible=True)
    error = answer.int16()
    message = answer.compact_bytes()
    auth = answer.compact_bytes()
    if error:
        text = (message or b"").decode("utf-8", "replace")
        raise AuthenticationFailed(f"SASL authentication failed ({error}): {text}")
    return auth or b""


_correlation = [0]


def _exchange(
    sock: socket.socket, api_key: int, version: int, body: bytes, *, flexible: bool
) -> Reader:
    """The answer, read past its header (reading a short one raises primitives.Truncated: the
    caller, sharestate, answers it as it does a broken connection)."""
    _correlation[0] += 1
    payload = request_header(api_key, version, _correlation[0], flexible=flexible) + body
    sock.sendall(struct.pack(">i", len(payload)) + payload)
    (size,) = struct.unpack(">i", receive(sock, 4))
    answer = Reader(receive(sock, size), pos=4)  # past the correlation id
    if flexible:
        answer.skip_tags()
    return answer


def receive(sock: socket.socket, size: int) -> bytes:
    """Exactly ``size`` bytes from the broker (a Kafka response's length, then its body)."""
    chunks = bytearray()
    while len(chunks) < size:
        chunk = sock.recv(size - len(chunks))
        if not chunk:
            raise OSError("connection closed by the broker")
        chunks += chunk
    return bytes(chunks)


__all__ = ["AuthenticationFailed", "ScramClient", "Unsupported", "connect", "receive"]
