"""Identity and authority that cannot be forged (issue 20), over the real broker and a real
``mqk serve --identity hmac --acl``: the forged cases of the issue, each refused with its MQ
reason, and what they aimed at left as it was."""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Producer

from mqkafka.client.kafka_pubsub import KafkaPubSub, command_message, subscription_pairs
from mqkafka.identity.signing import signed_headers
from mqkafka.mq.mqmd import MQMD, MQMT
from mqkafka.mq.reasons import RC
from mqkafka.wire.headers import mqmd_to_headers
from mqkafka.wire.names import queue_to_topic
from tests.integration.security.conftest import CONTROL, STREAM, SecuredService, dead_letter_of
from tests.integration.service.conftest import MQK

pytestmark = pytest.mark.kafka


def unique(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:8].upper()}"


def topics_on(client: KafkaPubSub, queue: str, count: int) -> list[str | None]:
    return [r.topic for r in client.read_queue(queue, count=count, timeout=20)]


def request(user: str, reply_to: str) -> MQMD:
    return MQMD(MsgType=MQMT.REQUEST, MsgId=os.urandom(24), ReplyToQ=reply_to, UserIdentifier=user)


def test_forged_userids_do_not_remove_alices_subscription(secured: SecuredService) -> None:
    alice = secured.client("alice")
    topic, queue = f"{unique('Plans')}/#", unique("ALICE.")
    assert alice.register(topic, queue=queue).ok  # type: ignore[union-attr]
    deregister = subscription_pairs("DeregSub", topic, queue)

    # unsigned, UserIdentifier=alice: dead-lettered with MQRC_NOT_AUTHORIZED, no reply
    forger = secured.client("bob", signed=False)
    md = request("alice", "BOB.REPLY")
    forger.put(CONTROL, *command_message(deregister, md=md))
    dead = dead_letter_of(secured, md.MsgId)
    assert dead["mqk.reason"] == b"2035" and b"no signature" in dead["mqk.detail"]

    # signed by bob, claiming alice without setid authority: refused in the reply (3081)
    claimed = secured.client("bob", claim="alice").deregister(topic, queue=queue)
    assert claimed is not None and claimed.reason == RC.CF_NOT_AUTHORIZED

    # bob's ordinary client puts his own userid whatever the application sets: not the owner
    as_bob = secured.client("bob", claim=None)
    as_bob.user = "alice"
    owner = as_bob.deregister(topic, queue=queue)
    assert owner is not None and owner.reason == RC.CF_DUPLICATE_IDENTITY

    # alice's subscription is there still: her publication reaches it
    assert alice.publish(topic.replace("#", "Q3"), b"still here").ok  # type: ignore[union-attr]
    [received] = alice.read_queue(queue, count=1, timeout=20)
    assert received.body == b"still here"


def test_a_replayed_signed_command_is_dead_lettered(secured: SecuredService) -> None:
    topic, queue = unique("Replay/"), unique("ALICE.")
    md, value = command_message(
        subscription_pairs("RegSub", topic, queue), md=request("alice", "ALICE.REPLY")
    )
    kafka_topic = queue_to_topic(CONTROL, secured.namespace)
    headers = signed_headers(secured.keys["alice"], kafka_topic, value, mqmd_to_headers(md))
    alice = secured.client("alice")
    alice._ensure_reply_consumer()
    producer = Producer({"bootstrap.servers": secured.bootstrap})
    for _ in range(2):  # the same record, as someone who copied it off the wire would
        producer.produce(kafka_topic, value=value, headers=headers)
    assert producer.flush(30) == 0
    assert alice.reply_to(md.MsgId).ok
    dead = dead_letter_of(secured, md.MsgId)
    assert dead["mqk.reason"] == b"2035" and b"replayed" in dead["mqk.detail"]
    # a body changed under the same signature is refused too
    changed = request("alice", "ALICE.REPLY")
    md2, value2 = command_message(subscription_pairs("DeregSub", topic, queue), md=changed)
    headers2 = signed_headers(secured.keys["alice"], kafka_topic, value2, mqmd_to_headers(md2))
    producer.produce(kafka_topic, value=value2.replace(b"DeregSub", b"RegSub  "), headers=headers2)
    assert producer.flush(30) == 0
    assert b"does not match" in dead_letter_of(secured, changed.MsgId)["mqk.detail"]


def test_a_sender_with_setid_authority_may_speak_for_another(secured: SecuredService) -> None:
    topic, queue = unique("Bridged/"), unique("ALICE.")
    bridge = secured.client("bridge", claim="alice", reply_queue="ALICE.REPLY")
    assert bridge.register(topic, queue=queue).ok  # type: ignore[union-attr]
    # alice owns it: her own DeregSub removes it
    assert secured.client("alice").deregister(topic, queue=queue).ok  # type: ignore[union-attr]


def test_carols_wildcards_never_deliver_what_she_may_not_subscribe_to(
    secured: SecuredService,
) -> None:
    """``deny subscribe carol Secret/#`` (an MQ topic filter: Secret and all below it): her
    ``#`` and ``+/Plans`` subscriptions are accepted and get everything else, never a
    ``Secret/...`` publication, retained or not; ``Secret/+`` is refused (issue 35 point 2)."""
    alice, carol = secured.client("alice"), secured.client("carol")
    queues = {flt: unique("CAROL.") for flt in ("#", "+/Plans")}
    for flt, queue in queues.items():
        assert carol.register(flt, queue=queue).ok, flt  # type: ignore[union-attr]
    for flt in ("Secret/Plans", "Secret/+", "Secret"):
        refused = carol.register(flt, queue=unique("CAROL."))
        assert refused is not None and refused.reason == RC.CF_NOT_AUTHORIZED, flt
    mine = unique("ALICE.")
    assert alice.register("Secret/#", queue=mine).ok  # type: ignore[union-attr]
    # in this order on one partition: a Secret/ copy would come before the others
    for topic in ("Secret/Plans", "Public/Plans", "Secret", "Secret/Deep/Plans", "Public"):
        assert alice.publish(topic, topic.encode(), retain=True).ok  # type: ignore[union-attr]
    assert topics_on(carol, queues["#"], 2) == ["Public/Plans", "Public"]
    assert topics_on(carol, queues["+/Plans"], 1) == ["Public/Plans"]
    assert topics_on(alice, mine, 3) == ["Secret/Plans", "Secret", "Secret/Deep/Plans"]
    # retained copies sent on registration follow the same rule
    late = unique("CAROL.")
    assert carol.register("#", queue=late).ok  # type: ignore[union-attr]
    assert alice.publish("Public/Marker", b"after the retained ones").ok  # type: ignore[union-attr]
    retained = topics_on(carol, late, 3)
    assert sorted(str(t) for t in retained[:2]) == ["Public", "Public/Plans"]
    assert retained[2] == "Public/Marker"
    # publish authority, per publication: carol may not publish under Secret/
    leak = carol.publish("Secret/Leak", b"leak")
    assert leak is not None and leak.reason == RC.CF_NOT_AUTHORIZED
    assert alice.publish("Secret/After", b"after").ok  # type: ignore[union-attr]
    assert topics_on(alice, mine, 4)[3] == "Secret/After"


def test_queues_a_command_names_must_be_its_userids(secured: SecuredService) -> None:
    alice = secured.client("alice")
    topic = unique("Queues/")
    # QName: another application's queue
    other = alice.register(topic, queue=unique("BOB."))
    assert other is not None and other.reason == RC.CF_NOT_AUTHORIZED
    # ReplyToQ: another application's queue: no reply there, a dead letter, nothing done
    queue = unique("ALICE.")
    md = request("alice", "BOB.REPLY")
    alice.put(CONTROL, *command_message(subscription_pairs("RegSub", topic, queue), md=md))
    dead = dead_letter_of(secured, md.MsgId)
    assert dead["mqk.reason"] == b"3081" and b"ReplyToQ" in dead["mqk.detail"]
    never = alice.deregister(topic, queue=queue)
    assert never is not None and never.reason == RC.CF_NOT_REGISTERED
    # Kafka's own topics and the state topics are never queues, whatever the ACL allows
    bridge = secured.client("bridge")
    for name in ("__consumer_offsets", "mqk/subscriptions", "__transaction_state"):
        refused = bridge.register(topic, queue=name)
        assert refused is not None and refused.reason == RC.CF_Q_NAME_ERROR, name


def test_the_readme_raw_producer_recipe_is_accepted_with_identity_on(
    secured: SecuredService, tmp_path: Path
) -> None:
    """The README's Python signing recipe, as printed, against ``--identity hmac``."""
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    [recipe] = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "mqk.Signer" in b]
    alice = secured.client("alice")
    queue = unique("ALICE.")
    assert alice.register("Sport/Soccer", queue=queue).ok  # type: ignore[union-attr]
    (tmp_path / "alice.key").write_text(secured.keys["alice"].line() + "\n")
    env = {
        **os.environ,
        "MQK_BOOTSTRAP_SERVERS": secured.bootstrap,
        "MQK_NAMESPACE": secured.namespace,
    }
    ran = subprocess.run(
        [sys.executable, "-c", recipe], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    [received] = alice.read_queue(queue, count=1, timeout=20)
    assert received.body == b"2-1"


def test_the_mqi_and_mqk_work_unchanged_given_the_users_key(
    secured: SecuredService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Given MQK_IDENTITY_FILE, the MQI's and the CLI's commands are signed and speak for its
    user whatever the process's own user is; without it, nothing they send is processed."""
    import mqkafka.mqi as pymqi
    from mqkafka.mqi.kafkaqm.pubsub import PubSub

    key_file = str(secured.key_file("alice"))
    for name, value in (
        ("MQK_BOOTSTRAP_SERVERS", secured.bootstrap),
        ("MQK_NAMESPACE", secured.namespace),
        ("MQK_IDENTITY_FILE", key_file),
    ):
        monkeypatch.setenv(name, value)
    queue = unique("ALICE.")
    qmgr = pymqi.connect("QM1", user="root")
    try:
        pubsub = PubSub(qmgr)
        reply = pubsub.register_subscriber(["Mqi/#"], queue=queue)
        assert reply is not None and reply.reason == RC.NONE
        pubsub.close()
    finally:
        qmgr.disconnect()
    ran = subprocess.run(
        [MQK, "publish", "Mqi/Cli", "from mqk"], capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    alice = secured.client("alice")
    [received] = alice.read_queue(queue, count=1, timeout=20)
    assert received.body == b"from mqk"
    # the MQI's subscription is alice's (not the process user's): her DeregSub removes it
    assert alice.deregister("Mqi/#", queue=queue).ok  # type: ignore[union-attr]


def _headers_on(secured: SecuredService, queue: str, count: int) -> list[dict[str, bytes]]:
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    topic = queue_to_topic(queue, secured.namespace)
    consumer = Consumer(
        {
            "bootstrap.servers": secured.bootstrap,
            "group.id": f"raw-{uuid.uuid4().hex}",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
        }
    )
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    found: list[dict[str, bytes]] = []
    deadline = time.monotonic() + 30
    try:
        while len(found) < count and time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                found.append(dict(message.headers() or []))
    finally:
        consumer.close()
    return found


def test_message_properties_are_signed_or_never_delivered(secured: SecuredService) -> None:
    """Issue 35 point 3: a property added after signing is refused with the message
    (2035); a version 1 signature (MQMD only) is still accepted, its properties removed;
    the version 2 signature clients write carries them to the subscriber."""
    alice = secured.client("alice")
    topic, queue = unique("Props/"), unique("ALICE.")
    assert alice.register(topic, queue=queue).ok  # type: ignore[union-attr]
    stream = queue_to_topic(STREAM, secured.namespace)
    key = secured.keys["alice"]
    producer = Producer({"bootstrap.servers": secured.bootstrap})

    def publication(body: bytes) -> tuple[MQMD, bytes, list[tuple[str, bytes]]]:
        md = MQMD(MsgId=os.urandom(24), UserIdentifier="alice")
        md, value = command_message([("Command", "Publish"), ("Topic", topic)], body=body, md=md)
        return md, value, [*mqmd_to_headers(md), ("mqprop.Region", b"EMEA")]

    _, value, headers = publication(b"signed")  # version 2: the property is signed
    producer.produce(
        stream, value, key=b"one order", headers=signed_headers(key, stream, value, headers)
    )
    md, value, headers = publication(b"added")  # a property added after signing
    tampered = [*signed_headers(key, stream, value, headers), ("mqprop.Approved", b"true")]
    producer.produce(stream, value, key=b"one order", headers=tampered)
    _, value, headers = publication(b"version 1")
    now = str(int(time.time() * 1000))
    mqmd = sorted(h for h in headers if h[0].startswith("mqmd."))
    text = "\n".join(
        ["mqk-signature-1", "alice", now, stream, hashlib.sha256(value).hexdigest()]
        + [f"{n}={v.hex()}" for n, v in mqmd]
    )
    digest = hmac.new(key.key, (text + "\n").encode(), hashlib.sha256).hexdigest()
    v1 = [*headers, ("mqk.Signer", b"alice"), ("mqk.Signature", f"1:{now}:{digest}".encode())]
    producer.produce(stream, value, key=b"one order", headers=v1)
    assert producer.flush(30) == 0
    dead = dead_letter_of(secured, md.MsgId)
    assert dead["mqk.reason"] == b"2035" and b"does not match" in dead["mqk.detail"]
    bodies = [r.body for r in alice.read_queue(queue, count=2, timeout=30)]
    assert bodies == [b"signed", b"version 1"]
    signed_copy, v1_copy = _headers_on(secured, queue, 2)
    assert signed_copy.get("mqprop.Region") == b"EMEA"
    assert not [n for n in v1_copy if n.startswith(("mqprop.", "mqtype."))]
