"""``python -m pyramide.storage copy SOURCE TARGET``: move a Pyramide database to another one (from the
SQLite file to PostgreSQL, as a server grows), every table, verified by its row counts."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from . import StorageError, redact
from .copy import CopyError, copy
from .sqlite import backup


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pyramide.storage", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    copy_parser = sub.add_parser(
        "copy",
        help="copy every game, action, setting, statistic, daily record and race to an empty database",
    )
    copy_parser.add_argument("source", help="sqlite:///ABSOLUTE/PATH (or a path), or postgresql://…")
    copy_parser.add_argument("target", help="postgresql://USER@HOST:PORT/DBNAME (or sqlite:///ABSOLUTE/PATH)")
    backup_parser = sub.add_parser(
        "backup", help="copy the bot's SQLite database to PATH, consistently, even while the bot runs"
    )
    backup_parser.add_argument("path")
    backup_parser.add_argument("--database", help="the database (default: PYRAMIDE_DB, or pyramide.db)")
    args = parser.parse_args(argv)
    if args.command == "backup":
        return backup_command(args.database, args.path)
    print(f"copying {redact(args.source)} to {redact(args.target)}")
    try:
        copied = asyncio.run(copy(args.source, args.target))
    except (StorageError, CopyError, ValueError) as error:
        print(f"copy failed: {error}", file=sys.stderr)
        return 1
    print(f"copied {sum(copied.values())} rows; every table's count matches the source")
    return 0


def backup_command(database: str | None, target: str) -> int:
    source = database or os.environ.get("PYRAMIDE_DB", "").strip() or str(Path.cwd() / "pyramide.db")
    try:
        pages = backup(source, target)
    except StorageError as error:
        print(f"backup failed: {error}", file=sys.stderr)
        return 1
    print(f"backed up {source} to {target} ({pages} pages)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
