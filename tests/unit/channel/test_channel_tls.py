"""The user id a client certificate's subject maps to (as ``getpeercert()`` gives it)."""

from __future__ import annotations

import pytest

from mqkafka.channel.tls import Subject, subject_user


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
