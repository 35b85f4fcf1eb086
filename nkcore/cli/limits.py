"""``python -m nkcore limits``: the work budget of one request in force (every limit, its variable and value)."""

from __future__ import annotations

import argparse

from nkcore.cli.common import print_json
from nkcore.common import limits

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``limits`` subcommand."""
    p = subparsers.add_parser(
        "limits",
        help="print the limits in force (file size, rows, rounds, memory...) and their environment variables",
        description="Every limit one request (a file, a link, a CLI call) is checked against, with the "
        "environment variable that changes it, its default and the value in force.",
    )
    p.add_argument(
        "--json", action="store_true", help="machine-readable output: a list of {key, env, default, in_force, unit}"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the table of limits (plain text or JSON)."""
    rows = limits.table()
    if args.json:
        print_json(rows)
        return 0
    print(f"{'limit':<18} {'in force':>16} {'default':>16}  {'unit':<36} variable")
    for row in rows:
        changed = "" if row["in_force"] == row["default"] else "  (changed)"
        print(
            f"{row['key']!s:<18} {row['in_force']:>16,} {row['default']:>16,}  {row['unit']!s:<36} {row['env']}{changed}"
        )
    bad = limits.unusable_settings()
    if bad:
        print(f"Not a positive whole number, so the default is in force: {', '.join(bad)}")
    return 0
