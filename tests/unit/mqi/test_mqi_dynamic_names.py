"""DynamicQName (reference §9.5) and MQOPEN of a model queue (seed 004, first paragraph)."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.mq.errors import MQError
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import OD
from mqkafka.mqi.rules.catalogue import (
    OBJECT_NAME_CHARS,
    SYSTEM_DEFAULT_MODEL,
    SYSTEM_DURABLE_MODEL,
    SYSTEM_PERMANENT_MODEL,
    Catalogue,
    QueueDefinition,
    check_object_name,
)
from mqkafka.mqi.rules.dynamic import DynamicQName, create_dynamic_queue, resolve_dynamic_name

NAME_CHARS = "".join(sorted(OBJECT_NAME_CHARS))
HEX16 = re.compile(r"[0-9A-F]{16}")


def nothing_taken(name: str) -> bool:
    return False


@pytest.mark.parametrize(
    ("raw", "prefix", "generated"),
    [
        ("AMQ.*", "AMQ.", True),  # MQOD's initial value
        (b"AMQ.*", "AMQ.", True),
        ("*", "", True),  # '*' alone: the whole name is generated
        ("CREDIT.REPLY.*", "CREDIT.REPLY.", True),
        ("REPLY.*" + " " * 41, "REPLY.", True),  # followed only by blanks
        ("REPLY.*\0", "REPLY.", True),  # ... or a NUL
        ("REPLY.*\0garbage", "REPLY.", True),  # a NUL ends the significant part
        ("A" * 32 + "*", "A" * 32, True),  # '*' in position 33: the last allowed
        ("MY.REPLY.QUEUE", "MY.REPLY.QUEUE", False),  # no '*': used as given
        ("lower/case_%.q", "lower/case_%.q", False),
        ("X" * 48, "X" * 48, False),
    ],
)
def test_valid_dynamic_q_names(raw: str | bytes, prefix: str, generated: bool) -> None:
    assert DynamicQName.parse(raw) == DynamicQName(prefix, generated)


@pytest.mark.parametrize(
    "raw",
    [
        "",  # blank is invalid for a model open
        " " * 48,
        "\0",
        "A" * 33 + "*",  # '*' in position 34
        "AMQ.*X",  # '*' followed by something other than blanks/NUL
        "AMQ.* X",
        "A**",
        "*AMQ",
        " AMQ.*",  # leading blank
        "AM Q.*",  # embedded blank
        "AMQ-*",  # '-' is no object-name character
        "AMQ.\u00e9*",
        "X" * 49,
    ],
)
def test_malformed_dynamic_q_names_give_2011(raw: str) -> None:
    with pytest.raises(MQError) as raised:
        DynamicQName.parse(raw)
    assert raised.value.reason == C.MQRC_DYNAMIC_Q_NAME_ERROR


def test_generated_suffix_is_16_upper_case_hex_digits() -> None:
    name = resolve_dynamic_name("CREDIT.REPLY.*", nothing_taken, lambda: 0xA346EF00367849A0)
    assert name == "CREDIT.REPLY.A346EF00367849A0"  # the shape of MQ's own example (§9.5)


def test_name_without_star_is_used_as_given_or_2100_when_taken() -> None:
    assert resolve_dynamic_name("MY.REPLY", nothing_taken) == "MY.REPLY"
    with pytest.raises(MQError) as raised:
        resolve_dynamic_name("MY.REPLY", lambda name: name == "MY.REPLY")
    assert raised.value.reason == C.MQRC_OBJECT_ALREADY_EXISTS


def test_generation_skips_names_already_taken() -> None:
    suffixes = iter([1, 1, 2])
    first = resolve_dynamic_name("AMQ.*", nothing_taken, lambda: next(suffixes))
    second = resolve_dynamic_name("AMQ.*", lambda name: name == first, lambda: next(suffixes))
    assert (first, second) == ("AMQ.0000000000000001", "AMQ.0000000000000002")


def test_generation_gives_up_with_2100_when_every_try_is_taken() -> None:
    with pytest.raises(MQError) as raised:
        resolve_dynamic_name("AMQ.*", lambda name: True, lambda: 7)
    assert raised.value.reason == C.MQRC_OBJECT_ALREADY_EXISTS


prefixes = st.text(alphabet=NAME_CHARS, max_size=32)


@given(prefixes, st.lists(st.integers(min_value=0, max_value=2**64 - 1), min_size=2))
def test_generated_names_are_unique_valid_object_names(prefix: str, suffixes: list[int]) -> None:
    """Hypothesis: for any prefix of up to 32 characters, every generated name is a valid
    object name of at most 48 characters, and no two names are the same."""
    taken: set[str] = set()
    source = itertools.cycle(suffixes)
    for _ in range(len(set(suffixes))):
        name = resolve_dynamic_name(prefix + "*", taken.__contains__, lambda: next(source))
        assert len(name) <= C.MQ_Q_NAME_LENGTH
        assert check_object_name(name) == name
        assert name.startswith(prefix)
        assert HEX16.fullmatch(name[len(prefix) :])
        assert name not in taken
        taken.add(name)


@given(st.integers(min_value=-(2**70), max_value=2**70))
def test_any_random_source_gives_16_digits(random_value: int) -> None:
    assert HEX16.fullmatch(DynamicQName("", True).with_suffix(random_value))


@given(st.text(max_size=60))
def test_parse_never_fails_with_anything_but_2011(raw: str) -> None:
    try:
        pattern = DynamicQName.parse(raw)
    except MQError as error:
        assert error.reason == C.MQRC_DYNAMIC_Q_NAME_ERROR
    else:
        assert len(pattern.prefix) <= (32 if pattern.generated else 48)


# --- MQOPEN of a model queue --------------------------------------------------------------

CATALOGUE = Catalogue.with_system_objects()


@pytest.mark.parametrize(
    ("model_name", "definition_type"),
    [
        (SYSTEM_DEFAULT_MODEL, C.MQQDT_TEMPORARY_DYNAMIC),
        (SYSTEM_PERMANENT_MODEL, C.MQQDT_PERMANENT_DYNAMIC),
        (SYSTEM_DURABLE_MODEL, C.MQQDT_PERMANENT_DYNAMIC),
    ],
)
def test_opening_a_model_creates_a_local_queue_with_the_model_attributes(
    model_name: str, definition_type: int
) -> None:
    """S4: "the queue manager dynamically creates an instance of a local queue with the
    same attributes as the model queue. Depending on the value of the DefinitionType field
    of the model queue, the queue manager creates either a temporary or permanent dynamic
    queue"."""
    model = CATALOGUE.lookup(model_name)
    queue = create_dynamic_queue(
        model, OD().DynamicQName, creator="conn-1", user="alice", taken=CATALOGUE.__contains__
    )
    assert queue.queue_type == C.MQQT_LOCAL
    assert queue.definition_type == definition_type == model.definition_type
    assert (queue.default_persistence, queue.max_depth, queue.max_msg_length) == (
        model.default_persistence,
        model.max_depth,
        model.max_msg_length,
    )
    assert (queue.model, queue.creator, queue.created_by) == (model_name, "conn-1", "alice")
    assert queue.name.startswith("AMQ.")
    assert queue.name not in CATALOGUE


def test_a_user_defined_model_passes_its_attributes_on() -> None:
    model = QueueDefinition(
        "APP.REPLY.MODEL",
        C.MQQT_MODEL,
        C.MQQDT_PERMANENT_DYNAMIC,
        C.MQPER_PERSISTENT,
        max_depth=42,
        description="replies",
    )
    queue = create_dynamic_queue(
        model, "APP.REPLY.*", creator="c", user="u", taken=nothing_taken, random64=lambda: 5
    )
    assert queue == QueueDefinition(
        "APP.REPLY.0000000000000005",
        C.MQQT_LOCAL,
        C.MQQDT_PERMANENT_DYNAMIC,
        C.MQPER_PERSISTENT,
        max_depth=42,
        description="replies",
        model="APP.REPLY.MODEL",
        creator="c",
        created_by="u",
    )


def test_only_a_model_queue_creates_dynamic_queues() -> None:
    local = CATALOGUE.lookup("SYSTEM.DEFAULT.LOCAL.QUEUE")
    with pytest.raises(MQError) as raised:
        create_dynamic_queue(local, "AMQ.*", creator="c", user="u", taken=nothing_taken)
    assert raised.value.reason == C.MQRC_Q_TYPE_ERROR


def test_bad_dynamic_q_name_on_a_model_open_gives_2011() -> None:
    model = CATALOGUE.lookup(SYSTEM_DEFAULT_MODEL)
    with pytest.raises(MQError) as raised:
        create_dynamic_queue(model, "BAD NAME*", creator="c", user="u", taken=nothing_taken)
    assert raised.value.reason == C.MQRC_DYNAMIC_Q_NAME_ERROR
