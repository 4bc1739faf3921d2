"""The layers hold as ARCHITECTURE.md states them: ``mq`` ← ``engine`` ← the adapters, one
package owns each outside system, and each folder imports only what the code map's "may
import" column lets it. Read from the source with ``ast``: every import statement counts, at
module level or inside a function; the code map is read from ARCHITECTURE.md itself, so the
document and the code cannot drift apart."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest

PACKAGE = Path(str(resources.files("mqkafka")))
ARCHITECTURE = Path(__file__).resolve().parents[2] / "ARCHITECTURE.md"

# third-party module -> the only folder of mqkafka that may import it
OWNERS = {
    "confluent_kafka": "kafka",  # kafka/clients.py makes every client
    "rocksdict": "state",
    "pyspark": "pipeline",
    "py4j": "pipeline",  # Spark's bridge to its JVM
    # Faust's client is aiokafka, a Kafka client of its own: made only in mqkafka.faust
    "faust": "faust",
    "aiokafka": "faust",
    "starlette": "console",
    "sse_starlette": "console",
    "jinja2": "console",
}
# imports that close a cycle between folders, each with why it stands
CYCLE_EXCEPTIONS = {
    ("mqi/kafkaqm", "query"): "PCF's Inquire Subscription lists subscriptions as mqk sub list "
    "does (query.state, imported when asked), while query reads queues through the MQI's "
    "catalogue reader",
}


@functools.cache
def imports() -> tuple[tuple[tuple[str, ...], str], ...]:
    """(folders of the importing module, imported module) for every import; parsed once for
    every rule."""
    return tuple(_imports())


def _imports() -> Iterator[tuple[tuple[str, ...], str]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).parts[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield where, alias.name
            elif isinstance(node, ast.ImportFrom) and node.module == "mqkafka":
                for alias in node.names:  # from mqkafka import resources
                    yield where, f"mqkafka.{alias.name}"
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                yield where, node.module


@functools.cache
def code_map() -> dict[str, frozenset[str]]:
    """ARCHITECTURE.md's code map: folder (``mqi/rules`` for a room of a folder) -> the
    folders it may import (``-`` for none)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("\n## Code map", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, frozenset[str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            rows[cells[0].strip("`/")] = frozenset(re.findall(r"`([\w/]+)`", cells[2]))
    return rows


def row_of(parts: tuple[str, ...]) -> str:
    """The code map's row of a module under these folders: the deepest one it has."""
    for depth in range(len(parts), 1, -1):
        if "/".join(parts[:depth]) in code_map():
            return "/".join(parts[:depth])
    return parts[0]


def reached(row: str) -> set[str]:
    """The other rows of the code map that the modules of ``row`` import."""
    found = set()
    for where, name in imports():
        if where and row_of(where) == row and name.startswith("mqkafka."):
            found.add(row_of(tuple(name.split(".")[1:])))
    return found - {row}


def top_folders() -> set[str]:
    return {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}


@pytest.mark.parametrize(("module", "owner"), sorted(OWNERS.items()))
def test_only_its_owner_imports_an_outside_client(module: str, owner: str) -> None:
    strays = sorted(
        {
            "/".join(where) or "mqkafka"
            for where, name in imports()
            if name.split(".")[0] == module and where[:1] != (owner,)
        }
    )
    assert strays == [], f"{module} imported outside mqkafka.{owner}: {strays}"


def test_mq_imports_nothing_of_the_package_but_itself() -> None:
    assert reached("mq") == set()


def test_the_engine_imports_only_mq_structures_and_itself() -> None:
    assert reached("engine") <= {"mq"}, reached("engine") - {"mq"}


def test_the_code_map_says_the_same_of_mq_and_the_engine() -> None:
    assert code_map()["mq"] == set()
    assert code_map()["engine"] == {"mq"}


def test_the_code_map_has_a_row_for_every_folder_and_only_for_folders() -> None:
    rows = set(code_map())
    assert {row for row in rows if "/" not in row} == top_folders()
    assert all((PACKAGE / row / "__init__.py").is_file() for row in rows)


@pytest.mark.parametrize("row", sorted(code_map()))
def test_each_folder_imports_only_what_the_code_map_allows(row: str) -> None:
    extra = reached(row) - code_map()[row]
    assert not extra, (
        f"mqkafka/{row} imports {sorted(extra)}: ARCHITECTURE.md's code map does not allow it"
    )


def test_folders_import_one_another_without_a_cycle() -> None:
    """Only the listed imports close a cycle: the layers read from the bottom up."""
    graph = {row: reached(row) - {b for a, b in CYCLE_EXCEPTIONS if a == row} for row in code_map()}
    done: set[str] = set()

    def visit(row: str, path: tuple[str, ...]) -> None:
        assert row not in path, f"a cycle between folders: {' -> '.join((*path, row))}"
        if row not in done:
            for other in sorted(graph.get(row, ())):
                visit(other, (*path, row))
            done.add(row)

    for row in sorted(graph):
        visit(row, ())


@pytest.mark.parametrize(("importer", "imported"), sorted(CYCLE_EXCEPTIONS))
def test_each_cycle_exception_is_still_needed(importer: str, imported: str) -> None:
    assert imported in reached(importer), f"{importer} -> {imported} is gone: drop the exception"
