"""mqkafka.faust's commands: the reply queue's name and the reading of replies (the sending is
run against the real service in tests/integration/faust)."""

from __future__ import annotations

import pytest

from mqkafka.faust import (
    MQPubSub,
    Publication,
    decode_publication,
    default_reply_queue,
    encode_record,
    make_app,
)
from mqkafka.faust.pubsub import parse_reply_publication
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.mq import rfh2
from mqkafka.mq.folders import Folder, render_folder
from mqkafka.mq.mqmd import MQFMT_RF_HEADER_2, MQMD, MQMT
from mqkafka.mq.reasons import RC
from mqkafka.mq.rfh2 import Rfh2


@pytest.mark.parametrize(
    ("app_id", "queue"),
    [
        ("summary", "MQK.FAUST.SUMMARY"),
        ("ns1.mqk-faust-summary", "MQK.FAUST.NS1.MQK_FAUST_SUMMARY"),
        ("x" * 60, "MQK.FAUST." + "X" * 38),  # an MQ name has 48 characters at most
    ],
)
def test_the_default_reply_queue_is_an_mq_name(app_id: str, queue: str) -> None:
    assert default_reply_queue(app_id) == queue


def reply(pairs: list[tuple[str, str]]) -> Publication:
    md = MQMD(MsgType=MQMT.REPLY, Format=MQFMT_RF_HEADER_2)
    header = Rfh2(format="        ", folders=(render_folder(Folder.from_pairs("pscr", pairs)),))
    return decode_publication(*encode_record(md, rfh2.encode(header, md.Encoding)))


@pytest.mark.parametrize(
    ("pairs", "ok", "reason"),
    [
        ([("Completion", "ok")], True, int(RC.NONE)),
        ([("Completion", "warning"), ("Reason", "3150")], False, 3150),
        ([("Completion", "error"), ("Reason", "3076")], False, 3076),
    ],
)
def test_a_reply_is_read_as_the_client_reads_it(
    pairs: list[tuple[str, str]], ok: bool, reason: int
) -> None:
    result = parse_reply_publication(reply(pairs))
    assert (result.ok, result.reason) == (ok, reason)


def test_a_message_that_is_no_reply_is_an_error_result_not_a_crash() -> None:
    broken = Publication(MQMD(Format=MQFMT_RF_HEADER_2), b"", value=b"RFH \x00")
    assert not parse_reply_publication(broken).ok


def test_an_apps_reply_queue_is_named_without_its_namespace_and_read_in_it() -> None:
    app = make_app("summary", ClientConfig("127.0.0.1:1"), namespace="ns1.")
    mq = MQPubSub(app, namespace="ns1.")
    assert mq.reply_queue == "MQK.FAUST.SUMMARY"
    assert mq.queue(mq.reply_queue).get_topic_name() == "ns1.MQK.FAUST.SUMMARY"
    assert mq.queue("APP/Q%1").get_topic_name() == "ns1.APP-2FQ-251"  # wire contract §1
