"""``python -m pyramide.storage copy SOURCE TARGET``: move a Pyramide database to another one (from the
SQLite file to PostgreSQL, as a server grows), every table, verified by its row counts."""

from __future__ import annotations

import argparse
import asyncio
import sys

from . import StorageError, redact
from .copy import CopyError, copy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pyramide.storage", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    copy_parser = sub.add_parser(
        "copy",
        help="copy every game, action, setting, statistic, daily record and race to an empty database",
    )
    copy_parser.add_argument("source", help="sqlite:///ABSOLUTE/PATH (or a path), or postgresql://…")
    copy_parser.add_argument("target", help="postgresql://USER@HOST:PORT/DBNAME (or sqlite:///ABSOLUTE/PATH)")
    args = parser.parse_args(argv)
    print(f"copying {redact(args.source)} to {redact(args.target)}")
    try:
        copied = asyncio.run(copy(args.source, args.target))
    except (StorageError, CopyError, ValueError) as error:
        print(f"copy failed: {error}", file=sys.stderr)
        return 1
    print(f"copied {sum(copied.values())} rows; every table's count matches the source")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
