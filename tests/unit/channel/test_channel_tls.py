"""The user id a client certificate's subject maps to (as ``getpeercert()`` gives it)."""

from __future__ import annotations

import pytest

from mqkafka.channel.settings import ListenerSettings
from mqkafka.channel.tls import Subject, TlsSettings, subject_user


@pytest.mark.parametrize(
    ("subject", "user"),
    [
        (((("commonName", "alice"),),), "alice"),
        (((("organizationName", "ACME"),), (("commonName", "bob"),)), "bob"),
        (((("commonName", "outer"),), (("commonName", "inner"),)), "inner"),
        (((("commonName", "averyveryverylongname"),),), "averyveryver"),  # MQ's 12
        (((("commonName", "  carol "),),), "carol"),
        (((("organizationName", "ACME"),),), None),
        (((("commonName", "  "),),), None),
        ((), None),
    ],
)
def test_subject_user(subject: Subject, user: str | None) -> None:
    assert subject_user(subject) == user


@pytest.mark.parametrize(
    ("tls", "signing", "established"),
    [
        (None, False, False),  # a plain channel: the user id is the client's word
        (TlsSettings("c", "k"), False, False),  # TLS without client certificates: the same
        (TlsSettings("c", "k", "ca"), False, True),
        (None, True, True),
    ],
)
def test_user_established(tls: TlsSettings | None, signing: bool, established: bool) -> None:
    settings = ListenerSettings("127.0.0.1:9092", tls=tls, signing=signing)
    assert settings.user_established is established
