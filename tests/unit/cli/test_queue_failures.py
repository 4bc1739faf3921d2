"""What mqk says for an MQ reason met on a queue (cli/explain.py), and the queue attribute
table that mqk queue define/alter and mqk mqsc share (cli/queueadmin.py): pure."""

from __future__ import annotations

import argparse

import pytest

from mqkafka.cli.explain import queue_failure
from mqkafka.cli.output import EXIT_CODES, EXIT_EMPTY, EXIT_ERROR, EXIT_NOT_FOUND, EXIT_REFUSED
from mqkafka.cli.queueadmin import QUEUE_ATTRIBUTES, attributes_of, split_attributes
from mqkafka.mqi import CMQC

FAILURES = [
    (
        2085,
        "queue NO.SUCH.QUEUE is not defined (MQRC_UNKNOWN_OBJECT_NAME 2085); "
        "define it with mqk queue define NO.SUCH.QUEUE",
        EXIT_NOT_FOUND,
    ),
    (
        2055,
        "queue NO.SUCH.QUEUE holds messages (MQRC_Q_NOT_EMPTY 2055); delete it with --purge, "
        "or empty it first with mqk queue clear NO.SUCH.QUEUE",
        EXIT_REFUSED,
    ),
    (
        2100,
        "queue NO.SUCH.QUEUE is already defined (MQRC_OBJECT_ALREADY_EXISTS 2100)",
        EXIT_REFUSED,
    ),
    (2042, "queue NO.SUCH.QUEUE is open in a program", EXIT_REFUSED),
    (2051, "mqk queue alter NO.SUCH.QUEUE --put enabled", EXIT_REFUSED),
    (2053, "--max-depth N", EXIT_REFUSED),
    (2030, "--max-message-length N", EXIT_REFUSED),
    (2033, "queue NO.SUCH.QUEUE is empty (MQRC_NO_MSG_AVAILABLE 2033)", EXIT_EMPTY),
    (2152, "is not a queue name", EXIT_ERROR),
    (2046, "queue NO.SUCH.QUEUE: MQRC_OPTIONS_ERROR 2046: the detail", EXIT_REFUSED),
]


@pytest.mark.parametrize(("reason", "said", "exit_code"), FAILURES)
def test_a_failure_names_the_queue_the_reason_and_what_to_do(
    reason: int, said: str, exit_code: int
) -> None:
    line, code = queue_failure(reason, "NO.SUCH.QUEUE", "the detail")
    assert said in line and code == exit_code
    assert "\n" not in line


def test_every_exit_code_is_listed_once() -> None:
    codes = [code for code, _ in EXIT_CODES]
    assert len(codes) == len(set(codes)) and {0, 1, 2, 3, 4, 5, 6, 130, 141} == set(codes)


def options(**given: str) -> argparse.Namespace:
    return argparse.Namespace(**{f"attr_{a.field}": given.get(a.field) for a in QUEUE_ATTRIBUTES})


PARSED = [
    ({"max_depth": "10"}, {"max_depth": 10}),
    ({"max_msg_length": "100"}, {"max_msg_length": 100}),
    ({"description": "for Bob"}, {"description": "for Bob"}),
    ({"default_persistence": "yes"}, {"default_persistence": CMQC.MQPER_PERSISTENT}),
    (
        {"inhibit_put": "disabled", "inhibit_get": "Enabled"},
        {"inhibit_put": True, "inhibit_get": False},
    ),
    ({"partitions": "3"}, {"partitions": 3}),
]


@pytest.mark.parametrize(("given", "values"), PARSED)
def test_options_become_definition_fields(given: dict[str, str], values: dict[str, object]) -> None:
    assert attributes_of(options(**given), model=False) == values


def test_a_model_takes_its_definition_type_and_a_local_queue_refuses_it() -> None:
    assert attributes_of(options(definition_type="permanent"), model=True) == {
        "definition_type": CMQC.MQQDT_PERMANENT_DYNAMIC
    }
    from mqkafka.cli.common import UserError

    with pytest.raises(UserError, match="--definition-type does not apply to a local queue"):
        attributes_of(options(definition_type="permanent"), model=False)
    with pytest.raises(UserError, match="--max-depth: "):
        attributes_of(options(max_depth="-1"), model=False)
    with pytest.raises(UserError, match="at most 64"):
        attributes_of(options(description="x" * 65), model=False)


def test_partitions_are_the_topic_s_not_the_definition_s() -> None:
    assert split_attributes({"max_depth": 5, "partitions": 2}) == ({"max_depth": 5}, 2)


SAMPLES = {
    "description": "d", "max_depth": "5", "max_msg_length": "5", "default_persistence": "YES",
    "inhibit_put": "DISABLED", "inhibit_get": "ENABLED", "definition_type": "TEMPDYN",
    "partitions": "2",
}  # fmt: skip


def test_every_attribute_shows_what_it_parses() -> None:
    for attribute in QUEUE_ATTRIBUTES:
        sample = SAMPLES.get(attribute.field)
        if sample is not None:
            assert attribute.show(attribute.parse(sample)) == sample


def test_mqk_help_lists_every_exit_code() -> None:
    from mqkafka.cli import build_parser

    text = build_parser().format_help()
    assert "exit codes:" in text
    for code, meaning in EXIT_CODES:
        assert f"{code:>3}  {meaning}" in text
    queue_help = build_parser().parse_known_args(["queue", "define", "Q"])[0]
    assert queue_help.func.__name__ == "define_cmd"
