"""``mqk schemas list|export``: the state and activity topics' Avro schemas by registry subject
(issue 37), for users to register in a schema registry of their own."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mqkafka.cli.output import EXIT_OK, Column, note, print_json, print_table

_COLUMNS = (Column("SUBJECT"), Column("TOPIC"), Column("RECORD"))


def register(sub: Any) -> None:
    schemas = sub.add_parser(
        "schemas", help="the Avro schemas of the state and activity topics, by registry subject"
    )
    actions = schemas.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="each subject, its topic and record name")
    listing.add_argument("--json", action="store_true", help="the schemas too, as JSON")
    _namespace(listing)
    listing.set_defaults(func=list_cmd)
    export = actions.add_parser("export", help="write <subject>.avsc files into DIR")
    export.add_argument("directory", metavar="DIR")
    _namespace(export)
    export.set_defaults(func=export_cmd)


def _namespace(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--namespace", default="", help="the topics' prefix (mqk serve --namespace), in subjects"
    )


def list_cmd(args: argparse.Namespace) -> int:
    from mqkafka.query.schemas import registry_subjects

    subjects = registry_subjects(args.namespace)
    if args.json:
        print_json([{"subject": s.subject, "topic": s.topic, "schema": s.schema} for s in subjects])
        return EXIT_OK
    print_table(_COLUMNS, [(s.subject, s.topic, s.schema.get("name")) for s in subjects])
    return EXIT_OK


def export_cmd(args: argparse.Namespace) -> int:
    from mqkafka.query.schemas import export

    written = export(Path(args.directory), args.namespace)
    print_table((*_COLUMNS[:2], Column("FILE")), [(s.subject, s.topic, str(p)) for s, p in written])
    note(f"{len(written)} schema(s) written; register each under its subject")
    return EXIT_OK
