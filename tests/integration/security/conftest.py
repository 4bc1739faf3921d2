"""One ``mqk serve --identity hmac --acl`` for a module, in a namespace of its own, with the
users of issue 20: alice and bob (keys of their own), and a bridge that may claim any userid;
carol may not subscribe to or publish on ``Secret/#`` (issue 35)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from mqkafka.client.kafka_pubsub import KafkaPubSub
from mqkafka.identity.keys import UserKey, new_key
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.kafka.provision import apply_catalogue
from mqkafka.wire.names import queue_to_topic
from tests.integration.service.conftest import ServiceProcess

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
CONTROL = "SYSTEM.BROKER.CONTROL.QUEUE"
STREAM = "SYSTEM.BROKER.DEFAULT.STREAM"
ACL = """\
allow setid     bridge *
allow put       *      SYSTEM.BROKER.CONTROL.QUEUE
allow put       *      SYSTEM.BROKER.DEFAULT.STREAM
allow put       *      MQK.PSREPLY.*
allow put       *      MQK.CLIENT.REPLY
allow put       alice  ALICE.*
allow put       bob    BOB.*
allow put       carol  CAROL.*
allow put       bridge *
deny  subscribe carol  Secret/#
deny  publish   carol  Secret/#
allow subscribe *      #
allow publish   *      *
"""


@dataclass
class SecuredService:
    bootstrap: str
    namespace: str
    keys: dict[str, UserKey]
    folder: Path
    service: ServiceProcess
    clients: list[KafkaPubSub] = field(default_factory=list)

    def key_file(self, user: str, *, set_identity: bool = False) -> Path:
        key = replace(self.keys[user], set_identity=set_identity)
        path = self.folder / f"{user}{'-setid' if set_identity else ''}.key"
        path.write_text(key.line() + "\n")
        return path

    def client(
        self,
        user: str,
        *,
        claim: str | None = None,
        signed: bool = True,
        reply_queue: str | None = None,
    ) -> KafkaPubSub:
        """``user``'s client (replies on USER.REPLY unless ``reply_queue``); ``claim``: the
        UserIdentifier it puts (kept only by a key line with set-identity); unsigned: no key."""
        identity = str(self.key_file(user, set_identity=claim is not None)) if signed else None
        config = ClientConfig(self.bootstrap, identity_file=identity)
        client = KafkaPubSub(
            config,
            namespace=self.namespace,
            reply_queue=reply_queue or f"{user.upper()}.REPLY",
            user=claim or user,
        )
        self.clients.append(client)
        return client


@pytest.fixture(scope="module")
def secured(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder = tmp_path_factory.mktemp("identity")
    namespace = f"t{uuid.uuid4().hex[:8]}."
    apply_catalogue(kafka_bootstrap, prefix=namespace)
    keys = {user: new_key(user) for user in ("alice", "bob", "carol", "bridge")}
    (folder / "keys").write_text("".join(k.line() + "\n" for k in keys.values()))
    (folder / "acl.txt").write_text(ACL)
    service = ServiceProcess(kafka_bootstrap, namespace, folder / "state", "1")
    service.start(
        120.0,
        *("--identity", "hmac", "--identity-keys", str(folder / "keys")),
        *("--acl", str(folder / "acl.txt")),
    )
    made = SecuredService(kafka_bootstrap, namespace, keys, folder, service)
    yield made
    for client in made.clients:
        client.close()
    service.stop(30)


def dead_letter_of(
    secured: SecuredService, msg_id: bytes, timeout: float = 30.0
) -> dict[str, bytes]:
    """The headers of the dead letter of the message whose MsgId is ``msg_id``."""
    consumer = Consumer(
        {
            "bootstrap.servers": secured.bootstrap,
            "group.id": f"raw-{uuid.uuid4().hex}",
            "isolation.level": "read_committed",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    topic = queue_to_topic(DLQ, secured.namespace)
    partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is None or message.error() is not None:
                continue
            headers = dict(message.headers() or [])
            if headers.get("mqmd.MsgId") == msg_id:
                return headers
    finally:
        consumer.close()
    raise AssertionError(f"no dead letter of MsgId {msg_id.hex()}")
