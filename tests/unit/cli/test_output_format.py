"""How mqk's listings print: unset values blank, terminal widths respected without cutting
ids, whole rows into a pipe, JSON of the same values."""

from __future__ import annotations

import json

import pytest

from mqkafka.cli import output
from mqkafka.cli.output import Column, cell, render
from mqkafka.cli.subs import RETAINED_COLUMNS, SUB_COLUMNS, retained_row, sub_row
from mqkafka.query.state import retained_view, subscription_view
from tests.unit.state.strategies import Q_CORREL, pub, sub


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, ""),
        ("", ""),
        (0, "0"),
        (12, "12"),
        (True, "yes"),
        ((), ""),
        (("CorrelAsId", "Locked"), "CorrelAsId,Locked"),
        ("Sport/#", "Sport/#"),
    ],
)
def test_a_cell_prints_unset_as_nothing(value: object, text: str) -> None:
    assert cell(value) == text


CORREL = "43" * 24
ROWS = [
    sub_row(subscription_view(sub("Sport/#"))),
    sub_row(subscription_view(sub("Sport/Soccer/#", identity=Q_CORREL, name="results"))),
]


@pytest.mark.parametrize("width", [60, 80, 120, 200])
def test_a_table_fits_the_terminal_and_wraps_the_correl_id_instead_of_cutting_it(
    width: int,
) -> None:
    text = render(SUB_COLUMNS, ROWS, width)
    assert all(len(line) <= width for line in text.splitlines())
    assert "None" not in text and "…" not in text.split("USERID")[0]
    # the CorrelId is all there, in pieces when the terminal is narrow
    squeezed = "".join(text.split())
    assert CORREL in squeezed or all(part in text for part in (CORREL[:8], CORREL[-8:]))


def test_into_a_pipe_every_row_is_one_line_without_trailing_blanks() -> None:
    text = render(SUB_COLUMNS, ROWS, output.PIPE_WIDTH, rule=False)
    lines = text.splitlines()
    assert len(lines) == 1 + len(ROWS)
    assert lines[0].split() == ["TOPIC", "QUEUE", "CORRELID", "SUBNAME", "USERID", "OPTIONS",
                                "FILTER"]  # fmt: skip
    assert CORREL in lines[2] and "results" in lines[2] and "CorrelAsId" in lines[2]
    assert lines[1].split() == ["Sport/#", "SUB.Q", "fred"]  # unset: blank, not "None"
    assert all(line == line.rstrip() for line in lines)


@pytest.mark.parametrize(
    ("body", "kind", "preview"),
    [
        (b"4-1", "text", "4-1"),
        (b'{"a": 1}', "json", '{   "a": 1 }'),
        (b"x" * 100, "text", "x" * 37 + "..."),
        (b"\x00\x01", "hex", "00000000  00 01"),
    ],
)
def test_a_retained_row_previews_its_body(body: bytes, kind: str, preview: str) -> None:
    row = retained_row(retained_view(pub("Sport/Soccer", body=body)))
    assert row[0] == "Sport/Soccer" and row[1] == len(body) and row[2] == kind
    assert row[4].startswith(preview.strip())
    assert len(render(RETAINED_COLUMNS, [row], 80).splitlines()[-1]) <= 80


def test_numbers_are_right_aligned() -> None:
    text = render([Column("NAME"), Column("DEPTH", right=True)], [("A", 5), ("B", 1234)], 80)
    lines = text.splitlines()
    assert lines[-1].endswith("1234") and lines[-2].endswith("   5")


def test_json_of_views_is_plain_values(capsys: pytest.CaptureFixture[str]) -> None:
    output.print_json([subscription_view(sub("Sport/#", name="n"))])
    [item] = json.loads(capsys.readouterr().out)
    assert item["name"] == "n" and item["correl_id"] is None and item["options"] == []
