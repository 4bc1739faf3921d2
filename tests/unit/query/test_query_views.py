"""The query layer's pure parts: how bodies, descriptors, dead letters, state records, queue
names and metrics read to an operator."""

from __future__ import annotations

import pytest

from mqkafka.engine.topicspace import Namespace
from mqkafka.mq.dlh import MQFMT_DEAD_LETTER_HEADER, DeadLetterHeader
from mqkafka.mq.mqmd import MQMD, MQMT
from mqkafka.mq.reasons import RC
from mqkafka.mq.topics import NamespaceKind
from mqkafka.query.queues import queue_names
from mqkafka.query.render import render_body, view_message
from mqkafka.query.service import Sample, parse_metrics, rates
from mqkafka.query.state import retained_view, subscription_view
from tests.unit.state.strategies import Q_CORREL, pub, sub


@pytest.mark.parametrize(
    ("data", "kind", "text"),
    [
        (b"4-1", "text", "4-1"),
        (b"", "text", ""),
        (b'{"home": 4, "away": 1}', "json", '{\n  "home": 4,\n  "away": 1\n}'),
        (b"[1, 2]", "json", "[\n  1,\n  2\n]"),
        (b"{not json", "text", "{not json"),
        ("Fußball 東京".encode(), "text", "Fußball 東京"),
        (b"line 1\nline 2\t!", "text", "line 1\nline 2\t!"),
        (b"\x00\x01AB", "hex", f"00000000  {'00 01 41 42':<47}  ..AB"),
        (b"\xff\xfe", "hex", f"00000000  {'ff fe':<47}  .."),
    ],
)
def test_a_body_reads_as_json_text_or_hex(data: bytes, kind: str, text: str) -> None:
    body = render_body(data)
    assert (body.kind, body.text, body.length) == (kind, text, len(data))


def test_a_long_binary_body_is_cut_but_its_length_is_kept() -> None:
    body = render_body(bytes(range(256)) * 100, limit=32)
    assert body.kind == "hex" and body.length == 25600 and len(body.text.splitlines()) == 2


def test_only_set_descriptor_fields_show_with_ids_in_full_and_types_by_name() -> None:
    md = MQMD(MsgType=MQMT.REQUEST, CorrelId=b"\x01" * 24, ReplyToQ="APP.REPLY")
    view = view_message(b"hi", md)
    assert view.md == {
        "MsgType": "MQMT_REQUEST",
        "CorrelId": "01" * 24,
        "ReplyToQ": "APP.REPLY",
    }
    assert view.body.text == "hi" and view.dead_letter is None and view.problem is None


def test_a_dead_letter_shows_its_reason_by_name_and_the_original_body() -> None:
    header = DeadLetterHeader(RC.UNKNOWN_OBJECT_NAME, "NO.SUCH.Q", "QM1", format="MQSTR   ")
    md = MQMD(Format=MQFMT_DEAD_LETTER_HEADER)
    view = view_message(header.encode() + b"lost", md)
    assert view.dead_letter is not None
    assert view.dead_letter.reason_name == "MQRC_UNKNOWN_OBJECT_NAME"
    assert (view.dead_letter.reason, view.dead_letter.dest_q_name) == (2085, "NO.SUCH.Q")
    assert view.body.text == "lost" and view.md.get("Format") == "MQSTR"


def test_a_message_whose_header_does_not_decode_says_why_and_keeps_the_bytes() -> None:
    view = view_message(b"RFH \x00", MQMD(Format="MQHRF2  "))
    assert view.problem is not None and view.problem.startswith("MQRC_")
    assert view.body.length == 5


@pytest.mark.parametrize(
    ("subscription", "expected"),
    [
        (
            sub("Sport/#"),
            {"correl_id": None, "name": None, "namespace": "", "filter": None, "options": ()},
        ),
        (
            sub("Sport/#", identity=Q_CORREL, name="results"),
            {"correl_id": ("43" * 24), "name": "results", "options": ("CorrelAsId",)},
        ),
        (
            sub("a/b", namespace=Namespace(NamespaceKind.SUBPOINT, "Points")),
            {"namespace": "subpoint:Points"},
        ),
    ],
)
def test_a_subscription_leaves_what_is_unset_as_none(
    subscription: object, expected: dict[str, object]
) -> None:
    view = subscription_view(subscription)  # type: ignore[arg-type]
    for name, value in expected.items():
        assert getattr(view, name) == value, name
    assert view.delivery_correl_id and len(view.delivery_correl_id) == 48


def test_a_retained_publication_reads_as_its_topic_and_decoded_body() -> None:
    view = retained_view(pub("Sport/Soccer", body=b'{"score": "4-1"}'))
    assert (view.topic, view.namespace, view.body.kind) == ("Sport/Soccer", "", "json")


@pytest.mark.parametrize(
    ("namespace", "topics", "queues"),
    [
        ("", ["APP.Q", "__consumer_offsets", "mqk-retained"], {"APP.Q": "APP.Q"}),
        ("", ["APP-2FREPLY-251", "bad-name"], {"APP/REPLY%1": "APP-2FREPLY-251"}),
        ("ns.", ["ns.A", "ns.mqk-queues", "other.B", "A"], {"A": "ns.A"}),
    ],
)
def test_queues_are_the_topics_that_carry_one(
    namespace: str, topics: list[str], queues: dict[str, str]
) -> None:
    assert queue_names(topics, namespace) == queues


METRICS = """# TYPE mqk_commands counter
mqk_commands_total 10.0
# TYPE mqk_publications counter
mqk_publications_total 20.0
# TYPE mqk_deliveries counter
mqk_deliveries_total 30.0
# TYPE mqk_command_outcomes counter
mqk_command_outcomes_total{command="Publish",reason="0"} 7.0
mqk_command_outcomes_total{command="Publish",reason="3072"} 2.0
mqk_command_outcomes_total{command="RegSub",reason="2085"} 1.0
# TYPE mqk_ready gauge
mqk_ready 1.0
"""


def test_metrics_count_errors_as_outcomes_whose_reason_is_not_zero() -> None:
    sample = parse_metrics(METRICS, 100.0)
    assert sample.counters["errors"] == 3.0 and sample.counters["commands"] == 10.0
    assert sample.gauges == {"mqk_ready": 1.0}


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ({"commands": 10.0}, {"commands": 30.0}, 10.0),
        ({"commands": 10.0}, {"commands": 10.0}, 0.0),
        ({"commands": 10.0}, {"commands": 2.0}, None),  # a restarted worker: no rate
    ],
)
def test_rates_are_per_second_and_absent_across_a_restart(
    before: dict[str, float], after: dict[str, float], expected: float | None
) -> None:
    found = rates(Sample(1.0, before), Sample(3.0, after))
    assert (found["commands"] if found else None) == expected


def test_no_rate_from_an_endpoint_that_did_not_answer() -> None:
    assert rates(Sample(1.0, problem="refused"), Sample(2.0, {"commands": 1.0})) is None
