"""Certificates made at test time with the ``openssl`` command: a CA, the listener's
certificate (localhost, 127.0.0.1) and client certificates signed by the CA or by nobody."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from pathlib import Path

import pytest


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_ca(folder: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command to make test certificates")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
             "/CN=mqk test CA", "-keyout", "ca.key", "-out", "ca.pem", cwd=folder)  # fmt: skip


def make_cert(folder: Path, name: str, subject: str, *, signed: bool = True) -> None:
    """``name.pem`` and ``name.key``: signed by the CA (``make_ca`` first) or self-signed."""
    (folder / f"{name}.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    if not signed:
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                 subject, "-keyout", f"{name}.key", "-out", f"{name}.pem", cwd=folder)  # fmt: skip
        return
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-keyout", f"{name}.key",
             "-out", f"{name}.csr", cwd=folder)  # fmt: skip
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.pem",
             cwd=folder)  # fmt: skip


def tls_contexts(certs: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """The listener's side with ``certs``' server certificate, and a client's that checks
    nothing (the unit tests' socket pairs: no peer to verify)."""
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(certs / "server.pem", certs / "server.key")
    client = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    client.check_hostname, client.verify_mode = False, ssl.CERT_NONE
    return server, client
