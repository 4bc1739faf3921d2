"""The layers hold (issue 18 point 3, the architecture's code map): one package owns each
outside system, and the engine knows only MQ's structures. Read from the source with ``ast``:
every import statement counts, at module level or inside a function."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest

PACKAGE = Path(str(resources.files("mqkafka")))

# third-party module -> the only subpackage of mqkafka that may import it
OWNERS = {
    "confluent_kafka": "kafka",
    "rocksdict": "state",
    "pyspark": "pipeline",
    # Faust's client is aiokafka, a Kafka client of its own: made only in mqkafka.faust
    "faust": "faust",
    "aiokafka": "faust",
}
# subpackage -> the mqkafka subpackages it may import (the engine is pure)
ENGINE_MAY_IMPORT = {"engine", "mq"}


@functools.cache
def imports() -> tuple[tuple[str, str], ...]:
    """(subpackage of the importing module, imported module) for every import; parsed once for
    every rule."""
    return tuple(_imports())


def _imports() -> Iterator[tuple[str, str]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        part = path.relative_to(PACKAGE).parts
        owner = part[0] if len(part) > 1 else ""
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield owner, alias.name
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                yield owner, node.module


@pytest.mark.parametrize(("module", "owner"), sorted(OWNERS.items()))
def test_only_its_owner_imports_an_outside_client(module: str, owner: str) -> None:
    strays = sorted(
        {where for where, name in imports() if name.split(".")[0] == module and where != owner}
    )
    assert strays == [], f"{module} imported outside mqkafka.{owner}: {strays}"


def test_the_engine_imports_only_mq_structures_and_itself() -> None:
    reached = {
        name.split(".")[1]
        for where, name in imports()
        if where == "engine" and name.startswith("mqkafka.")
    }
    assert reached <= ENGINE_MAY_IMPORT, reached - ENGINE_MAY_IMPORT


# The MQI's rules are pure (issue 22 point 4): no Kafka client and none of the queue manager
# on Kafka, so pymqi's meaning is read and tested apart from the plumbing.
MQI_RULES_MAY_NOT_IMPORT = ("confluent_kafka", "mqkafka.kafka", "mqkafka.mqi.kafkaqm")


def test_the_mqi_rules_import_no_kafka() -> None:
    strays = set()
    for path in sorted((PACKAGE / "mqi" / "rules").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.module and not node.level
                else []
            )
            for name in names:
                if any(name == b or name.startswith(b + ".") for b in MQI_RULES_MAY_NOT_IMPORT):
                    strays.add(f"{path.name}: {name}")
    assert strays == set(), sorted(strays)
