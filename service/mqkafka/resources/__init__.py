"""What the code reads at run time, shipped inside the package (wheel, container, editable).

The catalogue of system topics (``topics/catalogue.toml``) and the Avro schemas
(``schemas/*.avsc``) live here; the project's top-level ``topics/`` and ``schemas/`` are links
to these folders. Read them through these functions (``importlib.resources``), never by a path
into the source tree: an installed package has no source tree.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

CATALOGUE = "catalogue.toml"


def catalogue_text() -> str:
    return resources.files(__package__).joinpath("topics", CATALOGUE).read_text(encoding="utf-8")


def schema(name: str) -> dict[str, Any]:
    """The Avro schema ``schemas/<name>.avsc`` as JSON (parse it with fastavro)."""
    parsed: dict[str, Any] = json.loads(schema_text(name))
    return parsed


def schema_text(name: str) -> str:
    return resources.files(__package__).joinpath("schemas", f"{name}.avsc").read_text("utf-8")


def schema_names() -> list[str]:
    folder = resources.files(__package__).joinpath("schemas")
    return sorted(p.name[: -len(".avsc")] for p in folder.iterdir() if p.name.endswith(".avsc"))


__all__ = ["catalogue_text", "schema", "schema_names", "schema_text"]
