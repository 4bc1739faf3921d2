"""``mqk listen --identity-file`` as the trusted edge of a service run with ``--identity
hmac``: the listener signs what its connections put with its own key (bridge's, with
set-identity, which the ACL lets claim any user id), for the user id each connection
established. A command put for alice through it is answered; through a listener without a
key it is dead-lettered with 2035, as any unsigned message is."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

import mqkafka.mqi as pymqi
from mqkafka.mq import rfh1
from mqkafka.mq.reasons import RC
from mqkafka.mq.rfh1 import Rfh1
from mqkafka.mqi.rules.structs import MD
from tests.integration.channel.conftest import ListenerProcess, connect_qmgr
from tests.integration.channel.rawclient import RawClient
from tests.integration.security.conftest import (  # noqa: F401 (a fixture)
    SecuredService,
    dead_letter_of,
    secured,
)

C = pymqi.CMQC
REGSUB = "MQPSCommand RegSub MQPSTopic Edge/News MQPSQName ALICE.NEWS"


@pytest.fixture(scope="module")
def edges(secured: SecuredService) -> Iterator[tuple[ListenerProcess, ListenerProcess]]:  # noqa: F811
    qmgr = connect_qmgr(secured.bootstrap, secured.namespace)
    for queue in ("ALICE.REPLY", "ALICE.NEWS"):
        qmgr.define_queue(queue)
    qmgr.disconnect()
    key = secured.key_file("bridge", set_identity=True)
    signing = ListenerProcess(secured.bootstrap, secured.namespace, "--identity-file", str(key))
    plain = ListenerProcess(secured.bootstrap, secured.namespace)
    yield signing, plain
    for process in (signing, plain):
        if process.proc.poll() is None:
            process.stop()


def put_regsub(listener: ListenerProcess, user: str = "alice") -> bytes:
    """RegSub of ALICE.NEWS, replies to ALICE.REPLY, put through ``listener`` by a client
    asserting ``user`` in its USERID_DATA; its MsgId."""
    msg_id = uuid.uuid4().bytes.ljust(24, b"\1")
    md = MD(Format=C.MQFMT_RF_HEADER_1, CodedCharSetId=1208, MsgType=C.MQMT_REQUEST,
            ReplyToQ=b"ALICE.REPLY", MsgId=msg_id)  # fmt: skip
    body = rfh1.encode(Rfh1(name_values=REGSUB), md.Encoding)
    client = RawClient(listener.port, user=user)
    assert client.conn() == 0
    hobj = client.open("SYSTEM.BROKER.CONTROL.QUEUE", C.MQOO_OUTPUT)
    assert client.put(hobj, body, C.MQPMO_NO_SYNCPOINT, md) == 0
    client.drop()
    return msg_id


def test_the_listener_signs_for_the_connections_user(
    secured: SecuredService,  # noqa: F811
    edges: tuple[ListenerProcess, ListenerProcess],
) -> None:
    msg_id = put_regsub(edges[0])
    qmgr = connect_qmgr(secured.bootstrap, secured.namespace)
    queue = pymqi.Queue(qmgr, "ALICE.REPLY", C.MQOO_INPUT_AS_Q_DEF)
    md = pymqi.MD()
    reply = queue.get_wait(30_000, None, md)
    queue.close()
    qmgr.disconnect()
    assert md.CorrelId == msg_id
    assert b"MQPSCompCode 0" in reply, reply
    # signed as bob (not as bridge, who may put anywhere): bob may not put to ALICE.*
    refused = dead_letter_of(secured, put_regsub(edges[0], user="bob"))
    assert refused["mqk.reason"] == str(RC.CF_NOT_AUTHORIZED).encode(), refused


def test_without_the_key_the_service_refuses_it(
    secured: SecuredService,  # noqa: F811
    edges: tuple[ListenerProcess, ListenerProcess],
) -> None:
    msg_id = put_regsub(edges[1])
    dead = dead_letter_of(secured, msg_id)
    assert dead["mqmd.UserIdentifier"].rstrip() == b"alice"
    assert dead["mqk.reason"] == str(RC.NOT_AUTHORIZED).encode()
    assert b"no signature" in dead["mqk.detail"]
