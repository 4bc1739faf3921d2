"""mqkafka.faust's codec: a queue's record (value and ``mqmd.*`` headers) as a Publication,
decoded by the product's own MQMD and MQRFH2 codecs; a bad record is Faust's decode error."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from faust.exceptions import ValueDecodeError
from hypothesis import given, settings
from hypothesis import strategies as st

from mqkafka.client.kafka_pubsub import command_message
from mqkafka.faust import MQSchema, Publication, decode_publication, encode_record
from mqkafka.mq.errors import MQError
from mqkafka.mq.folders import Folder, render_folder
from mqkafka.mq.mqmd import MQFMT_STRING, MQMD
from mqkafka.mq.reasons import RC
from mqkafka.wire.headers import mqmd_to_headers
from tests.unit.codecs.strategies import mqmds

TOPICS = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="<>&"))
PROPERTY_NAMES = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True)
PROPERTY_VALUES = st.text(
    st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="<>&"), min_size=1
)  # an empty <usr> element is a property with no value: not a string


def delivered(
    md: MQMD, topics: list[str], body: bytes, properties: dict[str, str], retained: bool = False
) -> tuple[bytes, list[tuple[str, bytes]]]:
    """A publication as the service delivers it: <psc> (Publish, Topic...) and <usr>."""
    pairs = [("Command", "Publish"), *(("Topic", topic) for topic in topics)]
    pairs += [("PubOpt", "IsRetainedPub")] if retained else []
    usr = render_folder(Folder.from_pairs("usr", list(properties.items())))
    md, value = command_message(pairs, body=body, md=md, folders=[usr] if properties else [])
    return encode_record(md, value)


@settings(max_examples=40, deadline=None)
@given(
    md=mqmds(),
    encoding=st.sampled_from([546, 273]),
    topics=st.lists(TOPICS.filter(bool), min_size=1, max_size=3),
    body=st.binary(max_size=64),
    properties=st.dictionaries(PROPERTY_NAMES, PROPERTY_VALUES, max_size=3),
)
def test_a_delivered_publication_reads_back_as_it_was_sent(
    md: MQMD,
    encoding: int,
    topics: list[str],
    body: bytes,
    properties: dict[str, str],
) -> None:
    value, headers = delivered(md.replace(Encoding=encoding), topics, body, properties)
    publication = decode_publication(value, headers)
    assert publication.topic == topics[0]
    assert publication.topics == tuple(topics)
    assert publication.body == body
    assert dict(publication.properties) == properties
    assert publication.md.Encoding == encoding
    assert publication.md.CorrelId == md.CorrelId
    assert publication.value == value
    assert not publication.retained


@pytest.mark.parametrize(
    ("record", "topic", "body", "retained"),
    [
        pytest.param(
            delivered(MQMD(), ["Sport/Soccer"], b"4-1", {}, retained=True),
            "Sport/Soccer",
            b"4-1",
            True,
            id="retained-copy",
        ),
        pytest.param(
            encode_record(MQMD(Format=MQFMT_STRING), b"plain text"),
            None,
            b"plain text",
            False,
            id="no-rfh2-not-a-publication",
        ),
        pytest.param((b"", []), None, b"", False, id="empty-record"),
    ],
)
def test_what_a_queue_holds(
    record: tuple[bytes, list[tuple[str, bytes]]], topic: str | None, body: bytes, retained: bool
) -> None:
    publication = decode_publication(*record)
    assert (publication.topic, publication.body, publication.retained) == (topic, body, retained)


def test_unknown_headers_are_kept_for_forwarding() -> None:
    value, headers = delivered(MQMD(), ["A"], b"x", {})
    publication = decode_publication(value, [*headers, ("trace-id", b"42")])
    assert publication.headers == (("trace-id", b"42"),)


BROKEN = [
    pytest.param(b"RFH \x00\x00", mqmd_to_headers(MQMD(Format="MQHRF2")), id="truncated-rfh2"),
    pytest.param(b"x", [("mqmd.MsgType", b"eight")], id="bad-mqmd-header"),
]


@pytest.mark.parametrize(("value", "headers"), BROKEN)
def test_a_broken_record_is_an_mq_error(value: bytes, headers: list[tuple[str, bytes]]) -> None:
    with pytest.raises(MQError):
        decode_publication(value, headers)


def record(value: bytes, headers: object) -> SimpleNamespace:
    """What Faust hands a schema: a Kafka message's value, headers and position."""
    return SimpleNamespace(value=value, headers=headers, topic="Q", partition=0, offset=7)


def test_the_schema_decodes_values_into_publications() -> None:
    value, headers = delivered(MQMD(), ["Sport/Tennis"], b"ace", {"Score": "15"})
    for given_headers in (headers, tuple(headers), dict(headers)):  # Faust passes any of these
        publication = MQSchema().loads_value(None, record(value, given_headers))
        assert isinstance(publication, Publication)
        assert (publication.topic, publication.body) == ("Sport/Tennis", b"ace")
        assert publication.properties == {"Score": "15"}


def test_the_schema_turns_a_broken_record_into_a_decode_error_naming_the_reason() -> None:
    with pytest.raises(ValueDecodeError, match=rf"Q\[0\]@7: .*reason {int(RC.MD_ERROR)}"):
        MQSchema().loads_value(None, record(b"x", [("mqmd.MsgType", b"eight")]))
