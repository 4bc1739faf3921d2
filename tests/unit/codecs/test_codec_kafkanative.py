"""Kafka-native records' properties (issue 37): ``mqprop.*`` headers and the ``<usr>``
folder carry the same properties both ways, as the MQI's typed reader (``propwire``) reads
them (Hypothesis)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq.commands import DEFAULT_STREAM, PublicationContent, Publish
from mqkafka.mq.mqmd import MQMD
from mqkafka.mqi.rules import cmqc as C
from mqkafka.mqi.rules import propwire
from mqkafka.wire.kafkanative import content_properties, properties_folder, psc_pairs
from mqkafka.wire.messagecodec import CommandReader

names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}(\.[A-Za-z][A-Za-z0-9_]{0,8})?", fullmatch=True)
values = st.one_of(
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12).map(
        lambda text: (C.MQTYPE_STRING, text.encode())
    ),
    st.integers(-(2**31), 2**31 - 1).map(lambda n: (C.MQTYPE_INT32, n)),
    st.integers(-(2**63), 2**63 - 1).map(lambda n: (C.MQTYPE_INT64, n)),
    st.booleans().map(lambda b: (C.MQTYPE_BOOLEAN, b)),
    st.binary(max_size=6).map(lambda b: (C.MQTYPE_BYTE_STRING, b)),
    st.just((C.MQTYPE_NULL, None)),
)
properties = st.dictionaries(names, values, max_size=5).filter(
    # a name that is also a group of another's (a and a.b) cannot be both in a folder
    lambda found: not any(o.startswith(n + ".") for n in found for o in found)
)


def _typed(found: dict[str, tuple[int, Any]]) -> dict[str, tuple[int, Any]]:
    """Empty strings read back as NULL-less empty strings either way: compare as text."""
    return {name: (kind, value or b"" if kind == C.MQTYPE_STRING else value)
            for name, (kind, value) in found.items()}  # fmt: skip


@given(properties)
def test_headers_to_a_folder_carry_what_the_mqi_reads_from_the_headers(
    props: dict[str, tuple[int, Any]],
) -> None:
    headers = propwire.to_headers(props)
    folder = properties_folder(headers)
    expected = _typed(propwire.from_headers(dict(headers)))
    assert _typed(propwire.from_usr(folder) if folder else {}) == expected


@given(properties)
def test_a_folder_to_headers_carries_what_the_mqi_reads_from_the_folder(
    props: dict[str, tuple[int, Any]],
) -> None:
    folder = propwire.usr_folder(props)
    headers = content_properties(PublicationContent(folders=("<mcd></mcd>", folder)))
    assert len({name for name, _ in headers}) == len(headers)
    assert _typed(propwire.from_headers(dict(headers))) == _typed(propwire.from_usr(folder))


def test_option_headers_are_split_and_the_command_is_publish_unless_said() -> None:
    pairs = psc_pairs([("mqpsc.Topic", b"a,b"), ("mqpsc.PubOpt", b"RetainPub, NoReg"),
                       ("mqprop.x", b"1")])  # fmt: skip
    assert pairs == [("Command", "Publish"), ("Topic", "a,b"), ("PubOpt", "RetainPub"),
                     ("PubOpt", "NoReg")]  # fmt: skip


# ---- a remembered Kafka-native Publish is the one the parser makes ---------------------------

native_headers = st.lists(
    st.sampled_from([
        ("mqpsc.Topic", b"Sport/Soccer"), ("mqpsc.Topic", b"News"), ("mqpsc.Topic", b""),
        ("mqpsc.PubOpt", b"RetainPub"), ("mqpsc.PubOpt", b"NoReg,IsRetainedPub"),
        ("mqpsc.PubOpt", b"Bogus"), ("mqpsc.QName", b"APP.PUB"), ("mqpsc.Command", b"DeletePub"),
        ("mqprop.Colour", b"red"), ("mqprop.n", b"7"), ("mqtype.n", b"i4"),
    ]),
    max_size=4,
).map(lambda found: [("mqpsc.Topic", b"T"), *found])  # fmt: skip
mds = st.builds(
    lambda reply, correl, fmt: MQMD(ReplyToQ=reply, CorrelId=correl, Format=fmt),
    st.sampled_from(["", "APP.REPLY"]),
    st.sampled_from([bytes(24), b"C" * 24]),
    st.sampled_from(["", "MQSTR"]),
)
shared = CommandReader()


@given(st.lists(st.tuples(native_headers, mds, st.binary(max_size=8)), min_size=1, max_size=8))
def test_a_remembered_kafka_native_command_is_the_one_the_parser_makes(
    messages: list[tuple[list[tuple[str, bytes]], MQMD, bytes]],
) -> None:
    for headers, md, body in messages:
        remembered = shared.read(body, md, DEFAULT_STREAM, "QM1", headers=headers)
        fresh = CommandReader().read(body, md, DEFAULT_STREAM, "QM1", headers=headers)
        assert remembered == fresh
        if isinstance(fresh, Publish):
            assert fresh.content.body == body
