"""SCRAM, client side, pure: RFC 7677's SCRAM-SHA-256 example exchange."""

from __future__ import annotations

import pytest

from mqkafka.kafka.saslauth import AuthenticationFailed, ScramClient

SERVER_FIRST = (
    b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
)


def client() -> ScramClient:
    return ScramClient("SCRAM-SHA-256", "user", "pencil", nonce="rOprNGfwEbeRWgbNEkqO")


def test_rfc_7677_exchange() -> None:
    scram = client()
    assert scram.first() == b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
    assert scram.final(SERVER_FIRST) == (
        b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
        b"p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
    )
    scram.verify(b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")


@pytest.mark.parametrize(
    "server_first",
    [
        b"r=someoneelses,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",  # not our nonce
        b"r=rOprNGfwEbeRWgbNEkqOxyz,i=4096",  # no salt
        b"r=rOprNGfwEbeRWgbNEkqOxyz,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=many",
    ],
)
def test_an_unacceptable_server_first_message_is_refused(server_first: bytes) -> None:
    with pytest.raises(AuthenticationFailed):
        client().final(server_first)


def test_a_server_signature_that_does_not_match_is_refused() -> None:
    scram = client()
    scram.final(SERVER_FIRST)
    with pytest.raises(AuthenticationFailed):
        scram.verify(b"v=AAAATRBi23WpRR/wcOBd6V1cVHnO2RQ4GSQ8TIj9E0s=")


def test_a_name_with_comma_or_equals_is_escaped() -> None:
    assert ScramClient("SCRAM-SHA-512", "a,b=c", "x", nonce="n").first() == b"n,,n=a=2Cb=3Dc,r=n"
