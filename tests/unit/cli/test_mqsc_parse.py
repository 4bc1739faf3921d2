"""runmqsc scripts read as runmqsc reads them (cli/mqscparse.py), and planned as mqk mqsc
applies them (cli/mqsc.py's plan): pure, no Kafka."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqkafka.cli.mqsc import plan, plan_script, steps_text
from mqkafka.cli.mqscparse import MqscCommand, MqscError, logical_lines, parse_script, tokens
from mqkafka.mqi import CMQC

# (script, the commands' (line, verb, type, name, keywords))
PARSED = [
    ("DEFINE QLOCAL(APP.IN)", [(1, "DEFINE", "QLOCAL", "APP.IN", ())]),
    ("define qlocal(app.in)", [(1, "DEFINE", "QLOCAL", "APP.IN", ())]),
    ("DEF QL('App.In')", [(1, "DEFINE", "QLOCAL", "App.In", ())]),
    (
        "DEFINE QLOCAL (APP.IN)  MAXDEPTH( 10 )",
        [(1, "DEFINE", "QLOCAL", "APP.IN", (("MAXDEPTH", "10"),))],
    ),
    (
        "DEFINE QLOCAL(A),MAXDEPTH(10),REPLACE",
        [(1, "DEFINE", "QLOCAL", "A", (("MAXDEPTH", "10"), ("REPLACE", None)))],
    ),
    (
        "ALTER QL(A) DESCR('Bob''s queue')",
        [(1, "ALTER", "QLOCAL", "A", (("DESCR", "Bob's queue"),))],
    ),
    (
        "ALT QL(A) DESCR('  two  words ')",
        [(1, "ALTER", "QLOCAL", "A", (("DESCR", "  two  words "),))],
    ),
    ("* a comment\n\n   * indented comment\nCLEAR QLOCAL(A)", [(4, "CLEAR", "QLOCAL", "A", ())]),
    ("DEFINE QLOCAL(A) +\n      MAXDEPTH(7)", [(1, "DEFINE", "QLOCAL", "A", (("MAXDEPTH", "7"),))]),
    (
        "DEFINE QLOCAL(A) DESCR('one -\n two')",
        [(1, "DEFINE", "QLOCAL", "A", (("DESCR", "one  two"),))],
    ),
    (
        "DEFINE QLOCAL(A) DESCR('one+\n     two')",
        [(1, "DEFINE", "QLOCAL", "A", (("DESCR", "onetwo"),))],
    ),
    (
        "DELETE QLOCAL(A) PURGE\nDIS QS(A) TYPE(QUEUE)",
        [
            (1, "DELETE", "QLOCAL", "A", (("PURGE", None),)),
            (2, "DISPLAY", "QSTATUS", "A", (("TYPE", "QUEUE"),)),
        ],
    ),
    ("DISPLAY SUB('my sub')", [(1, "DISPLAY", "SUB", "my sub", ())]),
    ("END", [(1, "END", "", None, ())]),
]


@pytest.mark.parametrize(("script", "expected"), PARSED)
def test_a_script_reads_as_runmqsc_reads_it(
    script: str, expected: list[tuple[object, ...]]
) -> None:
    commands = parse_script(script)
    assert all(isinstance(c, MqscCommand) for c in commands)
    got = [(c.line, c.verb, c.object_type, c.name, c.keywords) for c in commands]  # type: ignore[union-attr]
    assert got == expected


BAD = [
    ("DEFINE QLOCAL(A", "')' is missing"),
    ("DEFINE QLOCAL(A) DESCR('open)", "not closed"),
    ("FROB QLOCAL(A)", "FROB is not a runmqsc command"),
    ("QLOCAL(A)", "starts with its verb"),
    ("DEFINE QLOCAL(A(B))", "'(' inside a value"),
    ("DEFINE 'QLOCAL'", "where a keyword was expected"),
]


@pytest.mark.parametrize(("script", "problem"), BAD)
def test_an_unreadable_command_is_an_error_naming_its_line(script: str, problem: str) -> None:
    [found] = parse_script("* first\n" + script)
    assert isinstance(found, MqscError) and found.line == 2 and problem in found.message


def test_a_continuation_at_the_end_of_the_script_ends_the_command() -> None:
    assert logical_lines("DEFINE QLOCAL(A) +") == [(1, "DEFINE QLOCAL(A) ")]


PLANNED = [
    (
        "DEFINE QLOCAL(A) MAXDEPTH(10) DESCR('x') REPLACE",
        "define",
        {"max_depth": 10, "description": "x"},
    ),
    (
        "DEFINE QMODEL(M) DEFTYPE(PERMDYN)",
        "define",
        {"definition_type": CMQC.MQQDT_PERMANENT_DYNAMIC},
    ),
    (
        "ALTER QLOCAL(A) PUT(DISABLED) GET(ENABLED)",
        "alter",
        {"inhibit_put": True, "inhibit_get": False},
    ),
    (
        "ALTER QLOCAL(A) DEFPSIST(YES) MAXMSGL(100)",
        "alter",
        {"default_persistence": CMQC.MQPER_PERSISTENT, "max_msg_length": 100},
    ),
    ("DELETE QLOCAL(A) NOPURGE", "delete", {}),
    ("CLEAR QL(A)", "clear", {}),
    ("DIS Q(A*) ALL", "display-queue", {}),
    ("DISPLAY QSTATUS(A) CURDEPTH", "display-status", {}),
    ("DISPLAY SUB(*)", "display-sub", {}),
    ("DEFINE CHANNEL(C) CHLTYPE(SVRCONN)", "unsupported", {}),
    ("DEFINE QREMOTE(R) RNAME(X)", "unsupported", {}),
    ("SET AUTHREC PROFILE(A) OBJTYPE(QUEUE)", "unsupported", {}),
    ("DEFINE QLOCAL(A) MAXDEPTH(lots)", "error", {}),
    ("DEFINE QLOCAL(A) MAXDEPTH", "error", {}),
    ("DEFINE QLOCAL(A) DEFTYPE(PERMDYN)", "error", {}),
    ("DEFINE QLOCAL", "error", {}),
]


@pytest.mark.parametrize(("script", "action", "values"), PLANNED)
def test_each_command_is_planned_as_mqk_applies_it(
    script: str, action: str, values: dict[str, object]
) -> None:
    [step] = plan_script(script)
    assert (step.action, step.values) == (action, values)


def test_the_object_type_written_is_kept_for_the_type_check() -> None:
    alter, delete_model, delete_local = plan_script(
        "ALTER QMODEL(M) MAXDEPTH(1)\nDELETE QMODEL(M)\nDELETE QLOCAL(L)"
    )
    assert (alter.model, delete_model.model, delete_local.model) == (True, True, False)


def test_what_the_emulator_does_not_keep_is_named_and_the_rest_applied() -> None:
    [step] = plan_script("DEFINE QLOCAL(A) BOQNAME(A.BACK) BOTHRESH(3) MAXDEPTH(9) NOREPLACE")
    assert step.action == "define" and step.values == {"max_depth": 9}
    assert step.ignored == ("BOQNAME", "BOTHRESH") and not step.replace


def test_a_script_is_planned_to_its_end_command_with_line_numbers() -> None:
    script = (
        "DEF QL(A) LIKE(B) REPLACE\n* c\nDEFINE LISTENER(L)\nDELETE QL(A) PURGE\nEND\nDEF QL(C)"
    )
    steps = plan_script(script)
    assert steps_text(steps) == ["1 define A", "3 unsupported", "4 delete A", "5 end"]
    assert steps[0].like == "B" and steps[0].replace and steps[2].purge


# ---- Hypothesis: what a script writer quotes comes back as written ----

names = st.text(
    st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789./_%"),
    min_size=1,
    max_size=48,
)
texts = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=64)


def quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@given(names, texts)
def test_quoted_values_come_back_exactly(name: str, description: str) -> None:
    [command] = parse_script(f"DEFINE QLOCAL({quoted(name)}) DESCR({quoted(description)})")
    assert isinstance(command, MqscCommand)
    assert command.name == name and command.keyword("DESCR") == description


@given(names, st.integers(0, 999_999_999), st.sampled_from(["+", "-"]), st.integers(0, 6))
def test_a_command_split_over_lines_reads_as_one(
    name: str, depth: int, mark: str, indent: int
) -> None:
    one = parse_script(f"DEFINE QLOCAL({quoted(name)}) MAXDEPTH({depth})")
    split = parse_script(f"DEFINE QLOCAL({quoted(name)}) {mark}\n{' ' * indent}MAXDEPTH({depth})")
    assert [(c.name, c.keywords) for c in one] == [(c.name, c.keywords) for c in split]  # type: ignore[union-attr]


@given(st.text(max_size=200))
def test_any_text_reads_without_raising(text: str) -> None:
    for command in parse_script(text):
        step = plan(command)
        assert step.action in {
            "define",
            "alter",
            "delete",
            "clear",
            "display-queue",
            "display-status",
            "display-sub",
            "end",
            "unsupported",
            "error",
        }


def test_tokens_fold_unquoted_values_and_expand_short_forms() -> None:
    assert tokens("dis ql(app.*) descr") == [
        ("DISPLAY", None),
        ("QLOCAL", "APP.*"),
        ("DESCR", None),
    ]
