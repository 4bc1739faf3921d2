"""Identity assurance, pure (issue 20 point 1): key files, the signature, the service's guard."""

from __future__ import annotations

import base64
import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.engine.authority import ALLOW_ALL, AclPolicy
from mqkafka.identity.guard import IdentityGuard, Refused, Verified
from mqkafka.identity.keys import IdentityError, UserKey, load_own_key, parse_keys
from mqkafka.identity.signature import SIGNATURE, SIGNER
from mqkafka.identity.signing import signed_headers
from mqkafka.mq.reasons import RC

ALICE = UserKey("alice", bytes(range(32)))
BOB = UserKey("bob", bytes(range(1, 33)))
BRIDGE = UserKey("bridge", bytes(range(2, 34)), set_identity=True)
KEYS = {k.user: k for k in (ALICE, BOB, BRIDGE)}
NOW = 1_800_000_000.0
TOPIC = "SYSTEM.BROKER.CONTROL.QUEUE"
MSG_ID = b"AMQ " + bytes(range(1, 21))
MQMD = [("mqmd.MsgId", MSG_ID), ("mqmd.ReplyToQ", b"ALICE.REPLY"), ("mqmd.MsgType", b"1")]
ACL = AclPolicy.parse("allow setid bridge *\nallow * * *")


def guard(window: float = 300.0) -> IdentityGuard:
    return IdentityGuard(KEYS, ACL, window)


def signed(key: UserKey = ALICE, value: bytes = b"body", headers=MQMD, now: float = NOW):  # type: ignore[no-untyped-def]
    return signed_headers(key, TOPIC, value, headers, now)


def header(headers: list[tuple[str, bytes]], name: str) -> bytes:
    (found,) = [v for n, v in headers if n == name]
    return found


# --- key files -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("alice", "keys:1: a line is 'USER KEY [set-identity]'"),
        ("alice a2V5 setid", "keys:1: a line is 'USER KEY [set-identity]'"),
        ("alice not*base64", "keys:1: the key of 'alice' is not base64"),
        ("alice " + base64.b64encode(b"short").decode(), "keys:1: the key of 'alice' is under 16"),
        ("averylonguserid " + base64.b64encode(bytes(16)).decode(), "1 to 12 characters"),
        (f"a {base64.b64encode(bytes(16)).decode()}\n# c\na {base64.b64encode(bytes(16)).decode()}",
         "keys:3: 'a' has a key already"),
    ],
)  # fmt: skip
def test_a_bad_key_file_is_one_line_naming_the_line_and_never_the_key(
    text: str, problem: str
) -> None:
    with pytest.raises(IdentityError) as raised:
        parse_keys(text)
    assert problem in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_key_line_reads_back_and_a_users_file_holds_one(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert parse_keys(BRIDGE.line() + "\n" + ALICE.line()) == {"bridge": BRIDGE, "alice": ALICE}
    assert "key=" not in repr(ALICE) and str(ALICE.key) not in repr(ALICE)
    own = tmp_path / "alice.key"
    own.write_text(ALICE.line() + "\n")
    assert load_own_key(own) == ALICE
    own.write_text(ALICE.line() + "\n" + BOB.line() + "\n")
    with pytest.raises(IdentityError, match="holds one line, not 2"):
        load_own_key(own)


# --- signing and checking ------------------------------------------------------------------
def test_a_signed_message_passes_without_its_signature_headers_as_its_signer() -> None:
    headers = signed()
    checked = guard().check(TOPIC, b"body", headers, NOW + 1)
    assert isinstance(checked, Verified) and checked.signer == "alice"
    assert {n for n, _ in checked.headers} == {n for n, _ in MQMD} | {"mqmd.UserIdentifier"}
    assert header(checked.headers, "mqmd.UserIdentifier") == b"alice"


def test_the_signing_client_puts_its_own_userid_over_the_applications() -> None:
    """As a queue manager sets UserIdentifier from the connection's user."""
    headers = signed(BOB, headers=[*MQMD, ("mqmd.UserIdentifier", b"alice")])
    assert header(headers, "mqmd.UserIdentifier") == b"bob"
    assert header(headers, SIGNER) == b"bob"


def test_a_message_without_msgid_gets_one_when_signed() -> None:
    headers = signed(headers=[("mqmd.MsgType", b"1")])
    assert len(header(headers, "mqmd.MsgId")) == 24
    assert isinstance(guard().check(TOPIC, b"body", headers, NOW), Verified)


def _tamper(headers: list[tuple[str, bytes]], name: str, value: bytes) -> list[tuple[str, bytes]]:
    return [(n, value if n == name else v) for n, v in headers]


# (what was changed after signing, topic, body, headers of the signed record -> changed)
TAMPERED = [
    ("body", TOPIC, b"bodz", lambda h: h),
    ("destination", "SYSTEM.BROKER.DEFAULT.STREAM", b"body", lambda h: h),
    ("userid", TOPIC, b"body", lambda h: _tamper(h, "mqmd.UserIdentifier", b"bob")),
    ("reply queue", TOPIC, b"body", lambda h: _tamper(h, "mqmd.ReplyToQ", b"BOB.REPLY")),
    ("MsgId", TOPIC, b"body", lambda h: _tamper(h, "mqmd.MsgId", b"AMQ " + bytes(20))),
    ("a header added", TOPIC, b"body", lambda h: [*h, ("mqmd.Report", b"64")]),
    ("signer", TOPIC, b"body", lambda h: _tamper(h, SIGNER, b"bob")),
    ("time", TOPIC, b"body", lambda h: _tamper(
        h, SIGNATURE, b"1:" + str(int(NOW * 1000) + 1).encode() + header(h, SIGNATURE)[15:])),
    ("no signature", TOPIC, b"body", lambda h: [x for x in h if x[0] != SIGNATURE]),
    ("signature twice", TOPIC, b"body", lambda h: [*h, (SIGNATURE, header(h, SIGNATURE))]),
    ("unknown signer", TOPIC, b"body", lambda h: _tamper(h, SIGNER, b"mallory")),
    ("malformed", TOPIC, b"body", lambda h: _tamper(h, SIGNATURE, b"2:abc:def")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("what", "topic", "body", "change"), TAMPERED, ids=[t[0] for t in TAMPERED]
)
def test_any_change_after_signing_is_refused_with_2035(what, topic, body, change) -> None:  # type: ignore[no-untyped-def]
    checked = guard().check(topic, body, change(signed()), NOW)
    assert isinstance(checked, Refused), what
    assert checked.reason == RC.NOT_AUTHORIZED and checked.headers is None


def test_unsigned_records_are_refused() -> None:
    checked = guard().check(TOPIC, b"body", [*MQMD, ("mqmd.UserIdentifier", b"alice")], NOW)
    assert isinstance(checked, Refused) and "no signature" in checked.detail


@pytest.mark.parametrize("skew", [-301.0, 301.0])
def test_a_signature_outside_the_window_is_refused(skew: float) -> None:
    checked = guard().check(TOPIC, b"body", signed(now=NOW), NOW + skew)
    assert isinstance(checked, Refused) and "outside the window" in checked.detail


def test_a_replay_is_refused_in_the_batch_and_after_its_commit_but_not_after_an_abort() -> None:
    g = guard()
    headers = signed()
    assert isinstance(g.check(TOPIC, b"body", headers, NOW), Verified)
    assert isinstance(g.check(TOPIC, b"body", headers, NOW), Refused)  # same batch
    g.aborted()  # the batch is read again: not its own replay
    assert isinstance(g.check(TOPIC, b"body", headers, NOW), Verified)
    g.committed()
    again = g.check(TOPIC, b"body", headers, NOW + 10)
    assert isinstance(again, Refused) and "replayed" in again.detail
    assert isinstance(g.check(TOPIC, b"body", signed(BOB), NOW), Verified)  # bob's MsgId is his


def test_a_claim_of_another_userid_needs_setid() -> None:
    claim = [*MQMD, ("mqmd.UserIdentifier", b"alice")]
    bob_claims = signed(dataclasses.replace(BOB, set_identity=True), headers=claim)
    refused = guard().check(TOPIC, b"body", bob_claims, NOW)
    assert isinstance(refused, Refused) and refused.reason == RC.CF_NOT_AUTHORIZED
    assert refused.headers is not None  # answered, as bob
    assert header(refused.headers, "mqmd.UserIdentifier") == b"bob"
    bridge_claims = guard().check(TOPIC, b"body", signed(BRIDGE, headers=claim), NOW)
    assert isinstance(bridge_claims, Verified)
    assert header(bridge_claims.headers, "mqmd.UserIdentifier") == b"alice"


def test_without_an_acl_no_one_may_claim_another_userid() -> None:
    g = IdentityGuard(KEYS, ALLOW_ALL)
    claim = [*MQMD, ("mqmd.UserIdentifier", b"alice")]
    assert isinstance(g.check(TOPIC, b"body", signed(BRIDGE, headers=claim), NOW), Refused)
    assert not AclPolicy.parse("allow * * *").may_set_identity("bridge", "alice")


@given(
    body=st.binary(max_size=300),
    extra=st.lists(
        st.tuples(st.sampled_from(["mqmd.Format", "mqmd.Priority", "app.trace"]), st.binary()),
        max_size=3,
        unique_by=lambda h: h[0],
    ),
    flip=st.integers(min_value=0),
)
def test_signed_verifies_and_any_flipped_body_byte_does_not(body, extra, flip) -> None:  # type: ignore[no-untyped-def]
    headers = signed(value=body, headers=[*MQMD, *extra])
    assert isinstance(guard().check(TOPIC, body, headers, NOW), Verified)
    if body:
        at = flip % len(body)
        changed = body[:at] + bytes([body[at] ^ 1]) + body[at + 1 :]
        assert isinstance(guard().check(TOPIC, changed, headers, NOW), Refused)


# --- message properties (issue 35 point 3) ---------------------------------------------------
PROPS = [("mqprop.Region", b"EMEA"), ("mqprop.Tries", b"3"), ("mqtype.Tries", b"i4")]


@pytest.mark.parametrize(
    "change",
    [
        lambda h: [*h, ("mqprop.Approved", b"true")],  # a property added after signing
        lambda h: [(n, b"APAC" if n == "mqprop.Region" else v) for n, v in h],  # changed
        lambda h: [(n, v) for n, v in h if n != "mqprop.Region"],  # taken away
        lambda h: [(n, b"r8" if n == "mqtype.Tries" else v) for n, v in h],  # retyped
    ],
    ids=["added", "changed", "removed", "retyped"],
)
def test_a_property_changed_after_signing_is_refused(change) -> None:  # type: ignore[no-untyped-def]
    headers = signed(headers=MQMD + PROPS)
    assert isinstance(guard().check(TOPIC, b"body", headers, NOW), Verified)
    refused = guard().check(TOPIC, b"body", change(headers), NOW)
    assert isinstance(refused, Refused) and "does not match" in refused.detail


def _signed_v1(headers: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """A version 1 signature (MQMD only), spelled out as the first clients and the README of
    the time wrote it (not through the module under test)."""
    import hashlib
    import hmac

    ms = str(int(NOW * 1000))
    mqmd = sorted(h for h in headers if h[0].startswith("mqmd."))
    lines = ["mqk-signature-1", "alice", ms, TOPIC, hashlib.sha256(b"body").hexdigest()]
    text = "\n".join(lines + [f"{n}={v.hex()}" for n, v in mqmd]) + "\n"
    digest = hmac.new(ALICE.key, text.encode(), hashlib.sha256).hexdigest()
    return [*headers, (SIGNER, b"alice"), (SIGNATURE, f"1:{ms}:{digest}".encode())]


def test_a_version_1_signature_is_accepted_and_its_unsigned_properties_taken_off() -> None:
    headers = _signed_v1([*MQMD, ("mqmd.UserIdentifier", b"alice"), *PROPS, ("trace", b"t1")])
    checked = guard().check(TOPIC, b"body", headers, NOW)
    assert isinstance(checked, Verified)
    names = [n for n, _ in checked.headers]
    assert not [n for n in names if n.startswith(("mqprop.", "mqtype."))]
    assert "mqmd.ReplyToQ" in names and "trace" in names


def test_a_version_2_signature_keeps_the_properties_it_signed() -> None:
    checked = guard().check(TOPIC, b"body", signed(headers=MQMD + PROPS), NOW)
    assert isinstance(checked, Verified)
    assert [h for h in checked.headers if h[0].startswith(("mqprop.", "mqtype."))] == PROPS
    assert header(signed(headers=MQMD + PROPS), SIGNATURE).startswith(b"2:")
