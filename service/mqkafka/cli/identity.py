"""``mqk identity add``: a user's identity key, into the service's key file and a file of the
user's own (issue 20). The key never appears on the terminal."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from mqkafka.cli.common import UserError
from mqkafka.identity.keys import IdentityError, load_keys, new_key


def register(sub: Any) -> None:
    identity = sub.add_parser("identity", help="identity keys for mqk serve --identity hmac")
    actions = identity.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = actions.add_parser(
        "add", help="make a user's key: a line in the service's file, a file for the user"
    )
    add.add_argument("user", help="the userid (1 to 12 characters), as in mqmd.UserIdentifier")
    add.add_argument(
        "--keys", type=Path, required=True, help="the service's key file (--identity-keys)"
    )
    add.add_argument(
        "--out", type=Path, help="the user's own file (default USER.key here; MQK_IDENTITY_FILE)"
    )
    add.add_argument(
        "--set-identity",
        action="store_true",
        help="the user's clients keep the UserIdentifier the application sets (a bridge; the "
        "ACL's 'allow setid USER ...' rules decide which claims the service accepts)",
    )
    add.set_defaults(func=run_add)


def _write_private(path: Path, text: str, *, append: bool = False) -> None:
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_EXCL)
    with os.fdopen(os.open(path, flags, 0o600), "a" if append else "w", encoding="utf-8") as f:
        f.write(text)


def run_add(args: argparse.Namespace) -> int:
    out: Path = args.out or Path(f"{args.user}.key")
    try:
        known = load_keys(args.keys) if args.keys.exists() else {}
        if args.user in known:
            raise UserError(f"{args.keys}: {args.user!r} has a key already")
        if out.exists():
            raise UserError(f"{out} exists: give another --out")
        key = new_key(args.user, set_identity=args.set_identity)
        _write_private(out, key.line() + "\n")
        _write_private(args.keys, key.line() + "\n", append=True)
    except IdentityError as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(f"cannot write: {error}") from None
    print(f"{args.user}: key added to {args.keys}; the user's own file is {out}")
    print(f"  (for {args.user}'s clients: export MQK_IDENTITY_FILE={out})")
    return 0
