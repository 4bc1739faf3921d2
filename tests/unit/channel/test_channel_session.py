"""The session's answers that need no queue manager: verbs before MQCONN, a wrong queue
manager name, verbs the listener does not offer, and the deferred SPI puts' bookkeeping."""

from __future__ import annotations

import struct

import pytest

from mqkafka.channel.codec import spi, verbs
from mqkafka.channel.codec.segments import SegType
from mqkafka.channel.deferred import Deferred, Held
from mqkafka.channel.session import Session
from mqkafka.channel.settings import ListenerSettings
from mqkafka.channel.spiverbs import new_id
from mqkafka.mqi.rules.structs import MD


def _session() -> Session:
    # nothing here connects: the bootstrap address is never dialled
    return Session(ListenerSettings(bootstrap_servers="127.0.0.1:1", qmgr="QM1"))


def _call(session: Session, verb: int, rest: bytes, hobj: int = 0) -> tuple[int, int, bytes]:
    body = verbs.ApiHeader(16 + len(rest), 0, 0, hobj).to_bytes(">") + rest
    reply = session.call(verb, ">", body)
    assert reply is not None, "no answer: an async put"
    api, out = verbs.parse_api(reply, ">")
    return api.comp, api.reason, out


@pytest.mark.parametrize(
    "verb",
    [SegType.MQOPEN, SegType.MQCLOSE, SegType.MQGET, SegType.MQPUT, SegType.MQPUT1,
     SegType.MQINQ, SegType.MQSET, SegType.MQCMIT, SegType.MQBACK, SegType.SPI,
     SegType.MQDISC, SegType.MQSTAT],
)  # fmt: skip
def test_a_verb_before_mqconn_is_hconn_error(verb: int) -> None:
    assert _call(_session(), verb, bytes(8))[:2] == (2, 2018)


@pytest.mark.parametrize("name", [b"QMX", b"QM2", b"SOMEONE.ELSE"])
def test_mqconn_to_another_queue_manager_is_2058_and_echoes_conn(name: bytes) -> None:
    conn = name.ljust(48) + b"app".ljust(28) + bytes(40)
    comp, reason, out = _call(_session(), SegType.MQCONN, conn)
    assert (comp, reason, out) == (2, 2058, conn)


@pytest.mark.parametrize("verb", [SegType.MQSUB, SegType.MQSUBRQ, 0xA1])
def test_verbs_not_offered_are_2298(verb: int) -> None:
    assert _call(_session(), verb, b"")[:2] == (2, verbs.FUNCTION_NOT_SUPPORTED)


def test_a_held_message_is_taken_once_by_its_msgid() -> None:
    deferred = Deferred()
    first, second = new_id(), new_id()
    deferred.hold(first, Held("Q", MD(MsgId=first), b"1"))
    deferred.hold(second, Held("Q", MD(MsgId=second), b"2"))
    taken = deferred.take(second)
    assert taken is not None and taken.data == b"2"
    assert deferred.take(second) is None
    assert list(deferred.held) == [first]


def test_an_spai_says_its_mode_and_msgid() -> None:
    msg_id = new_id()
    spai = spi.spi_struct(b"SPAI", ">", struct.pack(">i", 2) + bytes(96) + msg_id)
    request = spi.SpiRequest(spi.SPI_ACTIVATE, 1, 12, spi.spi_struct(b"SPAU", ">"), spai)
    assert spi.parse_activate(request, ">") == (spi.ACTIVATE_DISABLE, msg_id)


def test_new_ids_are_unique_and_look_like_a_queue_managers() -> None:
    ids = {new_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) == 24 and i.startswith(b"AMQ ") for i in ids)
